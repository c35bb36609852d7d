"""What every page needs: the viewer, his seat in the game, the game's clock, the flash."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from ...engine.state import GameState
from ...service.errors import ServiceError, ServiceErrorCode
from ...service.event_index import Indexed
from ...service.service import Current
from ...service.views import GameMeta
from ..deps import Web
from ..errors import ErrorInfo, WebError, WebErrorCode
from ..i18n import translate
from .regions import LIVE_KINDS
from .views import Seat, phase_key, seat_of

FLASH_COOKIE = "lp_flash"


@dataclass
class GameCtx:
    id: str
    current: Current

    @property
    def state(self) -> GameState:
        return self.current.state

    @property
    def meta(self) -> GameMeta:
        return self.current.meta

    @property
    def now(self) -> datetime:
        return self.current.now

    @property
    def title(self) -> str:
        return self.state.title

    @property
    def phase(self) -> str:
        return phase_key(self.state)

    @property
    def day(self) -> int:
        return self.state.day

    @property
    def settings(self) -> Any:
        return self.state.settings

    @property
    def version(self) -> int:
        return self.meta.version


@contextmanager
def game_or_404(game_id: str) -> Iterator[None]:
    """A page's answer for a game that does not exist: its «not found» page."""
    try:
        yield
    except ServiceError as exc:
        if exc.code is ServiceErrorCode.UNKNOWN_GAME:
            raise WebError(WebErrorCode.NOT_FOUND, what=game_id) from exc
        raise


async def load_game(web: Web, game_id: str) -> GameCtx:
    """The game as of the latest commit (one cheap version read), or 404."""
    with game_or_404(game_id):
        return GameCtx(game_id, await web.queries.current(game_id))


async def page_events(web: Web, game: GameCtx) -> Indexed:
    """The game's events from the service's one event index (filter them with
    ``service.outbound`` for the viewer)."""
    return await web.queries.events(game.current)


async def game_context(web: Web, request: Request, game: GameCtx, user: str | None,
                       nav: str, *, unread: bool = True) -> dict[str, Any]:
    """What every page of a game needs. A live region that shows no unread count passes
    ``unread=False`` and skips counting the viewer's inboxes."""
    seat: Seat = seat_of(game.state, user)
    total = 0
    if unread and user is not None and (seat.city or seat.host):
        total = await web.queries.unread_total(game.id, user, game=game.current)
    return {
        "game": game,
        "seat": seat,
        "nav": nav,
        "unread_total": total,
        "live_game": game.id,
        "live_seq": await web.queries.position(game.id, user, game.version),
        "live_kinds": LIVE_KINDS,
        "game_clock": game.meta.clock,
        "now_game": game.now,
    }


def rendered_at(response: Response, ctx: dict[str, Any]) -> Response:
    """Mark a live region's response with the viewer's stream position it shows
    (``X-Live-Seq``, from ``game_context``; never the game's version): live.js then skips
    the WebSocket events up to it (the echo of one's own command)."""
    response.headers["X-Live-Seq"] = str(ctx["live_seq"])
    return response


# --- the flash: one message carried across a redirect ------------------------------


def clear_flash(response: Response, request: Request) -> None:
    if request.cookies.get(FLASH_COOKIE):
        response.delete_cookie(FLASH_COOKIE, path="/")


KEPT_LIMIT = 2000
"""Characters of a refused form's input carried back to it (the flash is a cookie)."""
NOT_KEPT = ("csrf_token", "command_id", "next", "password", "password2")


def kept_input(form: dict[str, Any] | None) -> dict[str, Any]:
    """What the person typed into a refused form, to fill it in again (never a password)."""
    kept: dict[str, Any] = {}
    budget = KEPT_LIMIT
    for key, value in (form or {}).items():
        if key in NOT_KEPT or budget <= 0:
            continue
        value = [str(v)[:budget] for v in value] if isinstance(value, list) else str(value)[:budget]
        budget -= sum(map(len, value)) if isinstance(value, list) else len(value)
        kept[key] = value
    return kept


def redirect(to: str, *, ok: str | None = None, ok_fields: dict[str, Any] | None = None,
             error: ErrorInfo | None = None, draft: str | None = None,
             form: dict[str, Any] | None = None, action: str = "",
             lang: str = "ru") -> RedirectResponse:
    """303 to ``to`` with a flash: a translated ``ok`` message, or the ``error`` of the form
    posted to ``action`` with its input kept, so the page shows the message beside the field."""
    response = RedirectResponse(safe_next(to), status_code=303)
    data: dict[str, Any] = {}
    if ok:
        data["ok"] = translate(lang, ok, **(ok_fields or {}))
    if error is not None:
        data["error"] = {"code": error.code, "message": error.message, "rule": error.rule,
                         "field": error.field, "action": action, "form": kept_input(form)}
    if draft:
        data["draft"] = draft[:3000]
    if data:
        response.set_cookie(FLASH_COOKIE, quote(json.dumps(data, ensure_ascii=False)), max_age=60,
                            httponly=True, samesite="lax", path="/")
    return response


def flash_context(request: Request) -> dict[str, Any]:
    from urllib.parse import unquote

    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return {}
    try:
        data = json.loads(unquote(raw))
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {"flash": data.get("ok"), "error": data.get("error"), "draft": data.get("draft")}


def safe_next(path: str | None, default: str = "/") -> str:
    """Only local paths: never an open redirect."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return default
    return path
