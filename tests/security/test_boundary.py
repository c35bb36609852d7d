"""F6-1, F6-2, F1-1, F4-7, F5-1: what the edge refuses, and how.

Cast: the web tests' small game «g» (two cities of six). A resident tries to post a NUL
byte and a lone surrogate through every door — the JSON API, a page form, a query
parameter, a path, the WebSocket — and gets a coded, translated 422 each time; nothing
reaches the store. Oversized bodies get 413 whether declared or chunked; integer
parameters past the stores' range get 422; a full disk answers 503 with Retry-After.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lepromafia.web.security import frame_ok, json_ok
from tests.web.conftest import Api, setup_game_via_api, small_cast

CAST = small_cast()
CITY = next(iter(CAST.cities))
RESIDENT = CAST.cities[CITY][1]
BAD_TEXTS = {"nul": "evil\u0000nul", "surrogate": "\ud800", "reversed pair": "\udfff\ud800"}


def raw_json(value: Any) -> bytes:
    """JSON as an attacker writes it: lone surrogates as ``\\ud800`` escapes."""
    return json.dumps(value, ensure_ascii=True).encode()


def post_raw(api: Api, user: str | None, path: str, body: bytes, ctype: str = "application/json",
             **headers: str) -> Any:
    h = {"content-type": ctype, **api.headers(user), **headers}
    return api.client.post(path, content=body, headers=h)


def messages(api: Api) -> int:
    model = api.client.portal.call(api.web.service.store.read_model, "g")  # type: ignore[union-attr]
    return len(model["messages"])


@pytest.fixture
def game(api: Api) -> Iterator[Api]:
    setup_game_via_api(api, "g", CAST)
    yield api


@pytest.mark.parametrize("name", list(BAD_TEXTS))
def test_a_post_with_a_nul_or_a_lone_surrogate_is_refused_with_a_coded_422(game: Api, name: str) -> None:
    """F6-1, F6-2: PostMessage through the JSON API: 422 ``text_invalid``, in Russian and
    English, and the message count does not move."""
    s = game.state("g")
    before = messages(game)
    body = {"command_id": "c1", "inbox": s.current_inbox("city", CITY), "text": BAD_TEXTS[name]}
    r = post_raw(game, RESIDENT, "/api/games/g/commands/PostMessage", raw_json(body))
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "text_invalid"
    assert "нулевой байт" in r.json()["error"]["message"]
    en = post_raw(game, RESIDENT, "/api/games/g/commands/PostMessage?lang=en", raw_json(body))
    assert "NUL byte" in en.json()["error"]["message"]
    assert messages(game) == before


@pytest.mark.parametrize("field", ["login", "password"])
def test_an_anonymous_login_with_a_nul_byte_is_refused_before_the_store(api: Api, field: str) -> None:
    """F6-1: the anonymous login of the review (500 on PostgreSQL) is a 422 now."""
    body = {"login": "someone", "password": "a long password", field: "nul\u0000byte"}
    r = post_raw(api, None, "/api/auth/login", raw_json(body))
    assert (r.status_code, r.json()["error"]["code"]) == (422, "text_invalid")


def test_nul_and_broken_unicode_in_paths_and_query_parameters_are_refused(game: Api) -> None:
    """F6-1: ``/api/games/%00``, an encoded surrogate and invalid UTF-8 in a query."""
    for path in ("/api/games/%00", "/api/games/%ED%A0%80", "/games/%00",
                 "/api/games/g/events?since=1&x=%00", "/api/games?q=%FF%FE"):
        r = game.client.get(path)
        assert r.status_code == 422, (path, r.status_code)
        assert "нулевой байт" in r.text, path


def test_a_page_form_with_a_nul_byte_is_refused_with_a_translated_page(game: Api) -> None:
    """F6-1 on the page forms: the form body is checked like JSON."""
    r = game.client.post("/login", content=b"login=x%00y&password=abc&csrf_token=t",
                         headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 422
    assert "text/html" in r.headers["content-type"] and "нулевой байт" in r.text


def test_a_websocket_message_with_a_nul_byte_gets_a_coded_error(game: Api) -> None:
    """F6-2 on the WebSocket: the connection stays open and answers ``text_invalid``."""
    with game.client.websocket_connect("/ws") as ws:
        ws.send_text('{"type": "subscribe", "game": "g\\u0000", "since_seq": 0}')
        assert ws.receive_json()["code"] == "text_invalid"
        ws.send_text('{"type": "ping"}')
        assert ws.receive_json() == {"type": "pong"}


@pytest.mark.parametrize("name", list(BAD_TEXTS))
def test_a_command_frame_with_a_bad_text_gets_a_coded_error_and_posts_nothing(game: Api, name: str) -> None:
    """F6-2 on the socket's own path for commands: the text escaped, as an attacker sends
    it, is refused ``text_invalid`` by its id; the store keeps nothing."""
    before = messages(game)
    s = game.state("g")
    frame = raw_json({"type": "command", "id": f"bad-{len(name)}", "game": "g", "name": "PostMessage",
                      "args": {"inbox": s.current_inbox("city", CITY), "text": BAD_TEXTS[name]}})
    with game.client.websocket_connect("/ws", headers=game.headers(RESIDENT)) as ws:
        ws.send_text(frame.decode())
        answer = ws.receive_json()
        assert answer["type"] == "error" and answer["code"] == "text_invalid", answer
        assert answer["id"] == f"bad-{len(name)}"
    assert messages(game) == before


frame_values = st.recursive(
    st.none() | st.integers() | st.text(st.characters(codec="utf-8") | st.characters(categories=["Cs", "Cc"])),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(frame_values)
def test_a_frame_s_strings_are_checked_whether_it_escapes_them_or_not(value: Any) -> None:
    """F6-2: the socket's shortcut (``frame_ok``: no ``\\u`` escape and no NUL in a text
    from UTF-8, no walk) answers as the walk of the decoded document does."""
    for text in (json.dumps(value, ensure_ascii=True), json.dumps(value, ensure_ascii=False)):
        try:
            text.encode()
        except UnicodeEncodeError:  # a lone surrogate as itself: never a socket's text
            continue
        decoded = json.loads(text)
        assert frame_ok(text, decoded) == json_ok(decoded)


@pytest.mark.parametrize("param", ["since=37296551331", "since=99999999999999999999999",
                                   "since=9223372036854775808"])
def test_an_integer_beyond_the_stores_range_is_a_422_not_a_500(game: Api, param: str) -> None:
    """F1-1, F6-3: ``since`` / ``after`` have an upper bound, anonymous or not."""
    r = game.client.get(f"/api/games/g/events?{param}")
    assert r.status_code == 422, r.text
    s = game.state("g")
    r = game.get(RESIDENT, f"/api/games/g/inboxes/{s.current_inbox('city', CITY)}",
                 after=param.split("=")[1])
    assert r.status_code == 422, r.text


@pytest.mark.parametrize("upto", [2**31, 2**63, 10**30])
def test_marking_notifications_read_beyond_the_stores_range_is_a_422_not_a_500(api: Api, upto: int) -> None:
    """F1-1 (found by the schema walk below): ``upto`` of ``POST /api/notifications/read``
    went unbounded to the store («Python int too large to convert to SQLite INTEGER», a 500)."""
    api.register("nadia")
    r = api.post("nadia", "/api/notifications/read", {"upto": upto})
    assert r.status_code == 422, r.text
    assert api.post("nadia", "/api/notifications/read", {"upto": 5}).status_code in (200, 204)


def test_a_command_with_an_integer_beyond_the_stores_range_is_a_422(game: Api) -> None:
    """F1-1 in bodies: every generated command's integer field is bounded."""
    r = game.cmd(CAST.procurator, "g", "DeclareLongDay", day=2**63, length_days=2)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "bad_json"


def test_a_too_large_body_gets_413_declared_or_chunked(game: Api) -> None:
    """F4-7: 300 KB of JSON with a Content-Length (the cap is 256 KiB, room for a 20,000-character
    post), and 2 MB chunked without one: both 413."""
    big = raw_json({"command_id": "c", "inbox": "x", "text": "а" * 50_000})  # escaped: 6 bytes each
    r = post_raw(game, RESIDENT, "/api/games/g/commands/PostMessage", big)
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"

    def chunks() -> Iterator[bytes]:
        for _ in range(64):
            yield b" " * 32_768

    r = game.client.post("/api/games/g/commands/PostMessage", content=chunks(),
                         headers={"content-type": "application/json", **game.headers(RESIDENT)})
    assert r.status_code == 413, r.text
    assert r.json()["error"]["code"] == "too_large"


def test_a_chunked_upload_over_the_limit_gets_413(tmp_path: Any) -> None:
    """F4-7 for the Sound Library upload: a chunked multipart body past the cap is a 413."""
    from tests.web.conftest import make_api

    for api in make_api(tmp_path, max_upload_bytes=100_000):
        setup_game_via_api(api, "g", CAST)
        boundary = b"xyz"

        def body() -> Iterator[bytes]:
            yield (b"--xyz\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nlast_word\r\n"
                   b"--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.mp3\"\r\n"
                   b"Content-Type: audio/mpeg\r\n\r\n")
            for _ in range(20):
                yield b"\0" * 16_384

        r = api.client.post("/api/games/g/sound/media", content=body(),
                            headers={"content-type": f"multipart/form-data; boundary={boundary.decode()}",
                                     **api.headers(RESIDENT)})
        assert r.status_code == 413, r.text
        assert r.json()["error"]["code"] == "too_large"


def test_a_full_disk_answers_503_with_retry_after_and_a_translated_message(
        game: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """F5-1: the store says «database or disk is full»: a coded 503 with Retry-After, for a
    game command and for an account write (a login attempt) alike."""
    import sqlite3

    from lepromafia.store.accounts import AccountStore
    from lepromafia.store.event_store import Transaction

    async def full(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Transaction, "write", full)
    monkeypatch.setattr(AccountStore, "record_attempt", full)
    s = game.state("g")
    r = game.cmd(RESIDENT, "g", "PostMessage", inbox=s.current_inbox("city", CITY), text="привет")
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == "30"
    assert r.json()["error"]["code"] == "storage_full"
    assert "ничего не записано" in r.json()["error"]["message"]
    r = game.client.post("/api/auth/login?lang=en", json={"login": RESIDENT, "password": "whatever"},
                         headers={"authorization": "Bearer -"})
    assert r.status_code == 503 and r.headers["retry-after"] == "30"
    assert "nothing was saved" in r.json()["error"]["message"]


def test_every_integer_the_api_accepts_has_an_upper_bound_in_its_schema(api: Api) -> None:
    """F1-1, F6-3: the claim «every integer query parameter and body field is bounded» read
    off the OpenAPI itself: each integer in a path, a query or a request body (through every
    ``$ref``, list and union) declares a ``maximum`` within the stores' range."""
    spec = api.client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    unbounded: list[str] = []

    def walk(node: Any, where: str, seen: frozenset[str] = frozenset()) -> None:
        if isinstance(node, list):
            for n, item in enumerate(node):
                walk(item, f"{where}[{n}]", seen)
            return
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[1]
            if name not in seen:
                walk(schemas[name], f"{where}→{name}", seen | {name})
            return
        if node.get("type") == "integer" and not (0 < node.get("maximum", 2**63) <= 2**31 - 1):
            unbounded.append(where)
        for key in ("properties",):
            for prop, sub in node.get(key, {}).items():
                walk(sub, f"{where}.{prop}", seen)
        for key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties", "prefixItems"):
            if key in node:
                walk(node[key], where, seen)

    checked = 0
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for param in op.get("parameters", []):
                walk(param.get("schema", {}), f"{method.upper()} {path} {param['in']}:{param['name']}")
                checked += 1
            for media in op.get("requestBody", {}).get("content", {}).values():
                walk(media.get("schema", {}), f"{method.upper()} {path} body")
                checked += 1
    assert checked > 100  # the walk reached the API
    assert not unbounded, unbounded
