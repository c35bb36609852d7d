"""A sole writer (one worker, no Redis: ``create_app``) answers reads of the games its lane
holds without asking the store for the version, and stays exactly as current as a
service that asks (issue 17: a read report's meta read was 18% of the server's CPU).

Cast: the small game of ``helpers.small_cast``; in Лепроград p01_01 and p01_02 write in
the city chat on Day 1 at noon (CHAT-1: the living residents of a city post there by day).
"""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest
from sqlalchemy import event

from lepromafia.engine import commands as cmd
from lepromafia.service import service as service_module
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore

from .helpers import at, manual_clock, run, setup_game, small_cast

CAST = small_cast()
LEPROGRAD = next(iter(CAST.cities))


def statements(store: EventStore) -> list[str]:
    """Every SQL statement the store's engine runs from now on."""
    seen: list[str] = []

    @event.listens_for(store.engine.sync_engine, "before_cursor_execute")
    def _seen(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        seen.append(sql)

    return seen


async def started(config: DatabaseConfig, *, sole_writer: bool) -> tuple[GameService, str, Any]:
    clock = manual_clock()
    svc = GameService(EventStore.open(config), clock, sole_writer=sole_writer)
    await svc.start(sweep=False)
    if (await svc.store.list_games()) == []:
        await setup_game(svc, "g", CAST)
    clock.set(at(1, "12:00"))
    return svc, (await svc.state("g")).current_inbox("city", LEPROGRAD), clock


@pytest.mark.parametrize("sole_writer", [True, False])
def test_after_a_post_a_sole_writer_reads_the_game_without_a_statement(
        backend: DatabaseConfig, sole_writer: bool) -> None:
    """p01_01 posts «Доброе утро» (CHAT-1). A sole writer's next read of the game runs no
    statement and holds the message's event; a service beside other workers reads the
    games row first (the same state)."""

    async def scenario() -> None:
        svc, city, _ = await started(backend, sole_writer=sole_writer)
        ack = await svc.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="Доброе утро"), "m1")
        seen = statements(svc.store)
        current = await svc.current("g")
        assert current.version == ack.last_seq
        assert (seen == []) == sole_writer
        await svc.close()

    run(scenario())


def test_a_read_begun_before_a_later_commit_is_renewed(backend: DatabaseConfig) -> None:
    """p01_02's page read the chat (one read transaction for the request), then p01_01's
    «Кто здесь?» committed. The state the page gets already holds that message, so the
    chat the page reads next holds it too: the old read was ended, not reused."""

    async def scenario() -> None:
        svc, city, _ = await started(backend, sole_writer=True)
        await svc.execute("g", cmd.PostMessage(actor="p01_02", inbox=city, text="Привет"), "m1")
        async with svc.store.read_scope():
            async with svc.store.reading() as tx:
                before, _ = await tx.messages("g", city)
            # another request's post, in a task of its own (not this request's read scope)
            other = svc.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="Кто здесь?"), "m2")
            await asyncio.create_task(other, context=contextvars.Context())
            current = await svc.current("g")
            async with svc.store.reading() as tx:
                after, _ = await tx.messages("g", city)
        assert [m.text for m in after][-1] == "Кто здесь?"
        assert len(after) == len(before) + 1
        assert current.version >= after[-1].seq
        await svc.close()

    run(scenario())


def test_a_restarted_sole_writer_writes_from_the_copy_its_first_read_loaded(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a restart, p01_01's page loads the game once; his post then commits from that
    copy (the lane loads nothing) and the next read runs no statement. The same holds for
    a service beside other workers: its lane starts from the read cache's copy when the
    locked games row shows it is the latest."""

    async def scenario() -> None:
        svc, city, _ = await started(backend, sole_writer=True)
        await svc.close()
        for sole_writer in (True, False):
            again, _, _ = await started(backend, sole_writer=sole_writer)
            await again.current("g")

            async def no_load(*args: Any) -> Any:
                raise AssertionError("the lane loaded the game again")

            monkeypatch.setattr(service_module, "_load", no_load)
            ack = await again.execute("g", cmd.PostMessage(actor="p01_01", inbox=city,
                                                           text=f"Снова здесь {sole_writer}"),
                                      f"m-{sole_writer}")
            monkeypatch.undo()
            seen = statements(again.store)
            assert (await again.current("g")).version == ack.last_seq
            assert (seen == []) == sole_writer
            await again.close()

    run(scenario())
