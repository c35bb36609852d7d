# ruff: noqa: E501 - the code table reads best one code per line

"""The one place where failures become HTTP responses.

Every known failure is a ``CodedError`` (``engine.errors``): the engine's ``RuleViolation``,
the service's ``ServiceError``, ``AccountError``, ``MediaError`` and ``ArchiveError``, and
the web's own ``WebError``. Its code enum declares the HTTP status and the English message
beside each code; ``describe`` turns one into an ``ErrorInfo`` (status, code, the message in
the reader's language, the rule id). ``/api`` answers ``{"error": {"code", "message",
"rule"?}}``; pages get the same ``ErrorInfo`` through the HTML renderer installed as
``app.state.render_error(request, info)`` (see ``install``), and form handlers call
``describe(exc, lang)`` to re-render their form with the message beside the field.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from html import escape
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..engine.errors import N_, CodedError, CodeEnum
from .i18n import error_message, normalize


class WebErrorCode(CodeEnum):
    BAD_REQUEST = "bad_request", 400, N_("The request is malformed: {detail}")
    BAD_JSON = "bad_json", 422, N_("The JSON body is invalid: {detail}")
    BAD_FORM = "bad_form", 422, N_("Check the field “{detail}”")
    FIELD_REQUIRED = "field_required", 422, N_("Fill in the field “{detail}”")
    FIELD_TIME = "field_time", 422, N_("“{detail}”: enter the Moscow time as HH:MM, for example 14:00")
    FIELD_DATE = "field_date", 422, N_("“{detail}”: choose a day from the list")
    TOO_LARGE = "too_large", 413, N_("The request is too large (limit {limit} bytes)")
    UNAUTHENTICATED = "unauthenticated", 401, N_("Please log in")
    SESSION_EXPIRED = "session_expired", 401, N_("Your session has expired; please log in again")
    FORBIDDEN = "forbidden", 403, N_("You may not do this")
    NOT_FOUND = "not_found", 404, N_("Not found: {what}")
    UNKNOWN_COMMAND = "unknown_command", 404, N_("There is no command '{command}'")
    CSRF_INVALID = "csrf_invalid", 403, N_("The form has expired or was already sent; reload the page")
    METHOD_NOT_ALLOWED = "method_not_allowed", 405, N_("This method is not allowed here")
    TEXT_INVALID = "text_invalid", 422, N_("The text holds a character that cannot be stored (a NUL byte or broken Unicode)")
    STORAGE_FULL = "storage_full", 503, N_("The server has no room to store this right now; nothing was saved. Try again in a minute")
    INTERNAL = "internal", 500, N_("Internal error")


class WebError(CodedError):
    """A failure of the web layer itself (bad JSON or form, CSRF, login, not found)."""

    code: WebErrorCode

    def __init__(self, code: WebErrorCode, rule: str = "", **fields: Any) -> None:
        super().__init__(code, rule, **fields)


@dataclass(frozen=True)
class ErrorInfo:
    status: int
    code: str
    message: str
    rule: str = ""
    field: str = ""
    """The form field that caused it, when known (the page shows the message beside it)."""
    headers: tuple[tuple[str, str], ...] = ()

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.rule:
            error["rule"] = self.rule
        if self.field:
            error["field"] = self.field
        return {"error": error}


_HTTP_CODES = {404: WebErrorCode.NOT_FOUND, 405: WebErrorCode.METHOD_NOT_ALLOWED,
               401: WebErrorCode.UNAUTHENTICATED, 403: WebErrorCode.FORBIDDEN,
               413: WebErrorCode.TOO_LARGE}


def coded(exc: BaseException) -> CodedError | None:
    """Any known failure as a ``CodedError``; None for a bug."""
    if isinstance(exc, CodedError):
        return exc
    if isinstance(exc, RequestValidationError):
        return WebError(WebErrorCode.BAD_JSON, detail=validation_detail(exc))
    if isinstance(exc, StarletteHTTPException):
        code = _HTTP_CODES.get(exc.status_code, WebErrorCode.BAD_REQUEST)
        return WebError(code, what=str(exc.detail), detail=str(exc.detail), limit="?")
    return None


def describe(exc: BaseException, lang: str = "ru", *, field: str = "") -> ErrorInfo | None:
    """The status, code, translated message and rule of a known failure; None for a bug."""
    error = coded(exc)
    if error is None:
        return None
    status = exc.status_code if isinstance(exc, StarletteHTTPException) else error.status
    return ErrorInfo(status, error.code.value, error_message(normalize(lang), error), error.rule,
                     field or str(error.fields.get("field", "")),
                     tuple(error.headers.items()))


def validation_detail(exc: RequestValidationError | ValidationError) -> str:
    """The first few failed fields of a body, as ``loc: msg``."""
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body",))
        parts.append(f"{loc}: {err.get('msg', '')}" if loc else str(err.get("msg", "")))
    return "; ".join(parts) or "?"


HtmlRenderer = Callable[[Request, ErrorInfo], Awaitable[Response] | Response]


def is_api(request: Request) -> bool:
    path = request.url.path
    return path.startswith("/api") or path.startswith("/ws")


def request_lang(request: Request) -> str:
    return normalize(request.query_params.get("lang") or request.cookies.get("lang"))


async def respond(request: Request, info: ErrorInfo) -> Response:
    """JSON for the API; otherwise the pages' renderer (``app.state.render_error``)."""
    request.state.error = info
    if not is_api(request):
        renderer: HtmlRenderer | None = getattr(request.app.state, "render_error", None)
        if renderer is not None:
            result = renderer(request, info)
            return await result if isinstance(result, Awaitable) else result
        return HTMLResponse(f"<!doctype html><title>{info.status}</title><p role=alert>"
                            f"{escape(info.message)}</p>", status_code=info.status)
    return JSONResponse(info.body(), status_code=info.status, headers=dict(info.headers))


def install(app: FastAPI) -> None:
    async def known(request: Request, exc: Exception) -> Response:
        info = describe(exc, request_lang(request))
        if info is None:  # pragma: no cover - only unknown exception types
            raise exc
        return await respond(request, info)

    for kind in (CodedError, RequestValidationError, StarletteHTTPException):
        app.add_exception_handler(kind, known)
