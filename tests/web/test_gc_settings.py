"""Garbage collection (issue 17, session 6): the objects alive after start-up are frozen
out of the collector's scans, and every collection's pause is on /metrics."""

from __future__ import annotations

import asyncio
import gc
import inspect
import weakref
from pathlib import Path

from fastapi.testclient import TestClient

from lepromafia.service.clock import ManualClock
from lepromafia.web.app import create_app
from lepromafia.web.settings import WebSettings

from .conftest import START, settings_for


def _pauses(text: str) -> float:
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("lepromafia_gc_pause_seconds_count"))


def test_start_up_freezes_what_is_alive_and_shutdown_thaws_it(tmp_path: Path) -> None:
    gc.unfreeze()
    assert WebSettings.model_fields["gc_freeze"].default is True  # what serve starts with
    app = create_app(settings_for(tmp_path, metrics=True, gc_freeze=True), clock=ManualClock(START))
    with TestClient(app) as client:
        assert gc.get_freeze_count() > 10_000  # modules, routes, templates: out of every scan
        before = _pauses(client.get("/metrics").text)
        gc.collect()
        assert _pauses(client.get("/metrics").text) >= before + 1
    assert gc.get_freeze_count() == 0


def test_the_freeze_is_a_setting_that_can_be_switched_off(tmp_path: Path) -> None:
    gc.unfreeze()
    app = create_app(settings_for(tmp_path, gc_freeze=False), clock=ManualClock(START))
    with TestClient(app):
        assert gc.get_freeze_count() == 0


def test_serve_and_the_bench_server_start_the_same_app() -> None:
    """Both build ``create_app``, whose lifespan applies the setting: one place for both."""
    from lepromafia.cli import serve_cmd

    bench = Path(__file__).resolve().parents[2] / "bench" / "load_server.py"
    assert "create_app(" in inspect.getsource(serve_cmd.serve)
    assert "create_app(settings" in bench.read_text(encoding="utf-8")


def test_a_full_collection_s_survivors_are_frozen_until_the_thaw_frees_their_dead_cycles() -> None:
    """Issue 17: a full collection scanned every socket's objects (0.68 s at 5,000). After
    one, its survivors are frozen out of the next ones' scans; once the thaw period has
    passed, a full collection thaws them, and the next one frees a cycle that died frozen."""
    from lepromafia.web.observability import FreezeSurvivors

    class Node:
        def __init__(self) -> None:
            self.me = self  # a reference cycle: only the collector frees it

    async def scenario() -> None:
        now = [0.0]
        policy = FreezeSurvivors(asyncio.get_running_loop(), thaw_every=3600, clock=lambda: now[0])
        remove = policy.install()
        try:
            gc.unfreeze()
            cycle = weakref.ref(node := Node())
            gc.collect()
            await asyncio.sleep(0)
            assert gc.get_freeze_count() > 0, "the survivors are frozen"
            del node
            gc.collect()
            await asyncio.sleep(0)
            assert cycle() is not None, "a frozen dead cycle stays until the thaw"
            now[0] = 3600.0
            gc.collect()  # the period is over: this collection's stop thaws
            await asyncio.sleep(0)
            assert gc.get_freeze_count() == 0
            gc.collect()
            assert cycle() is None, "thawed, the dead cycle is freed"
        finally:
            remove()
            gc.unfreeze()

    asyncio.run(scenario())
