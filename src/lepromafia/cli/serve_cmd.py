"""`lepromafia serve`: the web platform on uvicorn (SQLite by default).

The server is hardened against slow and idle clients (F4-6): a request's headers must
arrive within ``--header-timeout`` seconds of its first byte (or of the connection), an
idle keep-alive connection is closed after 5 s, headers are capped at 16 KiB, and beyond
``--max-connections`` open connections new requests get 503 instead of exhausting file
descriptors. ``--workers N`` runs N worker processes on the one port (``cli/workers.py``;
with Redis, docs/deploy.md).
"""

from __future__ import annotations

import asyncio
from typing import Any

import typer

DEMO_TIME_SCALE = 720.0
"""The demo's game runs 720 times faster: a game day in about two minutes."""
HEADER_TIMEOUT = 10.0
MAX_CONNECTIONS = 2000
KEEP_ALIVE = 5
MAX_HEADER_BYTES = 16 * 1024
GRACEFUL_SHUTDOWN = 5
"""Seconds a stopping worker waits for its open requests to finish before it cancels them
and stops: uvicorn's default waits forever, so one client that sent half a request body
kept a worker (and a deploy) from ever stopping, its sweeps still running."""
BODY_IDLE = 30.0
"""Seconds a request body may stand still before its connection is closed (nginx's
``client_body_timeout`` is 60 s; an upload that moves at all is never cut)."""


def header_timeout_protocol(seconds: float, body_idle: float = BODY_IDLE) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol, closing a connection whose request headers are not complete
    ``seconds`` after it opened or after the request's first byte (slowloris), or whose
    request body has not moved for ``body_idle`` seconds (its slow-body variant: the
    request's task would wait for the rest for ever, and hold a stopping worker)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeaderTimeoutProtocol(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None
        _body_moved = 0.0
        """When the body last moved; 0 outside a body."""

        def _arm(self, after: float = seconds) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._header_timer = self.loop.call_later(after, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None
            self._body_moved = 0.0

        def _too_slow(self) -> None:
            self._header_timer = None
            if self._body_moved:
                if self.flow.read_paused:  # the app has not taken what came: not the client's wait
                    self._body_moved = self.loop.time()
                still = self._body_moved + body_idle - self.loop.time()
                if still > 0:
                    self._arm(still)
                    return
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()
            if not self.parser.should_upgrade():  # a body may follow: it must keep moving
                self._arm(body_idle)
                self._body_moved = self.loop.time()

        def on_body(self, body: bytes) -> None:
            if self._body_moved:
                self._body_moved = self.loop.time()
            super().on_body(body)

        def on_message_complete(self) -> None:
            self._disarm()
            super().on_message_complete()

        def on_response_complete(self) -> None:
            self._disarm()
            super().on_response_complete()

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            super().handle_websocket_upgrade()

    return HeaderTimeoutProtocol


def server_config(app: Any, host: str, port: int, *, header_timeout: float = HEADER_TIMEOUT,
                  max_connections: int = MAX_CONNECTIONS, body_idle: float = BODY_IDLE,
                  **options: Any) -> Any:
    import uvicorn

    from ..web.ws.transport import LeanWebSocketProtocol  # issue 17: memory per socket, fan-out

    options.setdefault("ws", LeanWebSocketProtocol)
    return uvicorn.Config(app, host=host, port=port, http=header_timeout_protocol(header_timeout, body_idle),
                          timeout_keep_alive=KEEP_ALIVE, limit_concurrency=max_connections,
                          h11_max_incomplete_event_size=MAX_HEADER_BYTES,
                          ws_per_message_deflate=False,  # ~50 KB and a compression per frame per socket
                          timeout_graceful_shutdown=GRACEFUL_SHUTDOWN, **options)


def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on"),
    port: int = typer.Option(8000, min=1, max=65535),
    demo: bool = typer.Option(False, "--demo", help="Create and run the demo games with bots"),
    time_scale: float = typer.Option(0.0, help="Game time speed-up (default 1; the demo 720)"),
    header_timeout: float = typer.Option(HEADER_TIMEOUT, min=1, help="Seconds a client has to send "
                                         "a request's headers"),
    max_connections: int = typer.Option(MAX_CONNECTIONS, min=10, help="Open connections beyond "
                                        "which new requests get 503"),
    workers: int = typer.Option(1, min=1, max=64, help="Worker processes sharing the port "
                                "(more than one needs LEPROMAFIA_REDIS_URL)"),
) -> None:
    """Serve the web platform: pages, the JSON API (/docs) and the live WebSocket (/ws)."""
    import uvicorn

    from ..web import observability
    from ..web.app import StartupHook, create_app
    from .config import settings as load_settings

    overrides: dict[str, object] = {}
    if demo:
        overrides["demo"] = True
        overrides["time_scale"] = time_scale or DEMO_TIME_SCALE
    elif time_scale:
        overrides["time_scale"] = time_scale
    settings = load_settings(**overrides)
    if workers > 1 and not settings.redis_url:
        raise typer.BadParameter("several workers need LEPROMAFIA_REDIS_URL: each worker's sockets "
                                 "hear the others' events through Redis", param_hint="--workers")
    if workers > 1 and settings.demo:
        raise typer.BadParameter("the demo runs in one worker", param_hint="--workers")
    observability.configure_logging(settings)
    hooks: list[StartupHook] = []
    if settings.demo:
        from .demo_serve import start_demo

        hooks.append(start_demo)

    def server() -> uvicorn.Server:
        app = create_app(settings, startup_hooks=hooks)
        config = server_config(app, host, port, header_timeout=header_timeout,
                               max_connections=max_connections, log_level=settings.log_level,
                               log_config=None, access_log=False)  # our RequestLog writes each request
        return uvicorn.Server(config)

    typer.echo(f"Lepromafia on http://{host}:{port}/  (API docs: /docs)")
    if workers == 1:
        server().run()
        return
    from .workers import supervise

    if settings.auto_migrate:  # once, before any worker starts (not N migrations racing)
        from ..store.migrate import upgrade

        asyncio.run(upgrade(settings.database))
        settings = settings.model_copy(update={"auto_migrate": False})
    supervise(workers, host, port, server)
