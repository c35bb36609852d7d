"""``lepromafia serve`` stops on SIGTERM even when a client never finishes its request
(issue 17, "Operating it"): uvicorn waited for every open request without limit, so a
client that sent half a body kept the worker serving — and a deploy waiting — forever."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from lepromafia.cli.serve_cmd import GRACEFUL_SHUTDOWN

from ..scale.cluster import free_port


def _serve(tmp: Path, port: int) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEPROMAFIA_", "DATABASE_"))}
    env.update({"LEPROMAFIA_DATABASE_URL": f"sqlite:///{tmp}/serve.db", "LEPROMAFIA_AUTO_MIGRATE": "true",
                "LEPROMAFIA_SECRET_KEY": "serve-stops-secret-key-0123456789", "LEPROMAFIA_REDIS_URL": "",
                "LEPROMAFIA_LOG_LEVEL": "info", "LEPROMAFIA_WARM_UP": "0"})
    script = Path(sys.executable).with_name("lepromafia")
    return subprocess.Popen([str(script), "serve", "--port", str(port)], env=env,
                            stdout=(tmp / "serve.log").open("wb"), stderr=subprocess.STDOUT)


def _connect(port: int, proc: subprocess.Popen[bytes], within: float = 90.0) -> socket.socket:
    deadline = time.monotonic() + within
    while True:
        assert proc.poll() is None, "the server exited while starting"
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=1.0)
        except OSError:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)


def test_a_client_that_never_finishes_its_body_does_not_keep_the_server_running(tmp_path: Path) -> None:
    """A client announces a 100-byte login and sends 4 bytes of it, then nothing. SIGTERM:
    the server gives the request ``GRACEFUL_SHUTDOWN`` seconds, cancels it and exits."""
    port = free_port()
    proc = _serve(tmp_path, port)
    half = None
    try:
        half = _connect(port, proc)
        half.sendall(b"POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"lo")
        time.sleep(0.5)  # the request is being read
        asked = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(GRACEFUL_SHUTDOWN + 10)
        took = time.monotonic() - asked
        assert GRACEFUL_SHUTDOWN - 0.5 <= took < GRACEFUL_SHUTDOWN + 10, took
        log = (tmp_path / "serve.log").read_text()
        assert "timeout graceful shutdown exceeded" in log
        assert "Application shutdown complete" in log
    finally:
        if half is not None:
            half.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
