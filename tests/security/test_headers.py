"""F4-1, F4-5: every response carries the security headers; cookies are Secure in
production and over HTTPS.

Cast: the web tests' small game «g». Every route of the app (pages, API, docs, static
files, error pages) is requested by an anonymous visitor and by a resident.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.routing import Mount, Route

from tests.web.conftest import Api, make_api, setup_game_via_api, small_cast

CAST = small_cast()
CITY = next(iter(CAST.cities))
RESIDENT = CAST.cities[CITY][1]
TEMPLATES = Path(__file__).parents[2] / "src/lepromafia/web/templates"


def concrete(path: str, api: Api) -> str:
    s = api.state("g")
    values = {"game_id": "g", "inbox_id": s.current_inbox("city", CITY), "subject": RESIDENT,
              "city": CITY, "office": "procurator", "media_id": "0" * 64, "name": "x"}
    return re.sub(r"\{(\w+)(:path)?\}", lambda m: values.get(m.group(1), "x"), path)


def routes(items: Any, prefix: str = "") -> Iterator[tuple[str, set[str]]]:
    """Every route with its full path (FastAPI keeps included routers nested)."""
    for route in items:
        if hasattr(route, "original_router"):
            yield from routes(route.original_router.routes, prefix + route.include_context.prefix)
        elif isinstance(route, Route):
            yield prefix + route.path, set(route.methods or ())
        elif isinstance(route, Mount):
            yield prefix + route.path + "/css/app.css", {"GET"}


def every_get_path(api: Api) -> list[str]:
    found = routes(api.client.app.routes)  # type: ignore[attr-defined]
    paths = sorted({concrete(path, api) for path, methods in found if "GET" in methods})
    return [*paths, "/no-such-page", "/api/no-such-route"]


def assert_secured(r: Any, path: str) -> None:
    h = r.headers
    csp = h.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in csp or "sandbox" in csp, (path, csp)
    script = re.search(r"script-src ([^;]*)", csp)
    if script:
        assert "'unsafe-inline'" not in script.group(1), (path, csp)
    assert h.get("x-content-type-options") == "nosniff", path
    assert h.get("referrer-policy") == "same-origin", path


def test_every_route_sends_a_csp_without_inline_script_nosniff_and_a_referrer_policy(api: Api) -> None:
    """F4-1 on every GET route (200, 401, 404, 409 alike), anonymous and as a resident."""
    setup_game_via_api(api, "g", CAST)
    paths = every_get_path(api)
    assert len(paths) > 30
    for user in (None, RESIDENT):
        for path in paths:
            r = api.get(user, path)
            assert r.status_code < 500, (path, r.status_code)
            assert_secured(r, path)
    r = api.post(RESIDENT, "/api/games/g/commands/PostMessage", {"command_id": "x"})
    assert_secured(r, "POST PostMessage (422)")
    assert "strict-transport-security" not in r.headers  # plain HTTP: no HSTS


def test_the_api_docs_page_runs_only_its_own_hashed_bootstrap_script(api: Api) -> None:
    """F4-1: /docs keeps working under a CSP: its one inline script is allowed by hash."""
    r = api.client.get("/docs")
    csp = r.headers["content-security-policy"]
    assert r.status_code == 200 and "'sha256-" in csp and "'unsafe-inline'" not in csp.split("style-src")[0]


def test_no_template_holds_an_inline_script_or_event_handler() -> None:
    """F4-1: the CSP forbids inline script, so the templates must not need any."""
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template
        assert not re.search(r"\son[a-z]+\s*=", text), template
        assert "javascript:" not in text, template


def test_over_https_hsts_is_sent_and_every_cookie_is_secure(api: Api) -> None:
    """F4-1 (HSTS), F4-5: a request that came over HTTPS gets HSTS and Secure cookies."""
    from fastapi.testclient import TestClient

    secure = TestClient(api.client.app, base_url="https://testserver")  # type: ignore[arg-type]
    api.register("newcomer", "a long enough password")
    r = secure.post("/api/auth/login", json={"login": "newcomer", "password": "a long enough password"},
                    headers={"authorization": "Bearer -"})
    assert r.status_code == 200, r.text
    assert r.headers["strict-transport-security"].startswith("max-age=")
    cookies = r.headers.get_list("set-cookie")
    assert cookies and all("Secure" in c for c in cookies), cookies


def test_in_production_every_cookie_is_secure_even_behind_plain_http(tmp_path: Path) -> None:
    """F4-5: ``LEPROMAFIA_ENVIRONMENT=prod`` forces Secure cookies (TLS ends at the proxy)."""
    from cryptography.fernet import Fernet

    for api in make_api(tmp_path, environment="prod", secret_key="s" * 32,
                        contact_key=Fernet.generate_key().decode()):
        api.register("newcomer", "a long enough password")
        r = api.client.post("/api/auth/login", json={"login": "newcomer", "password": "a long enough password"},
                            headers={"authorization": "Bearer -"})
        cookies = r.headers.get_list("set-cookie")
        assert cookies and all("Secure" in c for c in cookies), cookies
