"""Cheap routing (issue 17): the app's routes as one flat list, and an index in front of it.

FastAPI 0.137+ keeps ``include_router`` lazy: the app's route list holds one wrapper per
included router, and every request walks those wrappers, resolving each candidate's
context as it goes, twice (once to match, once to handle), before it reaches its route:
≈ 0.55–0.86 ms of CPU per request for our 205 routes, a third of a request's cost.

- ``flatten(app)`` replaces the wrappers, once at start-up, by plain routes built from what
  each inclusion resolves to (its prefix, dependencies, tags, responses...) with FastAPI's
  public ``APIRoute`` / ``APIWebSocketRoute`` constructors, as FastAPI ≤ 0.136 did on
  every include. The OpenAPI document stays byte-identical (tests/web/test_route_index.py).
- ``RouteIndex`` sits in front of the router and hands it only the routes that can match:
  a route whose path has literal segments (``/api/games/{game_id}/commands/PostMessage``)
  can only match a path with the same segments at the same places. The candidates keep
  their order (first match wins, as before); FastAPI's router does the matching itself.
"""

from __future__ import annotations

import copy
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute, APIRouter, APIWebSocketRoute, iter_route_contexts
from starlette._utils import get_route_path
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

ONE_SEGMENT = frozenset({"str", "int", "float", "uuid"})
"""Convertors that match within one segment; after any other (``path``) places shift."""
MAX_KEYS = 1024
"""Distinct path shapes remembered (the shapes are bounded by the routes' literals)."""


def flatten(app: FastAPI) -> None:
    """The app's routes without included-router wrappers, in the same order."""
    routes: list[BaseRoute] = []
    own = {id(route) for route in app.router.routes}
    for context in iter_route_contexts(app.router.routes):
        route = context.original_route
        if id(route) in own:
            routes.append(route)  # the app's own route (a mount, /docs)
        elif isinstance(route, APIRoute):
            routes.append(_api_route(app, context, route))
        elif isinstance(route, APIWebSocketRoute):
            routes.append(APIWebSocketRoute(context.path or route.path, route.endpoint, name=route.name,
                                            dependencies=context.dependencies,
                                            dependency_overrides_provider=app))
        else:  # a kind of route our routers do not register: fail at start-up, not at request
            raise TypeError(f"cannot flatten an included {type(route).__name__} ({context.path})")
    app.router.routes[:] = routes


def _api_route(app: FastAPI, context: Any, route: APIRoute) -> APIRoute:
    """A route standing alone with what its inclusion gave it (FastAPI's own resolution)."""
    return APIRoute(
        context.path, route.endpoint, response_model=context.response_model,
        status_code=context.status_code, tags=context.tags, dependencies=context.dependencies,
        summary=context.summary, description=context.description,
        response_description=context.response_description, responses=context.responses,
        deprecated=context.deprecated, name=context.name, methods=context.methods,
        operation_id=context.operation_id, response_model_include=context.response_model_include,
        response_model_exclude=context.response_model_exclude,
        response_model_by_alias=context.response_model_by_alias,
        response_model_exclude_unset=context.response_model_exclude_unset,
        response_model_exclude_defaults=context.response_model_exclude_defaults,
        response_model_exclude_none=context.response_model_exclude_none,
        include_in_schema=context.include_in_schema, response_class=context.response_class,
        dependency_overrides_provider=app, callbacks=context.callbacks,
        openapi_extra=context.openapi_extra,
        generate_unique_id_function=context.generate_unique_id_function,
        strict_content_type=context.strict_content_type, max_body_size=context.max_body_size,
        form_limits=route.form_limits or None)


def literal_segments(route: BaseRoute) -> tuple[tuple[int, str], ...]:
    """``(place, text)`` of each literal segment a path must have for the route to match."""
    path = getattr(route, "path", None)
    if not isinstance(path, str) or not isinstance(route, Route | WebSocketRoute | Mount):
        return ()  # a host route, another router: no constraint
    out = []
    for place, segment in enumerate(path.split("/")[1:]):
        if "{" in segment:
            convertor = segment.strip("{}").partition(":")[2] or "str"
            if not (segment.startswith("{") and segment.endswith("}")) or convertor not in ONE_SEGMENT:
                break  # a parameter that may span segments: later places are unknown
            continue
        if segment:  # an empty last segment (a trailing slash) stays open: redirect_slashes
            out.append((place, segment))
    return tuple(out)


class RouteIndex:
    """The router's entry point (``router.middleware_stack``): the same router, over the
    routes that can match this path. Rebuilt when the route list changes (a test adding
    a route after start-up)."""

    def __init__(self, router: APIRouter) -> None:
        self.router = router
        self.built_for: tuple[int, int] = (0, -1)
        self._build()

    def _build(self) -> None:
        routes = self.router.routes
        self.built_for = (id(routes), len(routes))
        self.constraints = [(route, literal_segments(route)) for route in routes]
        self.known: list[set[str]] = []
        for _, literals in self.constraints:
            for place, text in literals:
                while len(self.known) <= place:
                    self.known.append(set())
                self.known[place].add(text)
        self.routers: dict[tuple[str | None, ...], APIRouter] = {}

    def _router_for(self, path: str) -> APIRouter:
        if (id(self.router.routes), len(self.router.routes)) != self.built_for:
            self._build()
        segments = path.split("/")[1:len(self.known) + 1]
        key = tuple(s if s in known else None for s, known in zip(segments, self.known, strict=False))
        router = self.routers.get(key)
        if router is None:
            router = copy.copy(self.router)
            router.routes = [route for route, literals in self.constraints
                             if all(place < len(key) and key[place] == text for place, text in literals)]
            if len(self.routers) < MAX_KEYS:
                self.routers[key] = router
        return router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.router.app(scope, receive, send)
            return
        scope.setdefault("router", self.router)  # url_for sees every route, not the candidates
        await self._router_for(get_route_path(scope)).app(scope, receive, send)


def install(app: FastAPI) -> None:
    """Flatten the app's routes and put the index in front of its router."""
    flatten(app)
    index: ASGIApp = RouteIndex(app.router)
    app.router.middleware_stack = index  # type: ignore[assignment]  # any ASGI app will do
