"""The JSON codec round-trips every engine event, every command and the game state.

Event and command classes are found by introspecting the engine modules, so a new
event type is covered without touching this test: instances come from a simulated
game and, for types a game does not produce, are built from the type hints.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import json
import types
import typing
from collections.abc import Mapping
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lepromafia.bots.simulate import play
from lepromafia.engine import commands as engine_commands
from lepromafia.engine import commands_host, decisions, events_host
from lepromafia.engine import events as engine_events
from lepromafia.engine.calendar import MOSCOW
from lepromafia.store import codec

EVENT_CLASSES = [c for m in (engine_events, events_host, *decisions.MODULES)
                 for _, c in inspect.getmembers(m, inspect.isclass)
                 if issubclass(c, engine_events.Event) and c.__module__ == m.__name__
                 and c is not engine_events.Event]
COMMAND_CLASSES = [c for m in (engine_commands, commands_host, *decisions.MODULES)
                   for _, c in inspect.getmembers(m, inspect.isclass)
                   if issubclass(c, engine_commands.Command) and c.__module__ == m.__name__
                   and c is not engine_commands.Command]
GAME = play(3, cities=3, population=8)


def example(hint: Any, depth: int = 0) -> Any:
    """A non-default value of type ``hint`` (hand-made, for types a game does not produce)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return {"city_count": 3, "nested": [1, "два"]}
    if origin in (typing.Union, types.UnionType):
        return example(next(a for a in args if a is not type(None)), depth)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return (example(args[0], depth + 1), example(args[0], depth + 1))
        return tuple(example(a, depth + 1) for a in args)
    if origin in (frozenset, set):
        return frozenset({example(args[0], depth + 1), "другой"} if args[0] is str else
                         {example(args[0], depth + 1)})
    if origin in (dict, Mapping) or origin is typing.get_origin(Mapping[str, str]):
        return {example(args[0], depth + 1): example(args[1], depth + 1)}
    if hint is datetime:
        return datetime(2026, 12, 2, 23, 30, 15, 123456, tzinfo=MOSCOW)
    if hint is date:
        return date(2026, 12, 2)
    if hint is bool:
        return True
    if hint is int:
        return 42
    if hint is str:
        return "Лепроград"
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return list(hint)[-1]
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return hint(**{f.name: example(hints[f.name], depth + 1) for f in dataclasses.fields(hint)})
    raise AssertionError(f"no example for {hint!r}")


def roundtrip(encode: Any, decode: Any, value: Any) -> Any:
    text = codec.dumps(encode(value))
    back = decode(json.loads(text))
    assert codec.dumps(encode(back)) == text
    return back


def test_the_registry_knows_every_event_and_command_class() -> None:
    assert set(codec.EVENT_TYPES.values()) == set(EVENT_CLASSES)
    assert set(codec.COMMAND_TYPES.values()) == set(COMMAND_CLASSES)


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.__name__)
def test_every_event_type_round_trips(cls: type) -> None:
    """Instances from a whole simulated game, plus a hand-made one for every type."""
    from_game = [e for e in GAME.table.events if type(e) is cls]
    made = example(cls)
    assert made.audience is not None
    for event in [*from_game, made]:
        assert roundtrip(codec.encode_event, codec.decode_event, event) == event


def test_the_simulated_game_produces_most_event_types() -> None:
    produced = {type(e) for e in GAME.table.events}
    core = [c for c in EVENT_CLASSES if c.__module__ == engine_events.__name__]  # bots make no host events
    assert len(produced) >= len(core) // 2, "the game sample is too thin"


@pytest.mark.parametrize("cls", COMMAND_CLASSES, ids=lambda c: c.__name__)
def test_every_command_type_round_trips(cls: type) -> None:
    command = example(cls)
    assert roundtrip(codec.encode_command, codec.decode_command, command) == command


def test_game_state_round_trips_at_every_phase_of_a_game() -> None:
    from lepromafia.engine.evolve import evolve

    state = None
    for i, event in enumerate(GAME.table.events):
        state = evolve(state, event)
        if i % 50 == 0 or i == len(GAME.table.events) - 1:
            assert roundtrip(codec.encode_state, codec.decode_state, state) == state
    assert state is not None and state.result is not None


def test_times_keep_their_instant_and_offset() -> None:
    moment = datetime(2026, 12, 1, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=3)))
    event = engine_events.DeadlineFired(at=moment, audience=engine_events.Audience(True),
                                        key="vote_close:Лепроград:2", due_at=moment)
    back = roundtrip(codec.encode_event, codec.decode_event, event)
    assert back.at == moment and back.at.utcoffset() == timedelta(hours=3)


@pytest.mark.parametrize("payload", [
    {"type": "NoSuchEvent"},
    {"type": "PlayerSignedUp", "at": "2026-12-01T10:00:00+03:00", "audience": {"public": True, "users": []}},
    {"type": "PlayerSignedUp", "user": 7, "at": "2026-12-01T10:00:00+03:00",
     "audience": {"public": True, "users": []}},
    {"type": "PlayerSignedUp", "user": "u", "at": "2026-12-01T10:00:00",
     "audience": {"public": True, "users": []}},
    {"type": "PlayerSignedUp", "user": "u", "extra": 1, "at": "2026-12-01T10:00:00+03:00",
     "audience": {"public": True, "users": []}},
    ["not", "an", "object"],
    {"type": "NoConfidenceAnswered", "at": "2026-12-01T10:00:00+03:00", "complaint": True, "justified": True,
     "bonus": "", "audience": {"public": True, "users": []}},  # a bool is no int
    {"type": "NoConfidenceAnswered", "at": "2026-12-01T10:00:00+03:00", "complaint": 1, "justified": 1,
     "bonus": "", "audience": {"public": True, "users": []}},  # nor an int a bool
    {"type": "PlayerSignedUp", "user": "u", "at": "2026-12-01T10:00:00+03:00",
     "audience": {"public": True, "users": "u"}},  # a set is a list
])
def test_a_bad_payload_is_a_codec_error(payload: Any) -> None:
    with pytest.raises(codec.CodecError):
        codec.decode_event(payload)


member_text = st.text(alphabet=st.sampled_from(list(' !"#$/09:;@AZ[\\]^_`az{|}~\x7f\x00\tЛеёя€😀')), max_size=6)


@settings(max_examples=400, deadline=None)
@given(st.frozensets(st.one_of(member_text, st.from_regex(r"[a-z0-9_:]{0,8}", fullmatch=True)), max_size=12))
def test_a_set_of_strings_is_encoded_in_the_order_of_its_members_json(members: frozenset[str]) -> None:
    """Stored payloads never change order (their hashes are in the verifiable log): a set
    sorts by its members' JSON, whether or not its members are plain ids (issue 17)."""
    assert codec.to_json(members) == sorted(members, key=json.dumps)
    assert codec.to_json(members) == sorted(members, key=json.dumps)  # again: from the cache


def test_an_audience_sorted_once_is_answered_anew_each_time() -> None:
    """A city's readers are sorted at their first line and found again at the next
    (issue 17); each answer is a list of its own, and a set of other members equal to a
    sorted one writes the same JSON."""

    class Key(enum.StrEnum):
        CITY = "city"

    readers = frozenset({"vera", "anna", "boris"})
    first = codec.to_json(readers)
    first.append("mallory")
    assert codec.to_json(frozenset({"boris", "vera", "anna"})) == ["anna", "boris", "vera"]
    assert codec.to_json({"boris", "vera", "anna"}) == ["anna", "boris", "vera"]  # a set: not kept
    assert codec.to_json(frozenset({"city"})) == ["city"]
    assert codec.dumps(codec.to_json(frozenset({Key.CITY}))) == '["city"]'


def test_sets_of_other_members_keep_the_order_of_their_json() -> None:
    assert codec.to_json(frozenset({3, 20, 100})) == [100, 20, 3]  # "100" < "20" < "3"
    assert codec.to_json(frozenset({"b", 1})) == ["b", 1]  # '"b"' < "1"


def json_text(data: Any) -> str:
    """What ``codec.dumps`` wrote before it used orjson: the standard library's compact
    JSON, non-ASCII as itself."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def test_every_payload_of_a_game_is_the_same_text_as_the_standard_library_s() -> None:
    """A stored payload's bytes are hashed into the verifiable log: the faster encoder
    writes every event, command and state of a whole simulated game exactly as ``json``
    did (issue 17)."""
    from lepromafia.engine.evolve import evolve

    state = None
    for i, event in enumerate(GAME.table.events):
        data = codec.encode_event(event)
        assert codec.dumps(data) == json_text(data), type(event).__name__
        state = evolve(state, event)
        if i % 50 == 0:
            encoded = codec.encode_state(state)
            assert codec.dumps(encoded) == json_text(encoded)
    for cls in COMMAND_CLASSES:
        data = codec.encode_command(example(cls))
        assert codec.dumps(data) == json_text(data), cls.__name__


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=-2**70, max_value=2**70)
    | st.text(st.characters(codec="utf-8") | st.characters(categories=["Cs", "Cc"])),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=500, deadline=None)
@given(json_values)
def test_any_value_the_codec_makes_is_written_as_the_standard_library_writes_it(data: Any) -> None:
    """Strings with control characters, quotes, any script or a lone surrogate, integers
    beyond 64 bits (both left to ``json``), nested lists and objects: the same text."""
    assert codec.dumps(data) == json_text(data)


@settings(max_examples=500, deadline=None)
@given(json_values)
def test_any_text_the_codec_writes_is_read_back_as_the_standard_library_reads_it(data: Any) -> None:
    """``loads`` reads what ``dumps`` wrote (orjson's text, or ``json``'s) as ``json.loads``
    does, from text or bytes: integers beyond 64 bits stay integers (orjson's reader would
    make them floats), lone surrogates stay themselves."""
    text = codec.dumps(data)
    assert codec.loads(text) == json.loads(text) == data
    if "\\ud" not in text.lower():  # an escaped lone surrogate has no UTF-8 bytes
        assert codec.loads(text.encode("utf-8", "surrogatepass")) == data


def test_text_that_is_not_json_is_a_codec_error() -> None:
    for bad in ("", "{", "[1,]", b"\xff"):
        with pytest.raises(codec.CodecError):
            codec.loads(bad)
