"""Games: list, public page, create, sign up, and the viewer's own reads."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Query

from ...engine.commands import CreateGame, SignUp
from ...engine.settings import GameSettings
from ...service.service import Ack
from ...service.views import (
    DeadlineView,
    GamePublic,
    GameSummary,
    InboxListRow,
    InboxView,
    RoleCard,
    TallyView,
)
from ..deps import CurrentUser, RequireUser, Web, WebDep, access_game_for_action
from ..errors import WebError, WebErrorCode
from .models import ERRORS, MAX_INT, AckOut, CreateGameBody, SignUpBody

router = APIRouter(tags=["games"], responses=ERRORS)


async def ack_out(web: Web, actor: str, ack: Ack) -> AckOut:
    """A command's acknowledgement in the actor's own stream: the positions of its events
    he may see, and their count. Never the global seqs or the full count: a Tribune's
    execution that also vacates a secret office must look like any other (F3-1)."""
    upto, count = await web.queries.streams.span(ack.game_id, actor, ack.first_seq,
                                                 max(ack.last_seq, ack.first_seq - 1))
    return AckOut(game_id=ack.game_id, command_id=ack.command_id, first_seq=upto - count + 1,
                  last_seq=upto, event_count=count)


def scoped(user_id: str, command_id: str) -> str:
    """Command ids are the client's, scoped per user so two users never collide."""
    return f"{user_id}:{command_id}"


@router.get("/games")
async def list_games(web: WebDep) -> list[GameSummary]:
    return await web.queries.games()


@router.post("/games", status_code=201)
async def create_game(body: CreateGameBody, user: RequireUser, web: WebDep) -> AckOut:
    """The caller becomes the Procurator. Settings are validated by the engine (§8)."""
    GameSettings.from_mapping(body.settings)
    game_id = body.game_id or f"g-{secrets.token_hex(4)}"
    command = CreateGame(actor=user.user_id, title=body.title, settings=body.settings)
    ack = await web.service.create_game(game_id, command, scoped(user.user_id, body.command_id),
                                        time_scale=web.settings.time_scale)
    return await ack_out(web, user.user_id, ack)


@router.get("/games/{game_id}")
async def game(game_id: str, user: CurrentUser, web: WebDep) -> GamePublic:
    """The public page: Recruitment Post, city lists, Day Posts, results."""
    return await web.queries.game_public(game_id, user.user_id if user else None)


@router.post("/games/{game_id}/signup")
async def sign_up(game_id: str, body: SignUpBody, user: RequireUser, web: WebDep) -> AckOut:
    """PLAYER-1..7: accept the requirements and leave a voice contact (stored encrypted,
    apart from the game; readable only by the Procurator and your city's Tribune)."""
    await access_game_for_action(web, user, game_id)
    await web.accounts.check_not_banned(user.user_id)
    contact = web.accounts.validate_contact(body.contact)
    command = SignUp(actor=user.user_id, accepted=frozenset(body.accepted), has_contact=bool(contact))
    ack = await web.service.execute(game_id, command, scoped(user.user_id, body.command_id))
    await web.accounts.save_contact(game_id, user.user_id, contact)
    return await ack_out(web, user.user_id, ack)


@router.get("/games/{game_id}/role")
async def role_card(game_id: str, user: RequireUser, web: WebDep) -> RoleCard:
    return await web.queries.role_card(game_id, user.user_id)


@router.get("/games/{game_id}/inboxes")
async def inboxes(game_id: str, user: RequireUser, web: WebDep) -> list[InboxListRow]:
    return await web.queries.inboxes(game_id, user.user_id)


@router.get("/games/{game_id}/inboxes/{inbox_id:path}")
async def inbox(game_id: str, inbox_id: str, user: RequireUser, web: WebDep,
                after: int = Query(0, ge=0, le=MAX_INT),
                limit: int = Query(500, ge=1, le=2000)) -> InboxView:
    found = await web.queries.inbox(game_id, inbox_id, user.user_id, after_seq=after, limit=limit)
    if found is None:  # unknown or not readable: indistinguishable on purpose
        raise WebError(WebErrorCode.NOT_FOUND, what=inbox_id)
    return found


@router.get("/games/{game_id}/duties")
async def duties(game_id: str, user: RequireUser, web: WebDep) -> list[dict[str, Any]]:
    return await web.queries.duties(game_id, user.user_id)


@router.get("/games/{game_id}/deadlines")
async def deadlines(game_id: str, user: CurrentUser, web: WebDep) -> list[DeadlineView]:
    return await web.queries.deadlines(game_id, user.user_id if user else None)


@router.get("/games/{game_id}/tallies")
async def tallies(game_id: str, user: CurrentUser, web: WebDep) -> list[TallyView]:
    return await web.queries.tallies(game_id, user.user_id if user else None)


@router.get("/games/{game_id}/events")
async def events(game_id: str, user: CurrentUser, web: WebDep, since: int = Query(0, ge=0, le=MAX_INT),
                 limit: int = Query(1000, ge=1, le=5000)) -> list[dict[str, Any]]:
    """The viewer's own stream after his position ``since``: only the events he may see,
    each with ``seq``, its position in his stream (1, 2, 3, …); nothing about the others."""
    await web.queries.state(game_id)
    return await web.queries.events_since(game_id, user.user_id if user else None, since, limit)


@router.get("/games/{game_id}/contacts/{subject}")
async def contact(game_id: str, subject: str, user: RequireUser, web: WebDep) -> dict[str, str]:
    """PLAYER-4, SEC-13: the Procurator and the resident's Tribune only; logged."""
    state = await access_game_for_action(web, user, game_id)
    text = await web.accounts.read_contact(state, game_id, user.user_id, subject)
    return {"user": subject, "contact": text}
