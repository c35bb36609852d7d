"""Register, log in, log out, who am I; the sanctions registry (PLAYER-7)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from ...engine.rules.host import sanction_visible
from ...engine.state import GameState
from ...service.accounts import Session
from ...service.errors import ServiceError
from ..deps import (
    CurrentUser,
    RequireUser,
    WebDep,
    access_game_for_action,
    clear_session_cookie,
    session_token,
    set_session_cookie,
)
from ..security import issue_ticket
from .models import ERRORS, LoginBody, RegisterBody, SanctionBody, SessionOut, UserOut

router = APIRouter(tags=["accounts"], responses=ERRORS)


def _session_out(session: Session) -> SessionOut:
    return SessionOut(user=UserOut(user_id=session.user.user_id, display_name=session.user.display_name),
                      token=session.token, expires_real=session.expires_real)


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "?"


@router.post("/auth/register", status_code=201)
async def register(body: RegisterBody, request: Request, response: Response, web: WebDep) -> SessionOut:
    """Create an account and log in (argon2id; the session is an HttpOnly cookie and,
    for API clients, the returned bearer token)."""
    await web.accounts.register(body.login, body.password, body.display_name, client_ip(request))
    session = await web.accounts.login(body.login, body.password, client_ip(request))
    set_session_cookie(response, session, web.settings)
    return _session_out(session)


@router.post("/auth/login")
async def login(body: LoginBody, request: Request, response: Response, web: WebDep) -> SessionOut:
    """Rate-limited per login and IP address (429 ``rate_limited``)."""
    session = await web.accounts.login(body.login, body.password, client_ip(request))
    set_session_cookie(response, session, web.settings)
    return _session_out(session)


@router.post("/auth/logout", status_code=204)
async def logout(request: Request, response: Response, web: WebDep) -> Response:
    token = session_token(request)
    if token:
        await web.accounts.logout(token)
    response.status_code = 204
    clear_session_cookie(response, web.settings)
    return response


@router.post("/auth/ws-ticket")
async def ws_ticket(user: RequireUser, web: WebDep) -> dict[str, Any]:
    """A one-time ticket for ``/ws?ticket=`` (valid 60 s) for a client that cannot send the
    session cookie or an ``Authorization`` header with the WebSocket handshake."""
    ticket, expires = issue_ticket(web.settings.signing_key(), user.user_id, web.now())
    return {"ticket": ticket, "expires_real": expires}


@router.get("/me")
async def me(user: RequireUser) -> UserOut:
    return UserOut(user_id=user.user_id, display_name=user.display_name)


@router.get("/sanctions")
async def sanctions(web: WebDep, user: CurrentUser) -> list[dict[str, Any]]:
    """The community registry of bans: who, why, until when. A sanction of a game still
    running is shown only to that game's Procurator and the sanctioned player (OMERTA-2)."""
    viewer = user.user_id if user else None
    states: dict[str, GameState | None] = {}
    out = []
    for s in await web.accounts.sanctions():
        if s.game_id and s.game_id not in states:
            try:
                states[s.game_id] = await web.service.state(s.game_id)
            except ServiceError:
                states[s.game_id] = None  # no such game any more: nothing left to keep secret
        state = states.get(s.game_id) if s.game_id else None
        if state is not None and not sanction_visible(state, s.user_id, viewer):
            continue
        out.append({"id": s.id, "user": s.user_id, "reason": s.reason, "rule": s.rule,
                    "starts_real": s.starts_real, "ends_real": s.ends_real, "game_id": s.game_id})
    return out


@router.post("/games/{game_id}/sanctions", status_code=201)
async def record_sanction(game_id: str, body: SanctionBody, user: RequireUser, web: WebDep) -> dict[str, int]:
    """OMERTA-2, IMPEACH-5: the game's Procurator or Supreme Arbiter records a ban."""
    state = await access_game_for_action(web, user, game_id)
    sanction = await web.accounts.record_sanction(state, game_id, user.user_id, body.user.lower(),
                                                  body.reason, body.rule, body.days)
    return {"id": sanction}
