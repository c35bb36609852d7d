"""Every engine command as ``POST /api/games/{game_id}/commands/{CommandName}``.

The routes are made in a loop over the engine's command classes (``service.commands``'s
registry), so a new command needs no edit here. Each body is a Pydantic model derived
from the command's dataclass minus ``actor`` (always the session's user; an ``actor``
in the body is rejected) plus the client's ``command_id``. The engine's own decoder
builds the command; the engine decides.

Randomness the rules need is drawn here, server-side (keyed by the server secret), in the
convenience endpoints under ``/random/``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import random
import typing
from datetime import date, datetime
from functools import cache
from typing import Any

from fastapi import APIRouter
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, create_model

from ...engine import commands as cmd
from ...engine import commands_host
from ...engine.state import Stage
from ...service.commands import COMMAND_TYPES, CommandShapeError, decode_command
from ..deps import RequireUser, Web, WebDep, access_game_for_action
from ..errors import WebError, WebErrorCode
from .games import ack_out, scoped
from .models import COMMAND_ID, ERRORS, AckOut, BoundedInt, CityBody, CommandIdBody

router = APIRouter(tags=["commands"], responses=ERRORS)

SYSTEM_ONLY = frozenset({"FireDeadline"})
"""Issued by the service's scheduler alone."""
# Published only through /sound/entries, which measures the real duration of the file;
# PostComment has its own endpoint (api/discussion.py): the registry ban comes first (PLAYER-7);
# a commissar offer only through /random/commissar-offer, whose draw no caller can supply
# (COMM-APPT-1: «при помощи генератора случайных чисел»).
NOT_GENERATED = SYSTEM_ONLY | {"PublishSoundEntry", "PostComment", "OfferCommissar"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


@cache
def _nested(cls: type) -> type[BaseModel]:
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        shape = _annotation(hints[f.name])
        fields[f.name] = (shape, _default(f, shape))
    return create_model(cls.__name__, __base__=_Strict, **fields)


def _annotation(hint: Any) -> Any:
    """The JSON shape of an engine type, as the service decodes it."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is datetime:
        return AwareDatetime
    if hint is int:
        return BoundedInt
    if hint in (str, int, bool, float, date) or hint is Any:
        return hint
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _nested(hint)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return list[_annotation(args[0])]  # type: ignore[misc]
        return tuple[tuple(_annotation(a) for a in args)]  # type: ignore[misc]
    if origin in (frozenset, set, list):
        return list[_annotation(args[0])]  # type: ignore[misc]
    if origin is dict:
        return dict[_annotation(args[0]), _annotation(args[1])]  # type: ignore[misc]
    if args and type(None) in args:
        inner = [a for a in args if a is not type(None)]
        return _annotation(inner[0]) | None
    return Any


def _default(f: dataclasses.Field[Any], shape: Any) -> Any:
    """The field's default in the JSON shape ``shape``: an engine tuple's ``()`` is ``[]``
    where the body holds a list (pydantic keeps a default unvalidated, and would dump a
    tuple where the model declares a list, with a serializer warning)."""
    if f.default is not dataclasses.MISSING:
        if typing.get_origin(shape) is list and isinstance(f.default, (tuple, frozenset)):
            return list(f.default)
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return Field(default_factory=f.default_factory)
    return ...


def body_model(cls: type[cmd.Command]) -> type[BaseModel]:
    """The request body of a command: its fields minus ``actor``, plus ``command_id``."""
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {"command_id": (str, COMMAND_ID)}
    for f in dataclasses.fields(cls):
        if f.name != "actor":
            shape = _annotation(hints[f.name])
            fields[f.name] = (shape, _default(f, shape))
    return create_model(f"{cls.__name__}Body", __base__=_Strict, __doc__=cls.__doc__, **fields)


def build_command(name: str, actor: str, body: BaseModel) -> cmd.Command:
    data = body.model_dump(mode="json", exclude={"command_id"})
    try:
        return decode_command(name, actor, data)
    except CommandShapeError as exc:
        raise WebError(WebErrorCode.BAD_JSON, detail=str(exc)) from exc


async def run_command(web: Web, user_id: str, game_id: str, name: str, body: BaseModel) -> AckOut:
    """One engine command of ``user_id``, from its validated body: the HTTP route's and
    the socket's (``web.ws.commands``) one way in."""
    command = build_command(name, user_id, body)
    command_id = scoped(user_id, body.command_id)  # type: ignore[attr-defined]
    if isinstance(command, cmd.CreateGame):
        ack = await web.service.create_game(game_id, command, command_id,
                                            time_scale=web.settings.time_scale)
    else:
        ack = await web.service.execute(game_id, command, command_id)
        if isinstance(command, commands_host.RecordSanction):  # PLAYER-7: sign-up checks it
            await web.accounts.register_game_sanction(
                game_id, await web.service.state(game_id), command)
    return await ack_out(web, user_id, ack)


def _register(name: str, cls: type[cmd.Command]) -> None:
    model = BODIES[name]

    async def endpoint(game_id: str, body: model, user: RequireUser, web: WebDep) -> AckOut:  # type: ignore[valid-type]
        return await run_command(web, user.user_id, game_id, name, body)

    endpoint.__annotations__["body"] = model  # a real class, not the postponed name
    endpoint.__name__ = f"command_{name}"
    router.add_api_route(f"/games/{{game_id}}/commands/{name}", endpoint, methods=["POST"],
                         name=name, summary=name, description=(cls.__doc__ or "").strip() or name,
                         response_model=AckOut)


COMMANDS: dict[str, type[cmd.Command]] = {
    name: cls for name, cls in sorted(COMMAND_TYPES.items()) if name not in NOT_GENERATED
}
BODIES: dict[str, type[BaseModel]] = {name: body_model(cls) for name, cls in COMMANDS.items()}
"""Each command's body model, by name: the route's body, and a ``command`` frame's ``args``
on the socket."""
for _name, _cls in COMMANDS.items():
    _register(_name, _cls)


@router.post("/games/{game_id}/commands/{name}", include_in_schema=False)
async def unknown_command(game_id: str, name: str) -> None:
    raise WebError(WebErrorCode.UNKNOWN_COMMAND, command=name)


# --- randomness drawn by the platform ------------------------------------------------


def platform_digest(web: WebDep, game_id: str, user: str, command_id: str, purpose: str) -> bytes:
    """HMAC-SHA256 under the server's secret: unpredictable to clients (a cryptographic
    source) yet the same for a retried ``command_id``, so idempotency holds for draws too."""
    key = web.settings.signing_key()
    return hmac.new(key, f"{purpose}|{game_id}|{user}|{command_id}".encode(), hashlib.sha256).digest()


def platform_rng(web: WebDep, game_id: str, user: str, command_id: str, purpose: str) -> random.Random:
    """A shuffler seeded from ``platform_digest`` (for the deal's lists and numbers)."""
    return random.Random(int.from_bytes(platform_digest(web, game_id, user, command_id, purpose), "big"))


@router.post("/games/{game_id}/random/seal-deal")
async def seal_shuffled_deal(game_id: str, body: CommandIdBody, user: RequireUser, web: WebDep) -> AckOut:
    """RANDOM-1..3 for a Consigliere who asks the platform to shuffle: every city list is
    shuffled by the platform and sealed with a fresh salt."""
    state = await access_game_for_action(web, user, game_id)
    rng = platform_rng(web, game_id, user.user_id, body.command_id, "seal")
    lists = []
    for name, city in state.cities.items():
        order = list(city.residents)
        rng.shuffle(order)
        lists.append((name, tuple(order)))
    command = cmd.SealDeal(actor=user.user_id, lists=tuple(lists), salt=f"{rng.getrandbits(128):032x}")
    ack = await web.service.execute(game_id, command, scoped(user.user_id, body.command_id))
    return await ack_out(web, user.user_id, ack)


@router.post("/games/{game_id}/random/mafia-numbers")
async def draw_mafia_numbers(game_id: str, body: CityBody, user: RequireUser, web: WebDep) -> AckOut:
    """RANDOM-4 "draw for me": the city's mafia count of distinct numbers, drawn by the
    platform for the Procurator."""
    state = await access_game_for_action(web, user, game_id)
    city = state.cities.get(body.city)
    if city is None or state.stage is not Stage.SEALED:
        count, population = 1, 1  # the engine rejects with its own code
    else:
        count, population = city.mafia_count, len(city.residents)
    rng = platform_rng(web, game_id, user.user_id, body.command_id, "numbers")
    numbers = tuple(rng.sample(range(1, population + 1), min(count, population)))
    command = cmd.NameMafiaNumbers(actor=user.user_id, city=body.city, numbers=numbers)
    ack = await web.service.execute(game_id, command, scoped(user.user_id, body.command_id))
    return await ack_out(web, user.user_id, ack)


@router.post("/games/{game_id}/random/commissar-offer")
async def offer_commissar_drawn(game_id: str, body: CityBody, user: RequireUser, web: WebDep) -> AckOut:
    """COMM-APPT-1, COMM-APPT-6 (D10): the offer's candidate drawn by the platform from a
    cryptographic source; the draw and its pool are sealed in the notary record."""
    digest = platform_digest(web, game_id, user.user_id, body.command_id, "offer")
    command = cmd.OfferCommissar(actor=user.user_id, city=body.city,
                                 draw=int.from_bytes(digest[:8], "big") >> 2)
    ack = await web.service.execute(game_id, command, scoped(user.user_id, body.command_id))
    return await ack_out(web, user.user_id, ack)
