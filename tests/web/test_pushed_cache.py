"""The pushed fragments' cache (issue 17): what a delivery written as the event is published
finds done (``PushedContent.rendered``) follows the renders and the cache's bound exactly —
a fragment not rendered, evicted or failed is never taken for a rendered one, and a render
that had to read first joins once it is done."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from lepromafia.engine.audience import Audience
from lepromafia.engine.events import MessagePosted
from lepromafia.web.ws.content import PushedContent

EVENT = MessagePosted(at=datetime(2026, 12, 6, tzinfo=UTC), audience=Audience(False, frozenset({"anna"})),
                      inbox="city", author="anna", text="привет")


def test_fragments_rendered_at_once_are_ready_until_the_cache_lets_them_go(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = PushedContent(maxsize=2)
    monkeypatch.setattr(cache, "_render_now", lambda web, game, seq, event, lang: (True, f"<li>{seq}</li>"))

    async def publish() -> None:
        for seq in (1, 2, 3):
            cache._start(None, "g", seq, EVENT, "ru")

    asyncio.run(publish())
    assert cache.ready("g", 1, "ru") == (False, None)  # evicted with its future
    assert cache.ready("g", 2, "ru") == (True, "<li>2</li>")
    assert cache.ready("g", 3, "ru") == (True, "<li>3</li>")
    assert cache.ready("g", 3, "en") == (False, None)  # never rendered in English
    assert set(cache.rendered) == {("g", 2, "ru"), ("g", 3, "ru")}


def test_a_render_that_reads_first_is_ready_once_done_and_a_failed_one_never(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = PushedContent()
    monkeypatch.setattr(cache, "_render_now", lambda *args: (False, None))

    async def render(web: Any, game: str, seq: int, event: Any, lang: str) -> str | None:
        await asyncio.sleep(0)
        if seq == 2:
            raise RuntimeError("the store is gone")
        return f"<li>{seq}</li>"

    monkeypatch.setattr(cache, "_render", render)

    async def publish() -> tuple[Any, ...]:
        cache._start(None, "g", 1, EVENT, "ru")
        cache._start(None, "g", 2, EVENT, "ru")
        waiting = cache.ready("g", 1, "ru")
        got = await cache.fragment(None, "g", 1, EVENT, "ru")
        failed = await cache.fragment(None, "g", 2, EVENT, "ru")
        await asyncio.sleep(0)
        return waiting, got, failed

    waiting, got, failed = asyncio.run(publish())
    assert waiting == (False, None)
    assert got == "<li>1</li>" and cache.ready("g", 1, "ru") == (True, "<li>1</li>")
    assert failed is None and cache.ready("g", 2, "ru") == (False, None)
