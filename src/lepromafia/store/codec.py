"""JSON codec for engine values: events, commands and the whole GameState.

Generic by dataclass introspection: a value is encoded field by field from its type
hints, and a tagged dataclass (an event or a command) carries its class name so the
registry can find it again. A new engine event or command needs no codec edit.

The JSON is plain (no pickles): ``decode(encode(x)) == x`` for every engine value.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import types
import typing
from collections.abc import Callable, Mapping
from datetime import date, datetime
from functools import cache
from typing import Any, Union

import orjson

from ..engine import registry
from ..engine.commands import Command
from ..engine.events import Event
from ..engine.state import GameState

TYPE_KEY = "type"


class CodecError(ValueError):
    """A payload that does not decode into an engine value."""


EVENT_TYPES: Mapping[str, type[Event]] = registry.EVENT_TYPES
COMMAND_TYPES: Mapping[str, type[Command]] = registry.COMMAND_TYPES


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@cache
def _fields(cls: type) -> tuple[tuple[str, Any], ...]:
    hints = _hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


# --- encoding -----------------------------------------------------------------------


def to_json(value: Any) -> Any:
    """A JSON-ready structure for any engine value (dataclasses by their fields)."""
    encoder = _ENCODERS.get(type(value))
    if encoder is None:
        encoder = _ENCODERS[type(value)] = _encoder_for(type(value))
    return encoder(value)


def _same(value: Any) -> Any:
    return value


def _aware(value: datetime) -> str:
    if value.tzinfo is None:
        raise CodecError("naive datetime")
    return value.isoformat()


_PLAIN = re.compile(r"[#-\[\]-~]*")
"""Printable ASCII above ``"`` and other than ``\\``: the JSON of such a string is the
string in quotes, so strings of these sort by their JSON as by themselves (a proper prefix
first: the closing quote sorts below every character here)."""


def _set(value: frozenset[Any] | set[Any]) -> list[Any]:
    """A set as a list in the order of its members' JSON (one order on every machine).
    Members that are plain strings (``_PLAIN``, as user ids and inbox keys are) sort as
    themselves, the same order without a ``json.dumps`` per member: an audience's
    users are encoded with every event a lane writes (issue 17). A frozen set of plain
    strings is sorted once (``_SORTED``: an inbox's lines share one audience)."""
    if type(value) is frozenset:
        found = _SORTED.get(value)
        if found is not None:
            return list(found)
    if all(type(x) is str for x in value):  # a string is its own JSON value
        if _PLAIN.fullmatch("".join(value)):
            ordered = sorted(value)
            if type(value) is frozenset:
                if len(_SORTED) >= _SORTED_MAX:
                    _SORTED.clear()
                _SORTED[value] = tuple(ordered)
            return ordered
        return sorted(value, key=json.dumps)
    return sorted((to_json(x) for x in value), key=json.dumps)


_SORTED: dict[frozenset[Any], tuple[str, ...]] = {}
"""Frozen sets of plain strings, sorted. A set equal to one of them holds strings equal
to its members (or ``str`` subclasses' members with the same text), whose JSON is the
same: the answer is exact for it too."""
_SORTED_MAX = 4096


def _mapping(value: Mapping[Any, Any]) -> Any:
    if all(isinstance(k, str) and not isinstance(k, enum.Enum) for k in value):
        return {k: to_json(v) for k, v in value.items()}
    return [[to_json(k), to_json(v)] for k, v in value.items()]


def _encoder_for(cls: type) -> Any:
    """One encoding function per runtime type, found once (the hot path of every write)."""
    if issubclass(cls, enum.Enum):
        return lambda v: v.value
    if cls is type(None) or issubclass(cls, bool | int | float | str):
        return _same
    if issubclass(cls, datetime):
        return _aware
    if issubclass(cls, date):
        return lambda v: v.isoformat()
    if dataclasses.is_dataclass(cls):
        names = tuple(name for name, _ in _fields(cls))
        return lambda v: {name: to_json(getattr(v, name)) for name in names}
    if issubclass(cls, Mapping):
        return _mapping
    if issubclass(cls, frozenset | set):
        return _set
    if issubclass(cls, tuple | list):
        return lambda v: [to_json(x) for x in v]
    raise CodecError(f"cannot encode {cls.__name__}")


_ENCODERS: dict[type, Any] = {}


def encode_event(event: Event) -> dict[str, Any]:
    return {TYPE_KEY: type(event).__name__, **to_json(event)}


def encode_command(command: Command) -> dict[str, Any]:
    return {TYPE_KEY: type(command).__name__, **to_json(command)}


_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""``json.dumps`` with these options, its encoder made once (not once per call)."""


def dumps(data: Any) -> str:
    """``to_json`` output as compact JSON, non-ASCII as itself: orjson's text, which is
    ``_DUMPS``'s byte for byte for these values (strings, integers, booleans, None, lists
    and string-keyed dicts; ``tests/store/test_codec.py``) at a seventh of its cost
    (issue 17: every event a lane writes). What orjson refuses (an integer beyond 64 bits,
    a lone surrogate) goes to ``_DUMPS``, which answers as it always did."""
    try:
        return orjson.dumps(data).decode()
    except orjson.JSONEncodeError:
        return _DUMPS(data)


# --- decoding -----------------------------------------------------------------------


def from_json(hint: Any, data: Any) -> Any:
    """Rebuild a value of type ``hint`` from ``to_json`` output."""
    return _decoder(hint)(data)


_DECODERS: dict[Any, Callable[[Any], Any]] = {}


def _decoder(hint: Any) -> Callable[[Any], Any]:
    """One decoding function per type hint, built once from its introspection, as
    ``_encoder_for`` is per runtime type (issue 17: every event read — a restart's replay, a
    viewer's stream, another worker's relay — walked the hints of every field of every
    event; session 33: 27 ms a game of 1,210 events)."""
    found = _DECODERS.get(hint)
    if found is None:
        found = _DECODERS[hint] = _decoder_for(hint)
    return found


def _decoder_for(hint: Any) -> Callable[[Any], Any]:
    origin = typing.get_origin(hint)
    if hint is Any:
        return _same
    if origin in (Union, types.UnionType):
        return _union(typing.get_args(hint))
    if origin is None:
        return _scalar_decoder(hint)
    args = typing.get_args(hint)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _items(tuple, args[0])
        return _fixed_tuple(args)
    if origin in (frozenset, set):
        return _items(origin, args[0])
    if origin is list:
        return _items(list, args[0])
    if origin in (dict, Mapping) or origin is typing.get_origin(Mapping[str, str]):
        return _mapping_decoder(*args)
    raise CodecError(f"unsupported type {hint!r}")


def _union(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    optional = type(None) in args
    members = tuple(arg for arg in args if arg is not type(None))

    def decode(data: Any) -> Any:
        if data is None and optional:
            return None
        errors = []
        for arg in members:
            try:
                return _decoder(arg)(data)
            except (CodecError, TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise CodecError(f"no union member fits: {errors}")
    return decode


def _items(kind: Callable[[Any], Any], item: Any) -> Callable[[Any], Any]:
    def decode(data: Any) -> Any:
        _expect(data, list)
        one = _decoder(item)
        return kind(one(v) for v in data)
    return decode


def _fixed_tuple(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    def decode(data: Any) -> Any:
        _expect(data, list)
        if len(args) != len(data):
            raise CodecError(f"tuple of {len(args)} expected, got {len(data)}")
        return tuple(_decoder(a)(v) for a, v in zip(args, data, strict=True))
    return decode


def _mapping_decoder(key_hint: Any, value_hint: Any) -> Callable[[Any], Any]:
    def decode(data: Any) -> Any:
        key, value = _decoder(key_hint), _decoder(value_hint)
        if isinstance(data, dict):  # a free-form mapping such as CreateGame.settings
            return {key(k): value(v) for k, v in data.items()}
        _expect(data, list)
        return {key(k): value(v) for k, v in data}
    return decode


def _expect(data: Any, kind: type) -> None:
    if not isinstance(data, kind):
        raise CodecError(f"{kind.__name__} expected, got {type(data).__name__}")


def _scalar_decoder(hint: Any) -> Callable[[Any], Any]:
    if hint is datetime:
        return _datetime
    if hint is date:
        return _date
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint
    if hint is bool:
        return _bool
    if hint is int:
        return _int
    if hint in (str, float):
        def plain(data: Any) -> Any:
            _expect(data, hint)
            return data
        return plain
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return lambda data: _dataclass(hint, data)
    raise CodecError(f"unsupported type {hint!r}")


def _datetime(data: Any) -> datetime:
    _expect(data, str)
    value = datetime.fromisoformat(data)
    if value.tzinfo is None:
        raise CodecError("naive datetime")
    return value


def _date(data: Any) -> date:
    _expect(data, str)
    return date.fromisoformat(data)


def _bool(data: Any) -> bool:
    _expect(data, bool)
    return bool(data)


def _int(data: Any) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise CodecError(f"int expected, got {data!r}")
    return data


@cache
def _names(cls: type) -> frozenset[str]:
    return frozenset(name for name, _ in _fields(cls)) | {TYPE_KEY}


def _dataclass(cls: type, data: Any) -> Any:
    _expect(data, dict)
    if not _names(cls).issuperset(data):
        raise CodecError(f"{cls.__name__}: unknown fields {sorted(set(data) - _names(cls))}")
    values = {}
    for name, hint in _fields(cls):
        if name in data:
            values[name] = _decoder(hint)(data[name])
    try:
        return cls(**values)
    except TypeError as exc:
        raise CodecError(f"{cls.__name__}: {exc}") from exc


def _tagged(registry: Mapping[str, type], data: Any) -> Any:
    if not isinstance(data, dict) or not isinstance(data.get(TYPE_KEY), str):
        raise CodecError("a tagged object expected")
    cls = registry.get(data[TYPE_KEY])
    if cls is None:
        raise CodecError(f"unknown type {data[TYPE_KEY]!r}")
    return _dataclass(cls, data)


def decode_event(data: Any) -> Event:
    event: Event = _tagged(EVENT_TYPES, data)
    return event


def decode_command(data: Any) -> Command:
    command: Command = _tagged(COMMAND_TYPES, data)
    return command


def encode_state(state: GameState) -> dict[str, Any]:
    encoded: dict[str, Any] = to_json(state)
    return encoded


def decode_state(data: Any) -> GameState:
    state: GameState = _dataclass(GameState, data)
    return state


def loads(text: str | bytes) -> Any:
    """What ``dumps`` wrote, parsed by ``json``. Not by orjson, though it is about four
    times faster: it reads an integer beyond 64 bits as a float, silently
    (``tests/store/test_codec.py``)."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CodecError(f"invalid JSON: {exc}") from exc
