"""The test process builds each included router's flat routes once (issue 17: test time).

``create_app`` flattens every included router (``web.route_index.flatten``): about 600
``APIRoute`` objects whose dependants and response fields pydantic builds anew, 0.5-0.7 s of
CPU for every app, and the suite builds an app for nearly every test. The routes are the
same every time: endpoints and dependencies are module-level functions, and the one thing
of the app's own in a flat route is its ``dependency_overrides_provider`` (the app).

``install()`` swaps ``route_index.flatten`` for a memo: per included router (keyed by the
router object itself, held weakly, its structure and the include's options), the flat
routes are built once by the real ``flatten`` and each later app gets shallow copies bound
to it (its own ``dependency_overrides_provider`` and request handler). A router built per
app (``observability.install``'s health and metrics routes, whose endpoints close over that
app's settings and metrics) is a new object every time and so is flattened afresh: nothing
of one app reaches another. ``LEPROMAFIA_ROUTE_CACHE=0`` switches the memo off.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import types
import weakref
from typing import Any

from fastapi import FastAPI
from fastapi._body_limit import wrap_app_with_body_limit
from fastapi.routing import (
    APIRoute,
    APIRouter,
    APIWebSocketRoute,
    _IncludedRouter,
    get_websocket_app,
    request_response,
    websocket_session,
)
from starlette.routing import BaseRoute

from lepromafia.web import route_index

ENABLED = os.environ.get("LEPROMAFIA_ROUTE_CACHE", "1") != "0"
real_flatten = route_index.flatten


@dataclasses.dataclass
class Entry:
    router: weakref.ref[APIRouter]
    shape: tuple[Any, ...]
    options: tuple[Any, ...]
    routes: list[BaseRoute]


entries: dict[int, list[Entry]] = {}
"""id(router) -> what its inclusions flattened to; an entry goes when its router does."""
stats = {"hits": 0, "misses": 0}


def shape(router: APIRouter) -> tuple[Any, ...]:
    """The router's route tree by identity (alive while the router is: it holds them)."""
    out: list[Any] = [router._routes_version]
    for route in router.routes:
        if isinstance(route, _IncludedRouter):
            out.append((id(route), shape(route.original_router)))
        else:
            out.append(id(route))
    return tuple(out)


def options(wrapper: _IncludedRouter) -> tuple[Any, ...]:
    """What ``include_router`` was given (prefix, tags, dependencies...), not the app."""
    context = wrapper.include_context
    return tuple(getattr(context, field.name) for field in dataclasses.fields(context)
                 if field.name not in ("included_router", "dependency_overrides_provider"))


def bind(route: BaseRoute, app: FastAPI) -> BaseRoute:
    """A copy of a memoized route that answers for ``app`` (its dependency overrides)."""
    route = copy.copy(route)
    if isinstance(route, APIRoute):
        route.dependency_overrides_provider = app
        route.app = wrap_app_with_body_limit(request_response(route.get_route_handler()),
                                             route.max_body_size)
    elif isinstance(route, APIWebSocketRoute):
        route.app = websocket_session(get_websocket_app(
            dependant=route.dependant, dependency_overrides_provider=app,
            embed_body_fields=route._embed_body_fields))
    else:  # the real flatten refuses any other included route
        raise TypeError(f"cannot bind a {type(route).__name__}")
    return route


def included(wrapper: _IncludedRouter, app: FastAPI) -> list[BaseRoute]:
    router = wrapper.original_router
    key, now, given = id(router), shape(router), options(wrapper)
    for entry in entries.get(key, []):
        if entry.router() is router and entry.shape == now and entry.options == given:
            stats["hits"] += 1
            return [bind(route, app) for route in entry.routes]
    stats["misses"] += 1
    stand_in = types.SimpleNamespace(router=types.SimpleNamespace(routes=[wrapper]))
    real_flatten(stand_in)  # type: ignore[arg-type]  # only .router.routes is read
    built: list[BaseRoute] = stand_in.router.routes

    def forget(_: object, key: int = key) -> None:
        entries[key] = [e for e in entries.get(key, []) if e.router() is not None]
        if not entries[key]:
            del entries[key]

    entries.setdefault(key, []).append(Entry(weakref.ref(router, forget), now, given, built))
    return [bind(route, app) for route in built]


def flatten(app: FastAPI) -> None:
    """``route_index.flatten`` with each included router's routes memoized."""
    routes: list[BaseRoute] = []
    for route in app.router.routes:
        if isinstance(route, _IncludedRouter):
            routes.extend(included(route, app))
        else:
            routes.append(route)  # the app's own route (a mount, /docs)
    app.router.routes[:] = routes


def install() -> None:
    if ENABLED:
        route_index.flatten = flatten
