"""Operating the platform: one JSON log line per request and per command (structlog),
Prometheus metrics at ``/metrics`` (prometheus-client), ``/healthz`` and ``/readyz``.

What is logged or counted is what an operator may know (docs/decisions/ops.md): the
game, the acting seat's user id (command lines only), the route's template (never the raw
path, which names inboxes), the status or refusal code and the latency. Never a message's
text, a command's name or target beside a user id, or anyone's role.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import orjson
import structlog
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..service.observer import ServiceObserver
from .settings import Settings

QUIET_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
"""Probed every few seconds: counted, not logged."""
READY_TIMEOUT = 2.0
GC_BUCKETS = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25)
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

log = structlog.get_logger("lepromafia")


class _Stderr:
    """The standard error of the moment (a test runner swaps ``sys.stderr``): logs never
    mix with a command's output on stdout, and never write to a stream since closed."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


if not structlog.is_configured():  # an app built without `serve` (tests, scripts): still stderr
    structlog.configure(logger_factory=structlog.WriteLoggerFactory(_Stderr()))  # type: ignore[arg-type]


_JSON = json.JSONEncoder(default=repr)


def _json_line(event_dict: Any, **_: Any) -> str:
    """A log entry's JSON, by orjson (a line is written for every command: its encoding
    takes a fifth of ``json``'s encoder's time, the whole line 7.1 → 5.4 µs); non-ASCII as
    itself, a key that is no string as its text, a value JSON cannot hold as its ``repr``,
    as structlog's own fallback does. What orjson refuses (a lone surrogate in a text, an
    integer beyond 64 bits, a tuple as a key) is written by ``json``: a line never fails."""
    try:
        return orjson.dumps(event_dict, default=repr, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return _JSON.encode(event_dict)


def configure_logging(settings: Settings) -> None:
    """structlog renders one line per entry to stderr: JSON in production, readable in a
    terminal (``LEPROMAFIA_LOG_FORMAT=console``); the standard library's records (uvicorn,
    the service) go through the same renderer."""
    level = logging.getLevelNamesMapping().get(settings.log_level.upper(), logging.INFO)
    shared: list[Any] = [structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
                         structlog.processors.TimeStamper(fmt="iso", utc=True)]
    renderer: Any = (structlog.processors.JSONRenderer(serializer=_json_line)
                     if settings.log_format == "json" else structlog.dev.ConsoleRenderer(colors=False))
    # each logger is bound once, at its first line: unbound, every line built a new bound
    # logger through structlog's lazy proxy (a command's line 30 → 16 µs, issue 17). Only a
    # served process configures this; tests keep the default, which capture_logs can swap.
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.WriteLoggerFactory(_Stderr()), cache_logger_on_first_use=True)  # type: ignore[arg-type]
    handler = logging.StreamHandler(_Stderr())
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name]))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level)


class _Count(Collector):
    """A counter read from the process's own tally when scraped."""

    def __init__(self, name: str, documentation: str, read: Callable[[], float]) -> None:
        self.name, self.documentation, self.read = name, documentation, read

    def collect(self) -> Iterable[Metric]:
        yield CounterMetricFamily(self.name, self.documentation, value=self.read())


class Metrics:
    """The process's metrics, in a registry of its own (one per app, so tests can build
    many apps in one process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.commands = Counter("lepromafia_commands", "Commands answered, by outcome",
                                ["outcome"], registry=r)
        self.rejections = Counter("lepromafia_command_rejections", "Commands refused, by code",
                                  ["code"], registry=r)
        self.command_seconds = Histogram("lepromafia_command_seconds", "Command latency to its answer",
                                         buckets=LATENCY_BUCKETS, registry=r)
        self.queue_wait = Histogram("lepromafia_writer_queue_wait_seconds",
                                    "Time a command waited in its writer lane", buckets=LATENCY_BUCKETS,
                                    registry=r)
        self.queue_depth = Gauge("lepromafia_writer_queue_depth", "Jobs queued per writer lane",
                                 ["lane"], registry=r)
        self.deadline_lag = Histogram("lepromafia_deadline_lag_seconds",
                                      "Real seconds a deadline fired after it was due",
                                      buckets=(0.1, 0.5, 1, 2, 5, 10, 30, 60, 300), registry=r)
        self.follows = Counter("lepromafia_writer_follows", "Times a writer lane caught up with "
                               "another worker's commits to a game before writing it", registry=r)
        self.delivered = 0
        """Event frames sent to WebSocket clients: a plain count (``+= 1`` per frame, no
        lock: the fan-out writes thousands a second on the loop's thread), exported as the
        counter ``lepromafia_deliveries_total``."""
        r.register(_Count("lepromafia_deliveries", "Event frames sent to WebSocket clients",
                          lambda: self.delivered))
        self.clients = Gauge("lepromafia_connected_clients", "Open WebSocket connections", registry=r)
        self.requests = Counter("lepromafia_http_requests", "HTTP requests, by route and status",
                                ["method", "route", "status"], registry=r)
        self.request_seconds = Histogram("lepromafia_http_request_seconds", "HTTP request latency",
                                         buckets=LATENCY_BUCKETS, registry=r)
        self.gc_pause = Histogram("lepromafia_gc_pause_seconds", "Garbage collections, by generation: "
                                  "how long each stopped the process", ["generation"],
                                  buckets=GC_BUCKETS, registry=r)

    def render(self, lane_depths: list[int]) -> bytes:
        for lane, depth in enumerate(lane_depths):
            self.queue_depth.labels(lane=str(lane)).set(depth)
        return generate_latest(self.registry)


def watch_gc(metrics: Metrics) -> Callable[[], None]:
    """Time every garbage collection into ``lepromafia_gc_pause_seconds`` (a ``gc.callbacks``
    hook: two perf_counter calls per collection); returns the function that removes it."""
    started = [0.0]
    pause = metrics.gc_pause

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pause.labels(generation=str(info["generation"])).observe(time.perf_counter() - started[0])

    gc.callbacks.append(timed)
    return lambda: gc.callbacks.remove(timed) if timed in gc.callbacks else None


def freeze_after_start_up() -> int:
    """Move every object alive after start-up (modules, routes, templates, the caches'
    first contents) out of the collector's reach (``gc.freeze``): a full collection then
    scans only what requests and sockets create. Returns the objects frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class FreezeSurvivors:
    """After each full collection, freeze its survivors out of the next ones' scans, so a
    full collection scans only what came since the last (issue 17: with 5,000 sockets one
    full collection stopped the server for 0.68 s, the whole tail of its latency). Every
    ``thaw_every`` seconds the frozen objects are thawed instead: the next full collection
    scans everything once, and frees the reference cycles that died while frozen (a closed
    socket's, say), which would otherwise stay. A ``gc.callbacks`` hook; the freeze itself
    runs on the event loop, outside the collector."""

    def __init__(self, loop: asyncio.AbstractEventLoop, thaw_every: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.loop = loop
        self.thaw_every = thaw_every
        self.clock = clock
        self.thawed_at = clock()

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop" or info["generation"] != 2 or self.loop.is_closed():
            return
        if self.clock() - self.thawed_at >= self.thaw_every:
            self.thawed_at = self.clock()
            self.loop.call_soon_threadsafe(gc.unfreeze)
        else:
            self.loop.call_soon_threadsafe(gc.freeze)

    def install(self) -> Callable[[], None]:
        gc.callbacks.append(self)
        return lambda: gc.callbacks.remove(self) if self in gc.callbacks else None


class Observer(ServiceObserver):
    """The service's hooks, into the metrics and the log."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        # each command counts into these children: looked up once, not per command
        self._accepted = metrics.commands.labels(outcome="accepted")
        self._rejected = metrics.commands.labels(outcome="rejected")

    def command(self, game_id: str, actor: str, code: str, seconds: float) -> None:
        m = self.metrics
        if code == "ok":
            self._accepted.inc()
        else:
            self._rejected.inc()
            m.rejections.labels(code=code).inc()
        m.command_seconds.observe(seconds)
        log.info("command", game=game_id, seat=actor, code=code, latency_ms=round(seconds * 1000, 2))

    def queue_wait(self, seconds: float) -> None:
        self.metrics.queue_wait.observe(seconds)

    def deadline_fired(self, lag_seconds: float) -> None:
        self.metrics.deadline_lag.observe(max(0.0, lag_seconds))

    def followed(self, events: int) -> None:
        self.metrics.follows.inc()


class RequestLog:
    """ASGI middleware: one log line and one count per HTTP request: the route's template,
    status, latency and game. No user: a route can name a command or a role's page (a
    mafia kill, a commissar's check), so the one line that names the seat is the
    command's, which names no command."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            seconds = time.perf_counter() - started
            route = _template(scope)
            self.metrics.requests.labels(method=scope["method"], route=route, status=str(status)).inc()
            self.metrics.request_seconds.observe(seconds)
            if scope["path"] not in QUIET_PATHS:
                params = scope.get("path_params", {})
                game = params.get("game_id") or params.get("game")
                log.info("request", method=scope["method"], route=route, status=status, game=game,
                         latency_ms=round(seconds * 1000, 2))


def _template(scope: Scope) -> str:
    """The matched route's template with the prefix its router was included under (the
    API's routes are registered on a sub-router: their ``path`` lacks ``/api``)."""
    template: str | None = getattr(scope.get("route"), "path", None)
    if not template:
        return "unmatched"
    head = template.split("{", 1)[0]
    path: str = scope["path"]
    at = path.find(head) if head else 0
    return path[:at] + template if at > 0 else template


def install(app: FastAPI, settings: Settings) -> Metrics:
    """The request log, ``/healthz``, ``/readyz`` and (if enabled) ``/metrics``."""
    metrics = Metrics()
    app.state.metrics = metrics
    app.add_middleware(RequestLog, metrics=metrics)
    router = APIRouter(include_in_schema=False)

    @router.get("/healthz")
    async def healthz() -> dict[str, str]:
        """The process is alive and its event loop answers."""
        return {"status": "ok"}

    @router.get("/readyz")
    async def readyz(request: Request) -> JSONResponse:
        """Ready to serve: the database (and Redis, when configured) answer within 2 s."""
        web = getattr(request.app.state, "web", None)
        if web is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        checks: dict[str, Callable[[], Awaitable[None]]] = {"database": web.service.store.ping}
        if settings.redis_url:
            checks["redis"] = web.service.broker.ping
        results = {name: await _probe(check) for name, check in checks.items()}
        ready = all(result == "ok" for result in results.values())
        return JSONResponse({"status": "ready" if ready else "unavailable", "checks": results},
                            status_code=200 if ready else 503)

    if settings.metrics:
        @router.get("/metrics")
        async def prometheus(request: Request) -> Response:
            web = getattr(request.app.state, "web", None)
            depths = web.service.lane_depths() if web is not None else []
            return Response(metrics.render(depths), media_type=CONTENT_TYPE_LATEST)

    app.include_router(router)
    return metrics


async def _probe(check: Callable[[], Awaitable[None]]) -> str:
    try:
        async with asyncio.timeout(READY_TIMEOUT):  # not wait_for: it can drop a cancel (3.11)
            await check()
    except Exception as exc:
        log.warning("not ready", reason=type(exc).__name__)
        return "unavailable"
    return "ok"
