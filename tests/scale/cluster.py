"""Several real workers behind a real nginx, for the scale tests (issue 17).

``Worker`` is one ``lepromafia serve`` process (the installed console script, as an
operator runs it) on PostgreSQL + Redis; ``Nginx`` is Debian's nginx as the reverse proxy
of docs/deploy.md (``nginx.conf.in`` here: per-game routing, ``/ws`` upgraded, a failed
upstream retried on the next, non-idempotent requests included, since every command
carries its own id); ``live_game`` sets up a game whose Day 1 is under way *now* in real
time, so the servers run on the system clock like production.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import httpx

from lepromafia.bots.service_bots import setup_service_game
from lepromafia.bots.setup import Cast
from lepromafia.engine.calendar import MOSCOW
from lepromafia.service.accounts import token_hash
from lepromafia.service.clock import ManualClock
from lepromafia.service.service import GameService
from lepromafia.service.transparency import LogKey
from lepromafia.store.accounts import AccountStore, UserRow
from lepromafia.store.database import DatabaseConfig

NGINX = "/usr/sbin/nginx"
REDIS_URL = os.environ.get("LEPROMAFIA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
HERE = Path(__file__).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, deadline: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Until ``GET url`` answers 200 (bounded); a process that exits fails at once."""
    while True:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} not ready in time")
        time.sleep(0.1)


@dataclass
class Worker:
    """``lepromafia serve`` on its own port; stderr (its JSON log) kept in ``log``."""

    name: str
    env: dict[str, str]
    log: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        script = Path(sys.executable).with_name("lepromafia")
        command = [str(script)] if script.exists() else [sys.executable, "-m", "lepromafia.cli.main"]
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen([*command, "serve", "--port", str(self.port)],
                                         env=self.env, stdout=out, stderr=subprocess.STDOUT)

    def ready(self, deadline: float) -> None:
        wait_ready(f"{self.url}/readyz", deadline, self.proc)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, sockets cut (a crashed machine)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def metric(self, name: str) -> float:
        """The sum of a Prometheus metric's samples on this worker (0 if absent)."""
        text = httpx.get(f"{self.url}/metrics", timeout=5.0).text
        total = 0.0
        for line in text.splitlines():
            if line.startswith(name) and (line[len(name)] in " {"):
                total += float(line.rsplit(" ", 1)[1])
        return total


@dataclass
class Nginx:
    """Debian's nginx in the foreground with a configuration of its own (no system files)."""

    root: Path
    upstreams: list[int]
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        if not Path(NGINX).exists():  # fail, never skip (make test installs it)
            raise RuntimeError(f"{NGINX} is missing: apt-get install -y nginx (make test does)")
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o777)  # the worker processes (user nobody) buffer bodies here
        servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=0;" for p in self.upstreams)
        conf = (HERE / "nginx.conf.in").read_text().format(
            root=self.root, port=self.port, servers=servers,
            user="user root;" if os.geteuid() == 0 else "")
        (self.root / "nginx.conf").write_text(conf)
        self.proc = subprocess.Popen([NGINX, "-p", str(self.root), "-c", str(self.root / "nginx.conf"),
                                      "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                     stderr=(self.root / "stderr.log").open("wb"))

    def ready(self, deadline: float) -> None:
        wait_ready(f"{self.url}/healthz", deadline, self.proc)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def worker_env(config: DatabaseConfig, key_file: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEPROMAFIA_", "DATABASE_"))}
    env.update({
        "LEPROMAFIA_DATABASE_URL": config.url,
        "LEPROMAFIA_DATABASE_SCHEMA": config.schema or "",
        "LEPROMAFIA_REDIS_URL": REDIS_URL,
        "LEPROMAFIA_AUTO_MIGRATE": "false",
        "LEPROMAFIA_SECRET_KEY": "scale-test-secret-key-0123456789",
        "LEPROMAFIA_LOG_KEY_FILE": str(key_file),
        "LEPROMAFIA_LOG_LEVEL": "warning",
        "LEPROMAFIA_SWEEP_INTERVAL": "0.5",
        "LEPROMAFIA_NOTIFY_DISPATCH": "false",
    })
    return env


def make_log_key(path: Path) -> None:
    """Every worker signs with the same key (docs/deploy.md): made before any starts."""
    LogKey.load_or_create(path)


@dataclass(frozen=True)
class LiveGame:
    game_id: str
    cast: Cast
    inboxes: dict[str, str]
    """city -> its Day 1 inbox."""
    tokens: dict[str, str]


async def live_game(svc: GameService, game_id: str, cast: Cast, clock: ManualClock,
                    seed: int = 1) -> LiveGame:
    """A started game on Day 1 at 10:30 (Moscow) *now* in real time: its calendar runs
    ``time_scale`` ≈ 2.4–3.4 times faster than real time from an epoch one real day ago,
    so a server on the system clock finds the city inboxes open (and open for hours of
    real time). ``clock`` (the setup's) ends at the real now. One session per seat."""
    now = time.time()
    epoch = now - 86400
    first_day = datetime.fromtimestamp(epoch, MOSCOW).date() + timedelta(days=3)
    target = datetime(first_day.year, first_day.month, first_day.day, 10, 30, tzinfo=MOSCOW)
    scale = (target.timestamp() - epoch) / (now - epoch)
    clock.set(datetime.fromtimestamp(epoch, MOSCOW))
    await setup_service_game(svc, game_id, cast, random.Random(seed), first_day,
                             time_scale=scale)
    clock.set(datetime.fromtimestamp(now, MOSCOW))
    await svc.sweep()  # Day 1 begins: its inboxes open
    accounts = AccountStore(svc.store)
    tokens: dict[str, str] = {}
    seats = [cast.procurator, cast.consigliere, cast.arbiter, *cast.tribunes,
             *(u for us in cast.cities.values() for u in us)]
    for user in seats:
        await accounts.add_user(UserRow(user, user, "-", now))
        tokens[user] = f"tok-{game_id}-{user}"
        await accounts.add_session(token_hash(tokens[user]), user, now, now + 86400)
    state = await svc.state(game_id)
    inboxes = {}
    for city in cast.cities:
        inbox = state.current_inbox("city", city)
        assert inbox is not None, city
        inboxes[city] = inbox
    return LiveGame(game_id, cast, inboxes, tokens)

