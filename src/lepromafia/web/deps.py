"""Request dependencies: the service, the viewer, his language, CSRF tokens.

Names here are the contract for ``web/api`` and ``web/pages``:
``WebDep``, ``ServiceDep``, ``CurrentUser``, ``RequireUser``, ``Lang``, ``csrf_token``,
``verify_csrf`` (``CsrfChecked``), ``verify_command_csrf`` (``CommandCsrfChecked``),
``access_game_for_action``, ``set_session_cookie``,
``clear_session_cookie``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request, Response

from ..engine.state import GameState
from ..service.accounts import AccountService, Session, SessionExpired, User
from ..service.archive import Archives
from ..service.errors import ServiceError, ServiceErrorCode
from ..service.notify.service import NotifyService
from ..service.queries import GameQueries
from ..service.service import GameService
from .errors import WebError, WebErrorCode
from .i18n import normalize
from .settings import WebSettings

if TYPE_CHECKING:
    import asyncio

    from .observability import Metrics

SESSION_COOKIE = "lepromafia_session"
CSRF_COOKIE = "lepromafia_csrf"
CSRF_FIELD = "csrf_token"
COMMAND_FIELD = "command_id"
CSRF_HEADER = "x-csrf-token"
CSRF_TTL = 4 * 3600.0
LANG_COOKIE = "lang"


@dataclass
class Web:
    """Everything a request needs, built once by ``create_app``'s lifespan."""

    settings: WebSettings
    service: GameService
    accounts: AccountService
    queries: GameQueries
    archives: Archives
    metrics: Metrics | None = None
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    notify: NotifyService | None = None
    ws_admission: asyncio.Semaphore | None = None
    """The WebSocket admission gate (``web.ws.endpoint.admission``), made on first use."""
    pushed: Any = None
    """The pushed-content cache (``web.ws.content.pushed_content``), made on first use."""
    read_gate: Any = None
    """The socket read reports' in-memory checks (``web.ws.reads.read_gate``), made on first use."""

    def now(self) -> float:
        return self.service.clock.now()


def get_web(request: Request) -> Web:
    web: Web = request.app.state.web
    return web


def get_service(request: Request) -> GameService:
    return get_web(request).service


# FastAPI runs a plain ``def`` dependency in its thread pool: one thread hop per request
# and dependency (measured on the vote rush, docs/performance.md "Capacity targets").
# These read an attribute, so they run on the event loop.


async def _web_dependency(request: Request) -> Web:
    return get_web(request)


async def _service_dependency(request: Request) -> GameService:
    return get_web(request).service


WebDep = Annotated[Web, Depends(_web_dependency)]
ServiceDep = Annotated[GameService, Depends(_service_dependency)]


# --- the viewer -----------------------------------------------------------------------


def session_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.cookies.get(SESSION_COOKIE)


async def current_user(request: Request) -> User | None:
    """The logged-in user, or None (an expired session sets ``request.state.session_expired``)."""
    if hasattr(request.state, "user"):
        cached: User | None = request.state.user
        return cached
    user: User | None = None
    request.state.session_expired = False
    try:
        user = await get_web(request).accounts.resolve(session_token(request))
    except SessionExpired:
        request.state.session_expired = True
    request.state.user = user
    return user


async def require_user(request: Request) -> User:
    user = await current_user(request)
    if user is None:
        expired = getattr(request.state, "session_expired", False)
        raise WebError(WebErrorCode.SESSION_EXPIRED if expired else WebErrorCode.UNAUTHENTICATED)
    return user


CurrentUser = Annotated[User | None, Depends(current_user)]
RequireUser = Annotated[User, Depends(require_user)]


def get_lang(request: Request) -> str:
    """``?lang=`` first, then the ``lang`` cookie; Russian by default."""
    return normalize(request.query_params.get("lang") or request.cookies.get(LANG_COOKIE))


async def _lang_dependency(request: Request) -> str:
    return get_lang(request)


Lang = Annotated[str, Depends(_lang_dependency)]


def set_session_cookie(response: Response, session: Session, settings: WebSettings) -> None:
    response.set_cookie(SESSION_COOKIE, session.token, max_age=int(settings.session_ttl_hours * 3600),
                        httponly=True, samesite="lax", secure=settings.cookie_secure, path="/")


def clear_session_cookie(response: Response, settings: WebSettings) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax",
                           secure=settings.cookie_secure)


# --- CSRF: signed, bound to the browser's CSRF cookie, one-time ------------------------


def _csrf_seed(request: Request) -> str:
    seed = getattr(request.state, "csrf_seed", None) or request.cookies.get(CSRF_COOKIE) or ""
    return str(seed)


def _mac(key: bytes, seed: str, nonce: str, expires: int) -> str:
    return hmac.new(key, f"{seed}|{nonce}|{expires}".encode(), hashlib.sha256).hexdigest()[:40]


def csrf_token(request: Request) -> str:
    """A fresh one-time token for a form (hidden field ``csrf_token``)."""
    web = get_web(request)
    nonce = secrets.token_hex(16)
    expires = int(web.now() + CSRF_TTL)
    return f"{nonce}.{expires}.{_mac(web.settings.signing_key(), _csrf_seed(request), nonce, expires)}"


async def verify_csrf(request: Request) -> None:
    """Reject a form without a valid, unused token bound to this browser (header
    ``X-CSRF-Token`` also accepted)."""
    await _verify_csrf(request, retry=False)


async def verify_command_csrf(request: Request) -> None:
    """``verify_csrf`` for a form that sends one engine command: a browser's retry of the
    very same form (its token already used) passes if it carries the command id the form
    was rendered with (the token's own nonce, see ``csrf_field``). The service then answers
    the retry with the first attempt's result, so it has one effect, as an API retry."""
    await _verify_csrf(request, retry=True)


def form_command_id(token: str) -> str:
    """The command id a rendered form carries: its CSRF token's nonce."""
    return token.split(".", 1)[0]


async def _verify_csrf(request: Request, retry: bool) -> None:
    token = request.headers.get(CSRF_HEADER)
    form: Any = None
    ctype = request.headers.get("content-type", "")
    if ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()
    if token is None and form is not None:
        value = form.get(CSRF_FIELD)
        token = value if isinstance(value, str) else None
    web = get_web(request)
    parts = (token or "").split(".")
    if len(parts) != 3 or not parts[1].isdigit():
        raise WebError(WebErrorCode.CSRF_INVALID)
    nonce, expires_text, mac = parts
    expires = int(expires_text)
    seed = request.cookies.get(CSRF_COOKIE) or ""
    expected = _mac(web.settings.signing_key(), seed, nonce, expires)
    if not seed or not hmac.compare_digest(mac, expected) or expires <= web.now():
        raise WebError(WebErrorCode.CSRF_INVALID)
    sent_id = form.get(COMMAND_FIELD) if retry and form is not None else None
    if sent_id is not None:
        # A command form carries this token's nonce as its command id, so the service's
        # idempotency makes every replay of it one effect: no nonce row is needed. Any
        # other command id under this token is refused (one token, one command).
        if sent_id == nonce:
            return
        raise WebError(WebErrorCode.CSRF_INVALID)
    if await web.accounts.consume_nonce(nonce, float(expires)):
        return
    raise WebError(WebErrorCode.CSRF_INVALID)


async def verify_reusable_csrf(request: Request) -> None:
    """A token bound to this browser (header ``X-CSRF-Token``), not consumed: only for a
    request whose repetition changes nothing (the batched read marker, issue 17), so a page
    may send it every few seconds with the token it was rendered with."""
    parts = (request.headers.get(CSRF_HEADER) or "").split(".")
    seed = request.cookies.get(CSRF_COOKIE) or ""
    if len(parts) != 3 or not parts[1].isdigit() or not seed:
        raise WebError(WebErrorCode.CSRF_INVALID)
    nonce, expires, mac = parts
    expected = _mac(get_web(request).settings.signing_key(), seed, nonce, int(expires))
    if not hmac.compare_digest(mac, expected) or int(expires) <= get_web(request).now():
        raise WebError(WebErrorCode.CSRF_INVALID)


CsrfChecked = Depends(verify_csrf)
ReusableCsrfChecked = Depends(verify_reusable_csrf)
CommandCsrfChecked = Depends(verify_command_csrf)


# --- games ----------------------------------------------------------------------------


async def access_game_for_action(web: Web, user: User | None, game_id: str) -> GameState:
    """The game's current state for a viewer about to act: 404 for an unknown game,
    401 without a user. What he may do is the engine's decision, not this function's."""
    if user is None:
        raise WebError(WebErrorCode.UNAUTHENTICATED)
    try:
        return await web.service.state(game_id)
    except ServiceError as exc:
        if exc.code is ServiceErrorCode.UNKNOWN_GAME:
            raise WebError(WebErrorCode.NOT_FOUND, what=game_id) from exc
        raise
