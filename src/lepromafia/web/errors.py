"""The one place where failures become HTTP responses.

Engine ``RuleViolation``s, ``ServiceError``s, ``AccountError``s and the web's own
``WebError``s map to a status and ``{"error": {"code", "message", "rule"?}}`` for
``/api``. Pages get the same ``ErrorInfo``: an HTML renderer installed as
``app.state.render_error(request, info)`` draws it (see ``install``); form handlers may
call ``describe(exc, lang)`` themselves to re-render a form with the message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from html import escape
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..engine.errors import ErrorCode, RuleViolation
from ..service.accounts import AccountError, AccountErrorCode
from ..service.errors import ServiceError, ServiceErrorCode
from .i18n import gettext, normalize


class WebErrorCode(StrEnum):
    BAD_REQUEST = "bad_request"
    BAD_JSON = "bad_json"
    BAD_FORM = "bad_form"
    TOO_LARGE = "too_large"
    UNAUTHENTICATED = "unauthenticated"
    SESSION_EXPIRED = "session_expired"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    UNKNOWN_COMMAND = "unknown_command"
    CSRF_INVALID = "csrf_invalid"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    TEXT_INVALID = "text_invalid"
    STORAGE_FULL = "storage_full"
    INTERNAL = "internal"


WEB_ERRORS: dict[WebErrorCode, tuple[int, str]] = {
    WebErrorCode.BAD_REQUEST: (400, "The request is malformed: {detail}"),
    WebErrorCode.BAD_JSON: (422, "The JSON body is invalid: {detail}"),
    WebErrorCode.BAD_FORM: (422, "The form is filled in wrongly: {detail}"),
    WebErrorCode.TOO_LARGE: (413, "The request is too large (limit {limit} bytes)"),
    WebErrorCode.UNAUTHENTICATED: (401, "Please log in"),
    WebErrorCode.SESSION_EXPIRED: (401, "Your session has expired; please log in again"),
    WebErrorCode.FORBIDDEN: (403, "You may not do this"),
    WebErrorCode.NOT_FOUND: (404, "Not found: {what}"),
    WebErrorCode.UNKNOWN_COMMAND: (404, "There is no command '{command}'"),
    WebErrorCode.CSRF_INVALID: (403, "The form has expired or was already sent; reload the page"),
    WebErrorCode.METHOD_NOT_ALLOWED: (405, "This method is not allowed here"),
    WebErrorCode.TEXT_INVALID: (
        422, "The text holds a character that cannot be stored (a NUL byte or broken Unicode) "
             "in: {field}"),
    WebErrorCode.STORAGE_FULL: (
        503, "The server has no room to store this right now; nothing was saved. Try again in a minute"),
    WebErrorCode.INTERNAL: (500, "Internal error"),
}


class WebError(Exception):
    def __init__(self, code: WebErrorCode, **fields: Any) -> None:
        self.code = code
        self.fields = fields
        super().__init__(f"{code}: {self.message('en')}")

    @property
    def status(self) -> int:
        return WEB_ERRORS[self.code][0]

    def message(self, lang: str = "ru") -> str:
        template = gettext(lang, WEB_ERRORS[self.code][1])
        try:
            return template.format(**self.fields)
        except (KeyError, IndexError):
            return template


_FORBIDDEN_RULES = {
    ErrorCode.NOT_PROCURATOR, ErrorCode.NOT_CONSIGLIERE, ErrorCode.NOT_TRIBUNE,
    ErrorCode.NOT_RESIDENT, ErrorCode.NOT_MAFIOSO, ErrorCode.NOT_GODFATHER,
    ErrorCode.NOT_COMMISSAR, ErrorCode.NOT_ALIVE, ErrorCode.NOT_A_PARTICIPANT,
    ErrorCode.HOST_CANNOT_PLAY, ErrorCode.NOT_ARBITER, ErrorCode.NOT_JUDGE,
    ErrorCode.NOT_ORGANIZER, ErrorCode.INBOX_READ_ONLY,
}
_NOT_FOUND_RULES = {ErrorCode.NO_GAME, ErrorCode.UNKNOWN_CITY, ErrorCode.UNKNOWN_INBOX}
_UNPROCESSABLE_RULES = {ErrorCode.INVALID_SETTINGS, ErrorCode.MESSAGE_TOO_LONG, ErrorCode.MESSAGE_EMPTY}

SERVICE_STATUS: dict[ServiceErrorCode, int] = {
    ServiceErrorCode.UNKNOWN_GAME: 404,
    ServiceErrorCode.GAME_EXISTS: 409,
    ServiceErrorCode.GAME_FINISHED: 409,
    ServiceErrorCode.COMMAND_ID_INVALID: 422,
    ServiceErrorCode.COMMAND_ID_REUSED: 409,
    ServiceErrorCode.CORRUPT_LOG: 500,
    ServiceErrorCode.CONCURRENCY_CONFLICT: 503,
    ServiceErrorCode.SERVICE_CLOSED: 503,
    ServiceErrorCode.STORAGE_FULL: 503,
}

ACCOUNT_STATUS: dict[AccountErrorCode, int] = {
    AccountErrorCode.LOGIN_INVALID: 422,
    AccountErrorCode.LOGIN_TAKEN: 409,
    AccountErrorCode.PASSWORD_WEAK: 422,
    AccountErrorCode.PASSWORD_COMMON: 422,
    AccountErrorCode.REGISTRATION_LIMITED: 429,
    AccountErrorCode.DISPLAY_NAME_INVALID: 422,
    AccountErrorCode.BAD_CREDENTIALS: 401,
    AccountErrorCode.RATE_LIMITED: 429,
    AccountErrorCode.BANNED: 403,
    AccountErrorCode.CONTACT_INVALID: 422,
    AccountErrorCode.CONTACT_FORBIDDEN: 403,
    AccountErrorCode.CONTACT_MISSING: 404,
    AccountErrorCode.SANCTION_FORBIDDEN: 403,
    AccountErrorCode.SANCTION_INVALID: 422,
    AccountErrorCode.UNKNOWN_USER: 404,
}


@dataclass(frozen=True)
class ErrorInfo:
    status: int
    code: str
    message: str
    rule: str = ""

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.rule:
            error["rule"] = self.rule
        return {"error": error}


def rule_status(code: ErrorCode) -> int:
    if code in _FORBIDDEN_RULES:
        return 403
    if code in _NOT_FOUND_RULES:
        return 404
    if code in _UNPROCESSABLE_RULES:
        return 422
    return 409


def describe(exc: BaseException, lang: str = "ru") -> ErrorInfo | None:
    """The status, code and translated message of a known failure; None for a bug."""
    lang = normalize(lang)
    if isinstance(exc, RuleViolation):
        return ErrorInfo(rule_status(exc.code), exc.code.value, exc.message(lang), exc.rule)
    if isinstance(exc, ServiceError):
        return ErrorInfo(SERVICE_STATUS.get(exc.code, 409), exc.code.value, exc.message(lang))
    if isinstance(exc, AccountError):
        return ErrorInfo(ACCOUNT_STATUS.get(exc.code, 400), exc.code.value, exc.message(lang))
    if isinstance(exc, WebError):
        return ErrorInfo(exc.status, exc.code.value, exc.message(lang))
    if isinstance(exc, RequestValidationError):
        return describe(WebError(WebErrorCode.BAD_JSON, detail=_validation_detail(exc)), lang)
    if isinstance(exc, StarletteHTTPException):
        code = {404: WebErrorCode.NOT_FOUND, 405: WebErrorCode.METHOD_NOT_ALLOWED,
                401: WebErrorCode.UNAUTHENTICATED, 403: WebErrorCode.FORBIDDEN,
                413: WebErrorCode.TOO_LARGE}.get(exc.status_code, WebErrorCode.BAD_REQUEST)
        info = describe(WebError(code, what=str(exc.detail), detail=str(exc.detail), limit="?"), lang)
        assert info is not None
        return ErrorInfo(exc.status_code, info.code, info.message)
    return None


def _validation_detail(exc: RequestValidationError) -> str:
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
    return JSONResponse(info.body(), status_code=info.status)


def install(app: FastAPI) -> None:
    async def known(request: Request, exc: Exception) -> Response:
        info = describe(exc, request_lang(request))
        if info is None:  # pragma: no cover - only unknown exception types
            raise exc
        return await respond(request, info)

    for kind in (RuleViolation, ServiceError, AccountError, WebError, RequestValidationError,
                 StarletteHTTPException):
        app.add_exception_handler(kind, known)
