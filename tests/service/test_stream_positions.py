"""A viewer's positions are answered from his stream as it stands, however long (§9.1.3,
issue 17: a command's acknowledgement costs the same on Day 1 and Day 14).

Cast: Anna, Boris, Vera and an anonymous visitor. A game's log mixes public lines, city
lines and a mafia line; the process has read it all (``ViewerStreams.observe``), past the
version each question names. For any viewer, version and command's first seq, the
acknowledgement's position and count (``span``), ``position``, ``global_seq`` and
``known_global_seq`` equal what his visible seqs up to that version say — counted in his
stream without copying it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lepromafia.engine.audience import Audience
from lepromafia.engine.events import MessagePosted
from lepromafia.engine.visibility import visible_to
from lepromafia.service.streams import NOT_IN_STREAM, ViewerStreams, _Game

AT = datetime(2026, 12, 6, tzinfo=UTC)
CAST = (None, "anna", "boris", "vera")
audiences = st.one_of(st.just(None), st.frozensets(st.sampled_from(CAST[1:]), min_size=1, max_size=3))


def line(users: frozenset[str] | None) -> MessagePosted:
    public = users is None
    return MessagePosted(at=AT, audience=Audience(public, users or frozenset()),
                         inbox="square" if public else "city:north:1", author="host", text="a line")


def streams_of(events: list[tuple[int, MessagePosted]]) -> ViewerStreams:
    streams = ViewerStreams(store=None)  # type: ignore[arg-type]  # all of it observed: no read
    streams._games["g"] = _Game()
    streams.observe("g", events)
    return streams


@settings(max_examples=300, deadline=None)
@given(st.lists(audiences, min_size=1, max_size=40), st.sampled_from(CAST), st.data())
def test_positions_are_counted_in_the_viewers_stream(lines: list[Any], viewer: str | None,
                                                     data: st.DataObject) -> None:
    events = [(seq, line(users)) for seq, users in enumerate(lines, start=1)]
    streams = streams_of(events)
    version = data.draw(st.integers(0, len(events)))
    first = data.draw(st.integers(1, version + 1))
    mine = [seq for seq, e in events if seq <= version and visible_to(e, viewer)]
    upto, count = asyncio.run(streams.span("g", viewer, first, version))
    assert upto == len(mine)
    assert count == len([seq for seq in mine if seq >= first])
    assert asyncio.run(streams.position("g", viewer, version)) == len(mine)
    for position in range(0, len(mine) + 2):
        expected = mine[position - 1] if 0 < position <= len(mine) else None
        assert asyncio.run(streams.global_seq("g", viewer, position, version)) == expected
        known = streams.known_global_seq("g", viewer, position, version)
        assert known == (NOT_IN_STREAM if expected is None else expected)
    assert list(asyncio.run(streams.visible_seqs("g", viewer, version))) == mine


def test_vera_acknowledged_mid_batch_counts_only_her_own_line() -> None:
    """A batch wrote a public line (1), Anna's city line (2), Vera's own line (3) and a
    public line after it (4): Vera's acknowledgement of her command (seq 3) places it at
    her position 2 — the public line before it and her own — with one event, though her
    stream already holds the later public line."""
    events = [(1, line(None)), (2, line(frozenset({"anna"}))), (3, line(frozenset({"vera"}))),
              (4, line(None))]
    streams = streams_of(events)
    assert asyncio.run(streams.span("g", "vera", 3, 3)) == (2, 1)
    assert asyncio.run(streams.span("g", "anna", 3, 3)) == (2, 0)
