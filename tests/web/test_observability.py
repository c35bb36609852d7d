"""Operating the platform (issue 17): health and readiness, Prometheus metrics, one
structured log line per command and request that carries no secret, HEAD answered."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
import structlog
from fastapi.testclient import TestClient
from structlog.testing import capture_logs

from lepromafia.service.clock import ManualClock
from lepromafia.web.app import create_app
from lepromafia.web.settings import WebSettings

from ..service.conftest import _drop_schema
from ..service.helpers import pg_config, run
from .conftest import START, Api, at, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "ops"
SECRET_TEXT = "встречаемся у мельницы в полночь"


@pytest.fixture(scope="module")
def day1(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("ops"))):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus' text format (0 if absent)."""
    wanted = name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}" if labels else "")
    for line in text.splitlines():
        if line.startswith(wanted + " "):
            return float(line.split()[-1])
    return 0.0


def test_healthz_and_readyz_answer_when_the_database_does(day1: Api) -> None:
    assert day1.client.get("/healthz").json() == {"status": "ok"}
    ready = day1.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "checks": {"database": "ok"}}


def test_head_of_the_front_page_answers_200_without_a_body(day1: Api) -> None:
    head = day1.client.head("/")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"].startswith("text/html")
    assert day1.client.get("/").status_code == 200


def test_metrics_count_an_accepted_command_and_a_rejection_by_its_code(day1: Api) -> None:
    """An honest resident posts in his city (accepted), then writes to the mafia's inbox
    and is refused (INBOX-1 rights): both counted, the refusal by its stable code."""
    before = day1.client.get("/metrics").text
    s = day1.state(GAME)
    honest = next(u for u in s.living(A) if not s.is_mafia(u))
    day1.ok(honest, GAME, "PostMessage", inbox=s.current_inbox("city", A), text="доброе утро")
    refused = day1.cmd(honest, GAME, "PostMessage", inbox=s.current_inbox("mafia", A), text="кто тут?")
    assert refused.status_code in (403, 404)  # the mafia's inbox does not exist for him
    code = refused.json()["error"]["code"]
    after = day1.client.get("/metrics")
    assert after.headers["content-type"].startswith("text/plain")
    text = after.text
    assert metric(text, "lepromafia_commands_total", outcome="accepted") == \
        metric(before, "lepromafia_commands_total", outcome="accepted") + 1
    assert metric(text, "lepromafia_commands_total", outcome="rejected") == \
        metric(before, "lepromafia_commands_total", outcome="rejected") + 1
    assert metric(text, "lepromafia_command_rejections_total", code=code) == \
        metric(before, "lepromafia_command_rejections_total", code=code) + 1
    assert metric(text, "lepromafia_writer_queue_wait_seconds_count") >= 1
    assert metric(text, "lepromafia_writer_queue_depth", lane="0") == 0
    assert "lepromafia_connected_clients" in text and "lepromafia_deadline_lag_seconds_count" in text


def test_metrics_count_connected_clients_and_deliveries(day1: Api) -> None:
    s = day1.state(GAME)
    honest = next(u for u in s.living(A) if not s.is_mafia(u))
    before = day1.client.get("/metrics").text
    with day1.client.websocket_connect("/ws", headers=day1.headers(honest)) as ws:
        ws.send_json({"type": "subscribe", "game": GAME, "since_seq": 0})
        assert ws.receive_json()["type"] == "subscribed"
        during = day1.client.get("/metrics").text
        assert metric(during, "lepromafia_connected_clients") == \
            metric(before, "lepromafia_connected_clients") + 1
        day1.ok(honest, GAME, "PostMessage", inbox=s.current_inbox("city", A), text="слышно?")
        while ws.receive_json()["type"] != "event":
            pass
    after = day1.client.get("/metrics").text
    assert metric(after, "lepromafia_deliveries_total") > metric(before, "lepromafia_deliveries_total")
    assert metric(after, "lepromafia_connected_clients") == metric(before, "lepromafia_connected_clients")


def test_the_log_line_of_a_mafia_post_names_game_seat_and_code_but_no_text_or_role(day1: Api) -> None:
    """A mafioso writes to his mafia inbox: the command's log line has the game, his user id,
    the outcome code and the latency; neither the text, nor the inbox, nor the command's
    name (all would tell a log reader who the mafia are: §9, SEC)."""
    s = day1.state(GAME)
    mafioso = next(u for u in s.living(A) if s.is_mafia(u))
    inbox = s.current_inbox("mafia", A)
    with capture_logs() as entries:
        day1.ok(mafioso, GAME, "PostMessage", inbox=inbox, text=SECRET_TEXT)
    commands = [e for e in entries if e["event"] == "command"]
    assert len(commands) == 1
    line = commands[0]
    assert line["game"] == GAME and line["seat"] == mafioso and line["code"] == "ok"
    assert line["latency_ms"] >= 0
    (request,) = [e for e in entries if e["event"] == "request"]
    assert request["game"] == GAME and request["status"] == 200 and "seat" not in request
    commands_only = json.dumps(commands, ensure_ascii=False, default=str)
    assert "PostMessage" not in commands_only  # the command's name never beside the seat
    dumped = json.dumps(entries, ensure_ascii=False, default=str)
    for secret in (SECRET_TEXT, inbox, "mafia", "role"):
        assert secret not in dumped


def test_the_json_renderer_writes_one_line_per_entry(capsys: pytest.CaptureFixture[str]) -> None:
    from lepromafia.web.observability import configure_logging

    configure_logging(WebSettings(log_format="json"))
    try:
        structlog.get_logger("lepromafia").info("command", game="g", seat="u1", code="ok", latency_ms=1.5)
        out = capsys.readouterr().err.strip().splitlines()
        entry = json.loads(out[-1])
        assert entry["event"] == "command" and entry["seat"] == "u1" and entry["level"] == "info"
        structlog.get_logger("lepromafia").warning("odd", value={1, 2})  # no JSON for a set
        [line] = capsys.readouterr().err.strip().splitlines()
        assert json.loads(line)["value"] == "{1, 2}"  # its repr, as structlog's own fallback
        # what the fast encoder refuses still makes a line: a lone surrogate from a client's
        # text, an integer beyond 64 bits
        structlog.get_logger("lepromafia").warning("odd", text="a\ud800b", big=2**70)
        [line] = capsys.readouterr().err.strip().splitlines()
        assert json.loads(line)["big"] == 2**70 and json.loads(line)["text"] == "a\ud800b"
    finally:
        structlog.reset_defaults()


class Gate:
    """A TCP relay to PostgreSQL that can be shut: the database becomes unreachable."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.pipes: set[asyncio.StreamWriter] = set()
        self.server: asyncio.Server | None = None
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(10)
        assert self.server is not None
        self.port: int = self.server.sockets[0].getsockname()[1]

    def _run(self, ready: threading.Event) -> None:
        async def start() -> None:
            self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
            ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", 5432)
        self.pipes |= {writer, up_writer}

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    def shut(self) -> None:
        async def close() -> None:
            assert self.server is not None
            self.server.close()
            for pipe in self.pipes:
                pipe.close()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def test_readyz_is_503_while_postgresql_is_unreachable(tmp_path: Path) -> None:
    """Through a relay the test shuts: ready, then 503 naming the database, alive throughout."""
    config = pg_config()
    gate = Gate()
    url = config.url.replace("127.0.0.1:5432", f"127.0.0.1:{gate.port}")
    assert url != config.url
    settings = WebSettings(database_url=url, database_schema=config.schema, sweep_interval=3600.0,
                           argon2_time_cost=1, argon2_memory_kib=1024)
    try:
        with TestClient(create_app(settings, clock=ManualClock(START))) as client:
            assert client.get("/readyz").status_code == 200
            gate.shut()
            down = client.get("/readyz")
            assert down.status_code == 503
            assert down.json() == {"status": "unavailable", "checks": {"database": "unavailable"}}
            assert client.get("/healthz").status_code == 200
    finally:
        gate.stop()
        run(_drop_schema(config))  # the app's start-up migrated it


def test_readyz_checks_redis_when_configured(tmp_path: Path) -> None:
    settings = WebSettings(database_url=f"sqlite:///{tmp_path}/r.db", sweep_interval=3600.0,
                           redis_url="redis://127.0.0.1:6379/0", argon2_time_cost=1, argon2_memory_kib=1024)
    with TestClient(create_app(settings, clock=ManualClock(START))) as client:
        ready: Any = client.get("/readyz").json()
        assert ready == {"status": "ready", "checks": {"database": "ok", "redis": "ok"}}
