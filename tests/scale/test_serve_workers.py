"""``lepromafia serve --workers 2`` (issue 17): two worker processes on one port; a worker
killed with SIGKILL is replaced and the port keeps answering; SIGTERM stops them all.

Cast: ``default_cast(2, 6)`` on Day 1, Лепроград's p01_01 chatting in his city's inbox
(CHAT-1) before and after the kill.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from typer.testing import CliRunner

from lepromafia.bots.setup import default_cast
from lepromafia.cli.main import app
from lepromafia.service.clock import ManualClock
from lepromafia.service.service import GameService
from lepromafia.store.migrate import upgrade

from ..service.conftest import _drop_schema
from ..service.helpers import pg_config, run
from .cluster import LiveGame, free_port, live_game, make_log_key, wait_ready, worker_env

BUDGET = 60.0
"""Seconds for the scenario once the port answers; booting has ``BOOT`` more (a shared
machine can take a minute to import two apps)."""
BOOT = 90.0


def children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def wait_for(check: object, deadline: float) -> None:
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.1)


def test_a_killed_worker_is_replaced_and_the_port_keeps_answering(tmp_path: Path) -> None:
    config = pg_config()
    key = tmp_path / "log-key.pem"
    make_log_key(key)
    game_id = f"serve-{random.getrandbits(40):010x}"
    cast = default_cast(2, 6)

    async def prepare() -> LiveGame:
        await upgrade(config)
        clock = ManualClock(0.0)
        async with GameService.running(config, clock=clock, sweep=False) as svc:
            return await live_game(svc, game_id, cast, clock)

    game = run(prepare())
    port = free_port()
    script = Path(sys.executable).with_name("lepromafia")
    proc = subprocess.Popen([str(script), "serve", "--port", str(port), "--workers", "2"],
                            env=worker_env(config, key), stdout=(tmp_path / "serve.log").open("wb"),
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    city = next(iter(cast.cities))
    author = cast.cities[city][0]

    def post(n: int) -> int:
        r = httpx.post(f"{url}/api/games/{game_id}/commands/PostMessage", timeout=30,
                       headers={"Authorization": f"Bearer {game.tokens[author]}"},
                       json={"command_id": f"w{n}", "inbox": game.inboxes[city], "text": f"w{n}"})
        return r.status_code

    try:
        boot = time.monotonic() + BOOT
        wait_ready(f"{url}/readyz", boot, proc)
        wait_for(lambda: len(children(proc.pid)) == 2, boot)
        deadline = time.monotonic() + BUDGET
        assert [post(n) for n in range(4)] == [200] * 4
        first = children(proc.pid)
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: len(children(proc.pid)) == 2 and victim not in children(proc.pid), deadline)
        wait_ready(f"{url}/readyz", deadline, proc)
        assert [post(n) for n in range(4, 10)] == [200] * 6
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        assert children(proc.pid) == set()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        run(_drop_schema(config))


def test_several_workers_without_redis_are_refused_with_the_reason() -> None:
    result = CliRunner().invoke(app, ["serve", "--workers", "2"],
                                env={"LEPROMAFIA_REDIS_URL": "", "LEPROMAFIA_DATABASE_URL": "sqlite:///:memory:"})
    assert result.exit_code == 2
    assert "LEPROMAFIA_REDIS_URL" in result.output
