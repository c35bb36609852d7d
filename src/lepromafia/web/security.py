"""The hardened edge of every HTTP request (issue 16): one ASGI middleware.

- **Text at the boundary** (F6-1, F6-2): a NUL byte or invalid Unicode (a lone surrogate,
  bytes that are not UTF-8) in the path, the query string, a JSON body or a form body is
  refused with ``422 text_invalid`` before anything reaches the service or the store.
- **Body limits** (F4-7): every too-large body gets ``413 too_large``, declared or chunked.
- **Response headers** (F4-1): a Content-Security-Policy without inline script (the API
  docs' own inline bootstrap is allowed by its hash), ``frame-ancestors 'none'``,
  ``X-Content-Type-Options``, ``Referrer-Policy``, and HSTS when served over HTTPS.
- **Cookies** (F4-5): ``Secure`` on every cookie in production or over HTTPS.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re
import secrets
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..service.errors import ServiceError, ServiceErrorCode, storage_full
from . import errors
from .errors import WebError, WebErrorCode

log = logging.getLogger(__name__)

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})
RETRY_AFTER = "30"
HSTS = "max-age=31536000; includeSubDomains"
BASE_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


# --- text -----------------------------------------------------------------------------


def text_ok(value: str) -> bool:
    """No NUL byte and valid Unicode (no lone surrogate): what both stores can hold."""
    if "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def json_ok(value: Any) -> bool:
    """Every string of a decoded JSON document, keys included, is ``text_ok``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not text_ok(item):
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def frame_ok(text: str, decoded: Any) -> bool:
    """``json_ok(decoded)`` for ``decoded = json.loads(text)``, where ``text`` was decoded
    from UTF-8 (a socket's frame): such a text holds no lone surrogate, so a string of the
    document can hold one, or a NUL, only through a ``\\u`` escape or a NUL of the text
    itself; a text with neither needs no walk of the document (issue 17: a chat line's
    command, 3 µs of its path)."""
    if "\\u" not in text and "\x00" not in text:
        return True
    return json_ok(decoded)


def encoded_ok(raw: bytes, *, plus_is_space: bool = True) -> bool:
    """A percent-encoded path, query string or form body decodes to valid, NUL-free UTF-8."""
    if plus_is_space:
        raw = raw.replace(b"+", b" ")
    try:
        decoded = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return text_ok(decoded)


def check_text(value: str, field: str = "") -> str:
    """For code that takes text outside the middleware's reach (WebSocket, multipart)."""
    if not text_ok(value):
        raise WebError(WebErrorCode.TEXT_INVALID, field=field or "?")
    return value


def _body_ok(content_type: str, body: bytes) -> tuple[bool, str]:
    if not body:
        return True, ""
    if content_type.startswith("application/json") or content_type.endswith("+json"):
        try:
            decoded = json.loads(body)
        except (ValueError, RecursionError):
            return True, ""  # malformed JSON: the route answers it with its own 422
        return json_ok(decoded), "body"
    if content_type.startswith("application/x-www-form-urlencoded"):
        return all(encoded_ok(part) for pair in body.split(b"&") for part in pair.split(b"=", 1)), "form"
    return True, ""


# --- headers --------------------------------------------------------------------------


def _is_https(scope: Scope) -> bool:
    return scope.get("scheme") in ("https", "wss")


def security_headers(path: str, https: bool, body: bytes = b"") -> dict[str, str]:
    """The headers every response carries (existing ones of the same name win)."""
    headers = dict(BASE_HEADERS)
    if path in DOCS_PATHS:
        hashes = " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(m.group(1)).digest()).decode() + "'"
            for m in _INLINE_SCRIPT.finditer(body))
        headers["content-security-policy"] = (
            f"default-src 'self'; script-src 'self' {hashes}; "  # Swagger UI is served locally
            "style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
    else:
        headers["content-security-policy"] = CSP
    if https:
        headers["strict-transport-security"] = HSTS
    return headers


def _merge(existing: Iterable[tuple[bytes, bytes]], extra: dict[str, str],
           secure_cookies: bool) -> list[tuple[bytes, bytes]]:
    out: list[tuple[bytes, bytes]] = []
    present = set()
    for name, value in existing:
        low = name.lower()
        present.add(low.decode("latin-1"))
        if secure_cookies and low == b"set-cookie" and b"; secure" not in value.lower():
            value += b"; Secure"
        out.append((name, value))
    out.extend((k.encode(), v.encode()) for k, v in extra.items() if k not in present)
    return out


# --- the middleware -------------------------------------------------------------------


class Edge:
    """Wraps the whole app (outermost): refuse bad text and large bodies, add headers."""

    def __init__(self, app: ASGIApp, *, max_body: int, max_upload: int,
                 is_upload: Any, production: bool = False, secure_cookies: bool = False) -> None:
        self.app = app
        self.max_body = max_body
        self.max_upload = max(max_upload, max_body)
        self.is_upload = is_upload
        self.production = production
        self.secure_cookies = secure_cookies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw_path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogatepass")
        if not encoded_ok(raw_path, plus_is_space=False) or not encoded_ok(scope.get("query_string", b"")):
            field = "path" if not encoded_ok(raw_path, plus_is_space=False) else "query"
            await self._refuse(scope, receive, send, WebError(WebErrorCode.TEXT_INVALID, field=field))
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        https = _is_https(scope)
        secure = self.secure_cookies or self.production or https
        path = scope.get("path", "")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        limit = self.max_upload if self.is_upload(path) else self.max_body
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await self._refuse(scope, receive, send, WebError(WebErrorCode.TOO_LARGE, limit=limit))
            return

        started = False

        async def send_secured(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = dict(message)
                extra = security_headers(path, https)
                if message.get("status") == 503:
                    extra["retry-after"] = RETRY_AFTER
                message["headers"] = _merge(message.get("headers", []), extra, secure)
            await send(message)

        try:
            await self._dispatch(scope, receive, send_secured, headers, path, https)
        except Exception as exc:
            if started or not storage_full(exc):
                raise
            log.error("store is full: %s", exc)  # F5-1: a coded 503, never a bare 500
            await self._refuse(scope, receive, send, ServiceError(ServiceErrorCode.STORAGE_FULL))

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send,
                        headers: dict[str, str], path: str, https: bool) -> None:
        upload = self.is_upload(path)
        limit = self.max_upload if upload else self.max_body
        if upload:  # streamed (up to 50 MB): counted as it comes, never buffered here
            await self._stream(scope, receive, send, limit)
            return
        body, too_large = await _read_body(receive, limit)
        if too_large:
            await self._refuse(scope, receive, send, WebError(WebErrorCode.TOO_LARGE, limit=limit))
            return
        ok, field = _body_ok(headers.get("content-type", ""), body)
        if not ok:
            await self._refuse(scope, receive, send, WebError(WebErrorCode.TEXT_INVALID, field=field))
            return
        if path in DOCS_PATHS:
            await self._docs(scope, body, send, https)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _stream(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        seen = 0
        exceeded = False

        async def counted() -> Message:
            nonlocal seen, exceeded
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    exceeded = True
                    raise WebError(WebErrorCode.TOO_LARGE, limit=limit)
            return message

        replaced = False

        async def answer(message: Message) -> None:
            nonlocal replaced
            if not exceeded:
                await send(message)
                return
            if not replaced:  # the body parser's own 400: answer 413 instead (F4-7)
                replaced = True
                await self._refuse(scope, receive, send, WebError(WebErrorCode.TOO_LARGE, limit=limit))

        await self.app(scope, counted, answer)

    async def _docs(self, scope: Scope, body: bytes, send: Send, https: bool) -> None:
        """The API docs page carries one inline bootstrap script: allow it by its hash."""
        start: Message = {}
        chunks: list[bytes] = []

        async def collect(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = dict(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    content = b"".join(chunks)
                    start["headers"] = _merge(start.get("headers", []),
                                              security_headers(scope["path"], https, content),
                                              self.production or https)
                    await send(start)
                    await send({"type": "http.response.body", "body": content})

        await self.app(scope, _replay(body, _disconnected), collect)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send,
                      exc: WebError | ServiceError) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1007})
            return
        request = Request(scope, receive)
        info = errors.describe(exc, errors.request_lang(request) if _lang_ok(scope) else "ru")
        assert info is not None
        response = await _respond(request, info)
        path = scope.get("path", "")
        https = _is_https(scope)

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                extra = security_headers(path, https)
                if message.get("status") == 503:
                    extra["retry-after"] = RETRY_AFTER
                message["headers"] = _merge(message.get("headers", []), extra,
                                            self.production or https or self.secure_cookies)
            await send(message)

        await response(scope, _disconnected, secured)


def _lang_ok(scope: Scope) -> bool:
    return encoded_ok(scope.get("query_string", b""))


async def _respond(request: Request, info: errors.ErrorInfo) -> Any:
    """The app's own error page for pages (when the app is reachable), JSON for the API."""
    if "app" in request.scope:
        try:
            return await errors.respond(request, info)
        except Exception:  # a page renderer that needs more than a bare request
            log.debug("error page renderer failed; plain page instead", exc_info=True)
    from fastapi.responses import HTMLResponse, JSONResponse

    if errors.is_api(request):
        return JSONResponse(info.body(), status_code=info.status)
    from html import escape

    return HTMLResponse(f"<!doctype html><title>{info.status}</title><p role=alert>"
                        f"{escape(info.message)}</p>", status_code=info.status)


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks), False


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _disconnected() -> Message:
    return {"type": "http.disconnect"}


# --- WebSocket tickets (F4-5: no session token in a URL) ---------------------------------

TICKET_TTL = 60.0


def _ticket_mac(key: bytes, user: str, nonce: str, expires: int) -> str:
    return hmac.new(key, f"ws|{user}|{nonce}|{expires}".encode(), hashlib.sha256).hexdigest()[:40]


def issue_ticket(key: bytes, user: str, now: float) -> tuple[str, float]:
    """A signed one-time ticket for ``/ws?ticket=``, valid ``TICKET_TTL`` seconds."""
    nonce = secrets.token_hex(16)
    expires = int(now + TICKET_TTL)
    return f"{user}.{nonce}.{expires}.{_ticket_mac(key, user, nonce, expires)}", float(expires)


def ticket_parts(key: bytes, ticket: str, now: float) -> tuple[str, str, float] | None:
    """``(user, nonce, expires)`` of a well-signed, unexpired ticket (its nonce is then
    consumed by the caller, so that it works once), else None."""
    parts = ticket.split(".")
    if len(parts) != 4 or not parts[2].isdigit() or len(ticket) > 300:
        return None
    user, nonce, expires_text, mac = parts
    expires = int(expires_text)
    if expires <= now or not hmac.compare_digest(mac, _ticket_mac(key, user, nonce, expires)):
        return None
    return user, nonce, float(expires)
