"""An event's frame is encoded once per audience and content, each viewer's position spliced
in, byte for byte what the per-client encoding gave (issue 17, the fan-out).

Cast: a bot-played game of two cities of ten (``bots.simulate.play``, seed 1: every kind of
event a game has, from its set-up to its end) and every seat of it, the hosts, an anonymous
visitor. For each event and each viewer the audience filter admits, ``Frames.frame`` equals
``from_payload(stream_item(…)).model_dump_json()`` — with no content and with a fragment —
and a viewer it does not admit gets nothing (§9.1.3). Messages of any text (hypothesis) in
games of any id encode alike. A mafia-inbox message, encoded for a mafioso, is never handed
to a civilian of his city, and the city's message is never the mafia's frame. A command's
``ack``, written without its model, is the model's text for any id, game and span.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from lepromafia.bots.simulate import GameReport, play
from lepromafia.engine import events as ev
from lepromafia.engine.audience import Audience
from lepromafia.service.outbound import may_see, stream_item
from lepromafia.web.ws.content import Frames
from lepromafia.web.ws.protocol import Ack, ack_text, from_payload
from lepromafia.web.ws.transport import text_frame

FRAGMENT = '<li id="m7" data-author="p01_02">«Он — Ганди!» \\ "quoted" </li>\n\t\u2028 ✓'


@cache
def game() -> GameReport:
    return play(1, cities=2, population=10)


def today(game_id: str, position: int, event: ev.Event, viewer: str | None, html: str | None) -> str:
    """The frame as every client got it before: one model and one dump per client."""
    return from_payload(stream_item(game_id, position, event, viewer, html)).model_dump_json()


def test_every_event_of_a_whole_game_encodes_as_before_for_every_viewer() -> None:
    report = game()
    events = report.table.events
    viewers: list[str | None] = [None, *sorted(report.table.game.residents), *sorted(report.table.game.hosts())]
    frames = Frames(maxsize=10**6)
    positions = dict.fromkeys(viewers, 0)
    kinds, compared, refused = set(), 0, 0
    for seq, event in enumerate(events, 1):
        for html in (None, FRAGMENT) if isinstance(event, ev.MessagePosted) else (None,):
            for viewer in viewers:
                got = frames.frame("g-1", seq, event, viewer, positions[viewer] + 1, html)
                if not may_see(event, viewer):
                    assert got is None, (type(event).__name__, viewer)
                    refused += 1
                    continue
                positions[viewer] += 1
                assert got == today("g-1", positions[viewer], event, viewer, html)
                kinds.add(type(event).__name__)
                compared += 1
    assert len(kinds) >= 40 and compared > 5000 and refused > 1000, (len(kinds), compared, refused)
    contents = sum(2 if isinstance(e, ev.MessagePosted) else 1 for e in events)
    assert frames.encodings <= contents  # once per event and content, never per viewer


def posted(text: str, users: frozenset[str] | None = None) -> ev.MessagePosted:
    audience = Audience(public=users is None, users=users or frozenset())
    return ev.MessagePosted(at=datetime(2026, 12, 1, 7, 5, tzinfo=UTC), audience=audience,
                            inbox="city:Лепроград:1", author="p01_02", text=text)


@settings(max_examples=300, deadline=None)
@given(game_id=st.text(min_size=1, max_size=40), text=st.text(max_size=200),
       position=st.integers(min_value=1, max_value=10**12),
       html=st.none() | st.text(max_size=200))
def test_any_message_in_any_game_encodes_as_before(game_id: str, text: str, position: int,
                                                    html: str | None) -> None:
    event = posted(text)
    frames = Frames()
    assert frames.frame(game_id, 5, event, "p01_03", position, html) == today(game_id, position, event, "p01_03", html)
    assert frames.frame(game_id, 5, event, None, position + 1, html) == today(game_id, position + 1, event, None, html)
    assert frames.wire(game_id, 5, event, "p01_03", position, html) == \
        text_frame(today(game_id, position, event, "p01_03", html).encode())
    assert frames.encodings == 1


def test_a_frame_on_the_wire_is_the_text_framed_at_every_length() -> None:
    """``Frames.wire``, the bytes a delivery writes, is ``text_frame`` of the frame's text,
    under and over the 126-byte and 64 KB lengths where the header grows."""
    frames = Frames()
    for seq, size in enumerate((0, 10, 120, 200, 65_400, 65_600, 70_000), 1):
        event = posted("я" * 3)
        for position in (1, 9, 10, 99_999):
            html = "ж" * size
            assert frames.wire("g", seq, event, None, position, html) == \
                text_frame(today("g", position, event, None, html).encode())


def test_a_mafia_message_encoded_for_a_mafioso_never_reaches_a_civilian() -> None:
    """§9.1.3, INBOX-MAFIA: the mafia inbox's message is encoded for its reader; the civilian
    of the same city asks for the same event and gets nothing, and the city's message, a
    different audience, is a different frame for both."""
    mafia = posted("мафия: ночью Боба", frozenset({"mafioso"}))
    city = posted("днём: всем привет", frozenset({"mafioso", "civilian"}))
    frames = Frames()
    secret = frames.frame("g", 10, mafia, "mafioso", 4, FRAGMENT)
    assert secret is not None and "ночью" in secret
    assert frames.frame("g", 10, mafia, "civilian", 4, FRAGMENT) is None
    assert frames.wire("g", 10, mafia, "civilian", 4, FRAGMENT) is None
    assert frames.wire("g", 10, mafia, None, 4, FRAGMENT) is None
    assert frames.frame("g", 10, mafia, None, 4, FRAGMENT) is None
    for viewer in ("mafioso", "civilian"):
        shared = frames.frame("g", 11, city, viewer, 5, FRAGMENT)
        assert shared is not None and "ночью" not in shared and shared != secret


@settings(max_examples=300, deadline=None)
@given(command_id=st.text(max_size=60), game_id=st.text(min_size=1, max_size=40),
       first=st.integers(min_value=0, max_value=2**62), count=st.integers(min_value=0, max_value=50))
def test_a_command_s_ack_is_the_model_s_text(command_id: str, game_id: str, first: int,
                                             count: int) -> None:
    """The socket writes a command's ``ack`` without its model: the same bytes for any
    command id, game and span (issue 17)."""
    last = first + count - 1
    model = Ack(id=command_id, game=game_id, first_seq=first, last_seq=last, event_count=count)
    assert ack_text(command_id, game_id, first, last, count) == model.model_dump_json()
