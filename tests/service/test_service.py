"""The durable game service on SQLite and PostgreSQL: transcripts of a small game.

Cast: Procurator «procurator», Consigliere «consigliere», two cities (Лепроград with
p01_01..p01_06, Лепросицилия with p02_01..p02_06), Day 1 on 2026-12-01 (Moscow).
"""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from lepromafia.engine import commands as cmd
from lepromafia.engine import events as ev
from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.evolve import replay
from lepromafia.engine.votes import live_tallies
from lepromafia.service.errors import ServiceError, ServiceErrorCode
from lepromafia.service.replay import check_game
from lepromafia.service.service import GameService
from lepromafia.store import schema
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, decode_rows
from lepromafia.web.i18n import error_message

from .helpers import (
    Ids,
    at,
    manual_clock,
    open_day2_vote,
    run,
    setup_game,
    small_cast,
    voting_inbox,
)

CAST = small_cast()
LEPROGRAD = next(iter(CAST.cities))


async def started(backend: DatabaseConfig, **options: Any) -> tuple[GameService, Any, Ids]:
    clock = manual_clock()
    svc = GameService(EventStore.open(backend), clock, **options)
    await svc.start()
    await setup_game(svc, "g", CAST)
    return svc, clock, Ids()


def test_a_repeated_command_id_has_one_effect_and_the_same_answer(backend: DatabaseConfig) -> None:
    """p01_01 posts «привет» twice with id m1 (a client retry): one message, same Ack."""

    async def scenario() -> None:
        svc, clock, _ = await started(backend)
        clock.set(at(1, "12:00"))
        city = (await svc.state("g")).current_inbox("city", LEPROGRAD)
        post = cmd.PostMessage(actor="p01_01", inbox=city, text="привет")
        first = await svc.execute("g", post, "m1")
        again = await svc.execute("g", post, "m1")
        assert first == again and first.event_count == 1
        with pytest.raises(ServiceError) as reused:
            await svc.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="другое"), "m1")
        assert reused.value.code is ServiceErrorCode.COMMAND_ID_REUSED
        assert "m1" in error_message("ru", reused.value) and "m1" in error_message("en", reused.value)
        model = await svc.store.read_model("g")
        assert [r["text"] for r in model["messages"].values()] == ["привет"]
        await svc.close()
        # a new service (restart) still answers the duplicate from the store
        svc2 = GameService(EventStore.open(backend), clock)
        await svc2.start()
        assert await svc2.execute("g", post, "m1") == first
        await svc2.close()

    run(scenario())


def test_one_batch_tells_each_game_its_own_repeated_command_ids(backend: DatabaseConfig) -> None:
    """CHAT-1. Games «g» and «h» share one writer lane. p01_01 posts «привет» in «g» with id
    m1; then, in one batch, his client retries m1 in «g» while p01_02 posts «и тебе» in «h»
    with the same id m1 and «g»'s p01_03 posts with an id «h» already used. Each game's ids
    are its own (the lookup rides on the row lock, per game): the retry gets its first Ack,
    the two others are new messages."""

    async def scenario() -> None:
        svc, clock, _ = await started(backend, lanes=1)
        await setup_game(svc, "h", CAST, ids=Ids("h-"))
        clock.set(at(1, "12:00"))
        g_city = (await svc.state("g")).current_inbox("city", LEPROGRAD)
        h_city = (await svc.state("h")).current_inbox("city", LEPROGRAD)
        hello = cmd.PostMessage(actor="p01_01", inbox=g_city, text="привет")
        first = await svc.execute("g", hello, "m1")
        await svc.execute("h", cmd.PostMessage(actor="p01_04", inbox=h_city, text="раньше"), "h1")
        again, theirs, mine = await asyncio.gather(
            svc.execute("g", hello, "m1"),
            svc.execute("h", cmd.PostMessage(actor="p01_02", inbox=h_city, text="и тебе"), "m1"),
            svc.execute("g", cmd.PostMessage(actor="p01_03", inbox=g_city, text="и я"), "h1"))
        assert again == first
        assert theirs.event_count == 1 and mine.event_count == 1
        texts = {game: [r["text"] for r in (await svc.store.read_model(game))["messages"].values()]
                 for game in ("g", "h")}
        assert texts == {"g": ["привет", "и я"], "h": ["раньше", "и тебе"]}
        await svc.close()

    run(scenario())


def test_bad_input_gets_a_coded_error_and_changes_nothing(backend: DatabaseConfig) -> None:
    async def scenario() -> None:
        svc, clock, ids = await started(backend)
        clock.set(at(1, "12:00"))
        before = await svc.store.event_rows("g")
        city = (await svc.state("g")).current_inbox("city", LEPROGRAD)
        post = cmd.PostMessage(actor="p01_01", inbox=city, text="привет")
        with pytest.raises(ServiceError) as unknown:
            await svc.execute("nope", post, ids())
        assert unknown.value.code is ServiceErrorCode.UNKNOWN_GAME
        assert error_message("ru", unknown.value) == "Игры «nope» нет"
        with pytest.raises(ServiceError) as bad_id:
            await svc.execute("g", post, "")
        assert bad_id.value.code is ServiceErrorCode.COMMAND_ID_INVALID
        with pytest.raises(ServiceError) as exists:
            await svc.create_game("g", cmd.CreateGame(actor="x", title="Другая"), ids())
        assert exists.value.code is ServiceErrorCode.GAME_EXISTS
        with pytest.raises(RuleViolation) as rule:
            await svc.execute("g", cmd.PostMessage(actor="p02_01", inbox=city, text="чужой город"), ids())
        assert rule.value.code is ErrorCode.UNKNOWN_INBOX
        after = await svc.store.event_rows("g")
        # Day 1 started on the first command after 10:00; nothing else was written
        assert next(r["type"] for r in after[len(before):]) == "DeadlineFired"
        assert not any(r["type"] == "MessagePosted" for r in after)
        assert (await check_game(svc.store, "g")).ok
        await svc.close()

    run(scenario())


def test_a_vote_keyword_in_a_voting_inbox_is_a_vote_and_anything_else_is_flood(
        backend: DatabaseConfig) -> None:
    """EXEC-5, EXEC-8, EXEC-13: «казнить» counts, «не казнить» withdraws, chatter is rejected."""

    async def scenario() -> None:
        svc, clock, ids = await started(backend)
        a, _b = await open_day2_vote(svc, "g", clock, LEPROGRAD, ids)
        state = await svc.state("g")
        inbox = voting_inbox(state, LEPROGRAD, a)
        voters = state.living(LEPROGRAD)[2:5]
        for voter in voters:
            await svc.execute("g", cmd.PostMessage(actor=voter, inbox=inbox, text="казнить"), ids())
        await svc.execute("g", cmd.PostMessage(actor=voters[0], inbox=inbox, text="не казнить"), ids())
        version = len(await svc.store.event_rows("g"))
        with pytest.raises(RuleViolation) as flood:
            await svc.execute("g", cmd.PostMessage(actor=voters[1], inbox=inbox, text="а может не надо?"),
                              ids())
        assert flood.value.code is ErrorCode.NOT_A_KEYWORD and flood.value.rule == "EXEC-13"
        assert len(await svc.store.event_rows("g")) == version
        model = await svc.store.read_model("g")
        (tally,) = [t for t in live_tallies(await svc.state("g"), LEPROGRAD) if t.candidate == a]
        assert tally.votes == 2 and list(tally.voters) == voters[1:]
        assert not any(r["inbox"] == inbox for r in model["messages"].values())
        assert (await check_game(svc.store, "g")).ok
        await svc.close()

    run(scenario())


def test_messages_are_stored_in_one_total_order(backend: DatabaseConfig) -> None:
    async def scenario() -> None:
        import asyncio

        svc, clock, _ = await started(backend)
        clock.set(at(1, "12:00"))
        state = await svc.state("g")
        city = state.current_inbox("city", LEPROGRAD)
        users = state.living(LEPROGRAD)
        posts = [svc.execute("g", cmd.PostMessage(actor=users[i % 6], inbox=city, text=f"№{i}"), f"m{i}")
                 for i in range(60)]
        acks = await asyncio.gather(*posts)
        seqs = [a.first_seq for a in acks]
        assert len(set(seqs)) == 60
        model = await svc.store.read_model("g")
        stored = sorted(model["messages"].values(), key=lambda r: r["seq"])
        assert [r["text"] for r in stored] == [f"№{i}" for i in sorted(range(60), key=lambda i: seqs[i])]
        await svc.close()

    run(scenario())


def test_subscribers_get_each_event_once_after_commit_filtered_per_viewer(backend: DatabaseConfig) -> None:
    """§9: a mafioso sees his mafia inbox; an honest resident's delivery is empty (server-side
    only: the WebSocket sends him nothing of it, tests/web/test_ws.py)."""

    async def scenario() -> None:
        svc, clock, _ = await started(backend)
        clock.set(at(1, "12:00"))
        state = await svc.state("g")
        mafioso = state.living_mafia(LEPROGRAD)[0]
        honest = next(u for u in state.living(LEPROGRAD) if not state.is_mafia(u))
        subs = {v: svc.broker.subscribe("g", v) for v in (mafioso, honest, None)}
        mafia_inbox = state.current_inbox("mafia", LEPROGRAD)
        ack = await svc.execute("g", cmd.PostMessage(actor=mafioso, inbox=mafia_inbox, text="кого?"), "s1")
        with pytest.raises(RuleViolation):
            await svc.execute("g", cmd.PostMessage(actor=honest, inbox=mafia_inbox, text="и я"), "s2")
        got = {v: s.drain() for v, s in subs.items()}
        for payloads in got.values():  # each chained to the previous: no hole
            assert all(p.event is not None for p in payloads)
            assert all(b.after == a.seq for a, b in itertools.pairwise(payloads))
        last = {v: p[-1] for v, p in got.items()}
        assert isinstance(last[mafioso].event, ev.MessagePosted) and last[mafioso].event.text == "кого?"
        assert last[mafioso].seq == ack.first_seq
        assert all(p.seq < ack.first_seq for v in (honest, None) for p in got[v])  # nothing of it
        assert isinstance(got[honest][0].event, ev.DeadlineFired)  # Day 1 start is public
        await svc.close()

    run(scenario())


def test_a_server_down_across_midnight_closes_the_vote_once_on_restart(backend: DatabaseConfig) -> None:
    """EXEC-9: votes before 23:30 count; the service was down from 23:00 to 01:00 Moscow.

    On restart the sweeper fires vote_close (due 23:30) and day_end (due 00:00) late,
    once each. The game plays them at their due time (so the night follows as scheduled);
    the actual firing time is logged on the command row."""

    async def scenario() -> None:
        svc, clock, ids = await started(backend)
        a, b = await open_day2_vote(svc, "g", clock, LEPROGRAD, ids)
        state = await svc.state("g")
        voters = state.living(LEPROGRAD)[2:5]
        clock.set(at(2, "23:00"))
        await svc.execute("g", cmd.PostMessage(actor=voters[0], inbox=voting_inbox(state, LEPROGRAD, a),
                                               text="казнить"), ids())
        await svc.execute("g", cmd.PostMessage(actor=voters[1], inbox=voting_inbox(state, LEPROGRAD, a),
                                               text="казнить"), ids())
        await svc.execute("g", cmd.PostMessage(actor=voters[2], inbox=voting_inbox(state, LEPROGRAD, b),
                                               text="казнить"), ids())
        await svc.close()  # down at 23:00
        clock.set(at(3, "01:00"))
        for _ in range(2):  # two restarts: the second must fire nothing
            svc = GameService(EventStore.open(backend), clock)
            await svc.start()
            await svc.close()
        rows = await svc.store.event_rows("g")
        events = [e for _, e in decode_rows(rows)]
        fired = [e for e in events if type(e).__name__ == "DeadlineFired"
                 and e.key == f"vote_close:{LEPROGRAD}:2"]
        assert len(fired) == 1
        assert fired[0].due_at == fired[0].at == at(2, "23:30")
        command_rows = await svc.store.command_rows("g")
        (fire_row,) = [r for r in command_rows
                       if r["command_id"].startswith(f"deadline:vote_close:{LEPROGRAD}:2@")]
        assert fire_row["accepted_real"] == at(3, "01:00").timestamp()
        closed = next(e for e in events if type(e).__name__ == "VotingClosed" and e.city == LEPROGRAD)
        assert {t.candidate: t.votes for t in closed.tallies} == {a: 2, b: 1}
        assert closed.condemned == a
        assert sum(1 for e in events if type(e).__name__ == "DeadlineFired" and e.key == "day_end:2") == 1
        model = await svc.store.read_model("g")
        row = model["deadlines"][("g", f"vote_close:{LEPROGRAD}:2")]
        assert row["status"] == "fired" and row["fired_at"] == at(2, "23:30").isoformat()
        assert row["due_at"] == at(2, "23:30").isoformat()
        assert (await check_game(svc.store, "g")).ok

    run(scenario())


def test_commands_for_a_finished_game_are_rejected(backend: DatabaseConfig) -> None:
    async def scenario() -> None:
        svc, clock, _ = await started(backend)
        clock.set(at(1, "12:00"))
        city = (await svc.state("g")).current_inbox("city", LEPROGRAD)
        await svc.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="до"), "m1")
        e = schema.games
        async with svc.store.writer.begin() as conn:  # finish the game behind the service's back
            await conn.execute(update(e).values(stage="finished"))
        state = await svc.state("g")
        lane = svc._lane("g")
        from dataclasses import replace

        from lepromafia.engine.state import Stage
        lane.handles["g"].state = replace(state, stage=Stage.FINISHED)
        with pytest.raises(ServiceError) as over:
            await svc.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="после"), "m2")
        assert over.value.code is ServiceErrorCode.GAME_FINISHED
        assert error_message("en", over.value) == "Game 'g' is over"
        await svc.close()

    run(scenario())


def test_a_corrupt_event_row_blocks_the_game_with_its_seq_and_changes_nothing(
        backend: DatabaseConfig) -> None:
    async def scenario() -> None:
        svc, clock, ids = await started(backend)
        await svc.close()
        e = schema.events
        async with EventStore.open(backend).writer.begin() as conn:
            await conn.execute(update(e).where(e.c.seq == 7).values(payload='{"type": "Garbage"}'))
        svc = GameService(EventStore.open(backend), clock)
        await svc.start()
        count = len(await svc.store.event_rows("g"))
        with pytest.raises(ServiceError) as corrupt:
            await svc.execute("g", cmd.WithdrawSignUp(actor="p01_01"), ids())
        assert corrupt.value.code is ServiceErrorCode.CORRUPT_LOG and corrupt.value.fields["seq"] == 7
        assert "7" in error_message("ru", corrupt.value)
        assert len(await svc.store.event_rows("g")) == count
        report = await check_game(svc.store, "g")
        assert not report.ok and report.first_bad_seq == 7 and report.applied == 6
        await svc.close()

    run(scenario())


def test_two_workers_on_one_game_never_fork_its_log(backend: DatabaseConfig) -> None:
    """Worker B's cached state is stale after A writes; B's lane, holding the game's row,
    follows A's commit before deciding (the version/(game_id, seq) key stays the
    backstop), and both commands land."""

    async def scenario() -> None:
        svc_a, clock, _ = await started(backend)
        clock.set(at(1, "12:00"))
        city = (await svc_a.state("g")).current_inbox("city", LEPROGRAD)
        svc_b = GameService(svc_a.store.__class__.open(backend), clock, lanes=1)
        await svc_b.start()
        await svc_b.execute("g", cmd.PostMessage(actor="p01_02", inbox=city, text="B1"), "b1")  # B caches
        await svc_a.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="A1"), "a1")
        ack = await svc_b.execute("g", cmd.PostMessage(actor="p01_02", inbox=city, text="B2"), "b2")
        rows = await svc_a.store.event_rows("g")
        assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
        assert ack.last_seq == len(rows)
        texts = [e.text for _, e in decode_rows(rows) if type(e).__name__ == "MessagePosted"]
        assert texts == ["B1", "A1", "B2"]
        assert (await check_game(svc_a.store, "g")).ok
        await svc_b.close()
        await svc_a.close()

    run(scenario())


def test_a_game_with_time_scale_runs_its_calendar_faster(backend: DatabaseConfig) -> None:
    """time_scale 144: one game day passes in ten real minutes; the rules are the same."""

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start()
        await setup_game(svc, "fast", CAST, time_scale=144)
        start = clock.now()
        # game time = epoch + (real - epoch) * 144; Day 1 starts 10:00 on Dec 1, i.e. 3 game days
        # and 10 hours after the epoch (Nov 28 00:00): 82 game hours = 2050 real seconds.
        clock.advance(timedelta(seconds=2049))
        assert await svc.sweep() == 0
        clock.advance(timedelta(seconds=2))
        assert await svc.sweep() == 1
        state = await svc.state("fast")
        assert state.day == 1
        model = await svc.store.read_model("fast")
        row = model["deadlines"][("fast", "day_start:1")]
        assert row["status"] == "fired" and abs(row["due_real"] - (start + 2050)) < 1e-3
        clock.advance(timedelta(minutes=10))  # one more game day
        await svc.sweep()
        assert (await svc.state("fast")).day == 2
        assert (await check_game(svc.store, "fast")).ok
        await svc.close()

    run(scenario())


def test_replay_rebuilds_the_read_models_of_a_played_day_exactly(backend: DatabaseConfig) -> None:
    async def scenario() -> None:
        svc, clock, ids = await started(backend, snapshot_every=25)
        a, _ = await open_day2_vote(svc, "g", clock, LEPROGRAD, ids)
        state = await svc.state("g")
        await svc.execute("g", cmd.PostMessage(actor=state.living(LEPROGRAD)[3],
                                               inbox=voting_inbox(state, LEPROGRAD, a), text="казнить"),
                          ids())
        clock.set(at(4, "12:00"))
        await svc.sweep()
        report = await check_game(svc.store, "g")
        assert report.ok, report.differences
        rows = await svc.store.event_rows("g")
        assert replay([e for _, e in decode_rows(rows)]).state == await svc.state("g")
        await svc.close()

    run(scenario())
