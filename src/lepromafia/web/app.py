"""The composition root: ``create_app(settings)`` builds everything; nothing at import.

The lifespan opens the store (migrating it if ``auto_migrate``), starts the
``GameService`` and the account service, builds the one per-process ``EventIndex`` that
every read of a game's events shares (queries and archives), runs the start-up hooks
(``app.state.startup_hooks``: the demo uses one), and stops it all on shutdown.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..service.accounts import AccountPolicy, AccountService
from ..service.archive import Archives
from ..service.clock import Clock
from ..service.event_index import EventIndex
from ..service.queries import GameQueries
from ..service.service import GameService
from ..service.warmup import warm_up
from ..store.accounts import AccountStore
from ..store.event_store import EventStore
from . import errors, observability, route_index
from .api import archive, sound, transparency
from .deps import CSRF_COOKIE, LANG_COOKIE, Web
from .i18n import LANGUAGES
from .notify_setup import start_notifications
from .security import Edge

if TYPE_CHECKING:  # imported when used: alembic and redis cost ~0.8 s of CPU at start-up
    from ..service.redis_bus import RedisBroker
from .settings import WebSettings

STATIC_DIR = Path(__file__).parent / "static"
StartupHook = Callable[[Web], Awaitable[None]]


SWAGGER_UI = "/static/vendor/swagger-ui"
"""Swagger UI from the npm registry (swagger-ui-dist), copied by the Makefile: /docs works
offline and under a CSP without any CDN."""


def install_docs(app: FastAPI) -> None:
    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url or "/openapi.json",
                                   title=f"{app.title} · API",
                                   swagger_js_url=f"{SWAGGER_UI}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{SWAGGER_UI}/swagger-ui.css",
                                   swagger_favicon_url="/static/favicon.svg")


def create_app(settings: WebSettings | None = None, *, clock: Clock | None = None,
               startup_hooks: list[StartupHook] | None = None) -> FastAPI:
    settings = settings or WebSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.auto_migrate:
            from ..store.migrate import upgrade  # alembic: only when migrating (start-up time)

            await upgrade(settings.database)
        options: dict[str, Any] = {"sweep_interval": settings.sweep_interval,
                                   "lanes": settings.writer_lanes}
        if clock is not None:
            options["clock"] = clock
        broker: RedisBroker | None = None
        if settings.redis_url:  # several workers: fan events out through Redis
            from ..service.redis_bus import RedisBroker  # redis: only with several workers

            broker = RedisBroker(settings.redis_url)
            await broker.start()
            options["broker"] = broker
        # Without Redis this is the only worker (serve_cmd.py refuses --workers without it):
        # no other process writes games, so reads need not ask the store for the version.
        service = GameService(EventStore.open(settings.database), sole_writer=broker is None,
                              **options)
        service.observer = observability.Observer(metrics)
        await service.start()
        store = AccountStore(service.store)
        policy = AccountPolicy(session_ttl_seconds=settings.session_ttl_hours * 3600,
                               session_idle_seconds=settings.session_idle_hours * 3600,
                               max_failures=settings.login_max_failures,
                               max_failures_per_account=settings.login_max_failures_per_account,
                               max_failures_per_ip=settings.login_max_failures_per_ip,
                               registrations_per_ip=settings.registrations_per_ip_per_hour,
                               failure_window_seconds=settings.login_window_minutes * 60,
                               argon2_time_cost=settings.argon2_time_cost,
                               argon2_memory_kib=settings.argon2_memory_kib,
                               session_cache_seconds=settings.session_cache_seconds)
        accounts = AccountService(store, settings.fernet_key(), clock=service.clock, policy=policy)
        if broker is not None:  # a session ended on one worker is forgotten by all at once
            accounts.on_evict = broker.publish_eviction
            broker.on_eviction = accounts.evict
            broker.on_resubscribed = accounts.evict_all
        events = EventIndex(service.store, max_games=settings.cached_games)
        web = Web(settings, service, accounts, GameQueries(service, store, events),
                  Archives(service, events), metrics=metrics)
        web.notify, dispatcher = start_notifications(settings, service)
        if broker is not None and web.notify is not None:  # a bell reaches the socket's worker
            web.notify.bells.relay = broker.publish_ring
            broker.on_ring = web.notify.bells.ring_here
        app.state.web = web
        for hook in app.state.startup_hooks:
            await hook(web)
        unwatch_gc = observability.watch_gc(metrics)
        unfreeze_survivors: Callable[[], None] = lambda: None  # noqa: E731
        if settings.gc_freeze:
            observability.freeze_after_start_up()
            unfreeze_survivors = observability.FreezeSurvivors(
                asyncio.get_running_loop(), settings.gc_thaw_hours * 3600).install()
        # cached sessions read again in bulk before they are due (a reconnect storm's)
        web.tasks.append(asyncio.create_task(accounts.refresh_sessions_forever()))
        if settings.warm_up:  # issue 17: a restart's first visitors do not pay every game's load
            web.tasks.append(asyncio.create_task(warm_up(service, events, limit=settings.cached_games)))
        try:
            yield
        finally:
            unwatch_gc()
            unfreeze_survivors()
            if settings.gc_freeze:  # back in reach (tests build many apps in one process)
                gc.unfreeze()
            for task in web.tasks:
                task.cancel()
            for task in web.tasks:
                with suppress(asyncio.CancelledError, Exception):
                    await task
            await dispatcher.stop()
            with suppress(Exception):  # the sockets' last read markers (web.ws.reads)
                await web.queries.read_marks.flush()
            await service.close()
            if broker is not None:
                await broker.close()

    # FastAPI's own OpenTelemetry is off: /metrics and the JSON request log are ours, and
    # its check ran on every request (issue 17: the cost of a request)
    app = FastAPI(title="Lepromafia", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="The Lepromafia game platform: accounts, games, every engine command.",
                  telemetry={"tracing": False, "metrics": False, "logs": False})
    install_docs(app)
    app.state.settings = settings
    app.state.startup_hooks = list(startup_hooks or [])
    app.state.render_error = None
    errors.install(app)
    app.add_middleware(HeadAsGet)
    app.add_middleware(OneReadPerRequest)
    app.add_middleware(Limits, secure=settings.cookie_secure)
    app.add_middleware(Edge, max_body=settings.max_body_bytes, max_upload=settings.max_upload_bytes,
                       is_upload=_is_upload, production=settings.environment == "prod",
                       secure_cookies=settings.cookie_secure)
    metrics = observability.install(app, settings)  # outermost: times and counts everything
    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    from .api import router as api_router
    from .ws import router as ws_router

    app.include_router(api_router)
    app.include_router(ws_router)
    # Sound Library and archives: outside the guarded /api router, whose guard refuses
    # multipart uploads (they carry their own CSRF check).
    app.include_router(sound.router)
    app.include_router(archive.router)
    app.include_router(transparency.router)
    try:
        pages = importlib.import_module("lepromafia.web.pages")
    except ModuleNotFoundError as exc:
        if exc.name != "lepromafia.web.pages":
            raise
    else:
        app.include_router(pages.router)
    route_index.install(app)  # last: every route registered (FastAPI's lazy includes flattened)
    return app


def _is_upload(path: str) -> bool:
    """A Sound Library media upload: /api/games/<game>/sound/media (SOUND, 3-minute audio)."""
    parts = path.strip("/").split("/")
    return len(parts) == 5 and parts[:2] == ["api", "games"] and parts[3:] == ["sound", "media"]


class OneReadPerRequest:
    """ASGI middleware: each HTTP request reads the store in one transaction (one
    ``BEGIN``, one snapshot), ended before any write it makes (``EventStore.read_scope``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        web = getattr(scope.get("app"), "state", None)
        web = getattr(web, "web", None) if web is not None else None
        if scope["type"] != "http" or web is None:
            await self.app(scope, receive, send)
            return
        async with web.service.store.read_scope():
            await self.app(scope, receive, send)


class HeadAsGet:
    """ASGI middleware: ``HEAD`` answers as ``GET`` would, headers only (RFC 9110 §9.3.2);
    FastAPI's GET routes alone would answer 405 (monitors and link checkers send HEAD)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {"type": "http.response.body", "body": b"",
                           "more_body": message.get("more_body", False)}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class Limits:
    """ASGI middleware: the browser's CSRF cookie (set once, HttpOnly, SameSite=Lax) and
    ``?lang=`` remembered in the ``lang`` cookie. Body limits, text checks and security
    headers are ``security.Edge``'s."""

    def __init__(self, app: ASGIApp, secure: bool) -> None:
        self.app = app
        self.secure = "; Secure" if secure else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        cookies = _cookies(headers.get("cookie", ""))
        extra: list[tuple[bytes, bytes]] = []
        if not cookies.get(CSRF_COOKIE):
            seed = secrets.token_urlsafe(24)
            scope.setdefault("state", {})["csrf_seed"] = seed
            extra.append((b"set-cookie", f"{CSRF_COOKIE}={seed}; Path=/; HttpOnly; SameSite=Lax"
                                         f"{self.secure}".encode()))
            # the token rendered on this very response binds to the new cookie
            headers["cookie"] = f"{headers.get('cookie', '')}; {CSRF_COOKIE}={seed}".lstrip("; ")
            scope["headers"] = [(k, v) for k, v in scope["headers"] if k.lower() != b"cookie"] + [
                (b"cookie", headers["cookie"].encode("latin-1"))]
        lang = _query_lang(scope.get("query_string", b"").decode("latin-1"))
        if lang and cookies.get(LANG_COOKIE) != lang:
            extra.append((b"set-cookie", f"{LANG_COOKIE}={lang}; Path=/; Max-Age=31536000; "
                                         f"SameSite=Lax{self.secure}".encode()))
        if not extra:  # most requests: no wrapper around every send
            await self.app(scope, receive, send)
            return

        async def send_with_cookies(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_cookies)


def _cookies(header: str) -> dict[str, str]:
    out = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name:
            out[name] = value
    return out


def _query_lang(query: str) -> str | None:
    for part in query.split("&"):
        name, _, value = part.partition("=")
        if name == "lang" and value in LANGUAGES:
            return value
    return None
