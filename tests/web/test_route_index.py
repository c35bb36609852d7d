"""Cheap routing (issue 17): the flattened routes and the index in front of them choose
exactly the route FastAPI's included routers chose, and document the same API."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute, Match

from lepromafia.web import app as app_module
from lepromafia.web import route_index
from lepromafia.web.app import create_app
from lepromafia.web.route_index import RouteIndex, literal_segments


@pytest.fixture(scope="module")
def tree() -> FastAPI:
    """The app as FastAPI builds it: included routers, lazily resolved."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(app_module.route_index, "install", lambda app: None)
        return create_app()


@pytest.fixture(scope="module")
def flat() -> FastAPI:
    return create_app()


def _signature(path: str | None, methods: Any, name: str | None) -> tuple[str, str, str]:
    return (path or "", ",".join(sorted(methods or ())), name or "")


def test_the_flat_list_is_the_included_routes_in_their_order(tree: FastAPI, flat: FastAPI) -> None:
    included = [_signature(c.path, c.methods, c.name) for c in iter_route_contexts(tree.routes)]
    flattened = [_signature(getattr(r, "path", None), getattr(r, "methods", None), getattr(r, "name", None))
                 for r in flat.routes]
    assert len(included) > 200 and flattened == included
    assert len(tree.router.routes) < 20  # the tree: a wrapper per included router


def test_the_openapi_document_is_byte_identical(tree: FastAPI, flat: FastAPI) -> None:
    before = json.dumps(tree.openapi(), sort_keys=False).encode()
    after = json.dumps(flat.openapi(), sort_keys=False).encode()
    assert before == after
    assert b"/api/games/{game_id}/commands/PostMessage" in after


def _sample(path: str) -> str:
    """A concrete path for a template: one segment per parameter, two for a ``path`` one."""
    return re.sub(r"\{[^}:]+(:[^}]+)?\}", lambda m: "a/b" if m.group(1) == ":path" else "x1", path)


def _first(routes: list[BaseRoute], scope: dict[str, Any]) -> tuple[str, BaseRoute | None]:
    partial = None
    for route in routes:
        match, _ = route.matches(dict(scope))
        if match == Match.FULL:
            return "full", route
        if match == Match.PARTIAL and partial is None:
            partial = route
    return ("partial", partial) if partial is not None else ("none", None)


def test_the_index_chooses_the_route_a_full_scan_chooses(flat: FastAPI) -> None:
    """Every route's own sample path, with every method, a trailing slash and unknown paths:
    the candidates' first match is the whole list's (an inbox id may hold slashes, so
    ``…/inboxes/{inbox_id:path}`` would also take ``…/read``: the order decides)."""
    index = flat.router.middleware_stack
    assert isinstance(index, RouteIndex)
    paths = {_sample(r.path) for r in flat.routes if isinstance(getattr(r, "path", None), str)}
    paths |= {p + "/" for p in list(paths)} | {"/", "/nowhere", "/api/nowhere", "/games/g/inboxes/a/b/read",
                                               "/static/htmx.min.js", "/api/games/g/commands/Nope"}
    checked = 0
    for path in sorted(paths):
        for kind, method in (("http", "GET"), ("http", "POST"), ("http", "DELETE"), ("websocket", None)):
            scope = {"type": kind, "path": path, "root_path": "", "headers": [], "query_string": b""}
            if method:
                scope["method"] = method
            candidates = index._router_for(path).routes
            assert _first(candidates, scope) == _first(flat.routes, scope), (kind, method, path)
            checked += 1
    assert checked > 1500


def test_a_few_paths_narrow_to_a_few_candidates(flat: FastAPI) -> None:
    index = flat.router.middleware_stack
    assert isinstance(index, RouteIndex)
    assert len(index._router_for("/api/games/g1/commands/PostMessage").routes) < 10
    assert len(index._router_for("/games/g1/inboxes/city-a/read").routes) < 15
    assert len(index._router_for("/games/g1/inboxes/city-a/read").routes) < len(flat.routes) / 10


def test_literal_segments_stop_at_a_parameter_that_spans_segments() -> None:
    from starlette.routing import Mount, Route

    async def endpoint() -> None: ...

    assert literal_segments(Route("/api/games/{game_id}/commands/PostMessage", endpoint)) == (
        (0, "api"), (1, "games"), (3, "commands"), (4, "PostMessage"))
    assert literal_segments(Route("/games/{game_id}/inboxes/{inbox_id:path}/read", endpoint)) == (
        (0, "games"), (2, "inboxes"))
    assert literal_segments(Route("/files/{name}.json", endpoint)) == ((0, "files"),)
    assert literal_segments(Route("/a/", endpoint)) == ((0, "a"),)  # the slash stays open
    assert literal_segments(Mount("/static", routes=[])) == ((0, "static"),)


def test_a_route_added_after_start_up_is_served() -> None:
    app = create_app()

    @app.get("/later/{thing}")
    async def later(thing: str) -> dict[str, str]:
        return {"thing": thing}

    index = app.router.middleware_stack
    assert isinstance(index, RouteIndex)
    assert index._router_for("/later/x").routes[-1].path == "/later/{thing}"  # type: ignore[attr-defined]


def test_install_flattens_and_puts_the_index_first() -> None:
    app = FastAPI()
    from fastapi import APIRouter

    inner = APIRouter(prefix="/inner", tags=["t"])

    @inner.get("/{item}")
    async def item(item: str) -> dict[str, str]:
        return {"item": item}

    app.include_router(inner)
    route_index.install(app)
    assert [getattr(r, "path", "") for r in app.routes][-1] == "/inner/{item}"
    client = TestClient(app)
    assert client.get("/inner/x").json() == {"item": "x"}
    assert client.get("/nowhere").status_code == 404
    assert client.post("/inner/x").status_code == 405
    assert client.app.url_path_for("item", item="y") == "/inner/y"  # type: ignore[attr-defined]
