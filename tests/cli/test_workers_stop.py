"""``lepromafia serve --workers N`` always stops (issue 17, "Several workers"): a worker
still running ``STOP_GRACE`` seconds after the supervisor's SIGTERM is killed, so neither
the supervisor nor a deploy waits forever, and no worker is left behind as an orphan."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

WORKER_THAT_WILL_NOT_STOP = textwrap.dedent("""
    import os, signal, sys, time
    from lepromafia.cli import workers

    workers.STOP_GRACE = 1.0
    out = sys.argv[1]

    class Stubborn:
        def run(self, sockets):
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # deaf to the supervisor
            with open(os.path.join(out, str(os.getpid())), "w"):
                pass
            while True:
                time.sleep(1)

    workers.supervise(2, "127.0.0.1", 0, Stubborn)
""")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_workers_that_ignore_sigterm_are_killed_after_the_grace(tmp_path: Path) -> None:
    """Two workers that ignore SIGTERM: the supervisor's SIGTERM reaches them, nothing
    happens for a second, then both are killed, the supervisor says so and exits 0."""
    proc = subprocess.Popen([sys.executable, "-c", WORKER_THAT_WILL_NOT_STOP, str(tmp_path)],
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = [int(p.name) for p in tmp_path.iterdir()]
        assert len(pids) == 2, "both workers started"
        asked = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        took = time.monotonic() - asked
        assert 1.0 <= took < 10, took
        assert not any(_alive(pid) for pid in pids), "no worker left behind"
        assert proc.stderr is not None and "did not stop within 1 s of SIGTERM; killed" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        for p in tmp_path.iterdir():
            if _alive(int(p.name)):
                os.kill(int(p.name), signal.SIGKILL)
