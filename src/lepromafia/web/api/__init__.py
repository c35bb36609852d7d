"""The JSON API under ``/api`` (OpenAPI at ``/docs`` and ``/openapi.json``)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from ..errors import WebError, WebErrorCode
from . import accounts, audit, commands, discussion, games, notifications, votes


async def api_guard(request: Request) -> None:
    """A state-changing call authenticated by cookie must be JSON: a cross-site form
    cannot send ``application/json`` (CSRF defence of the API; bearer tokens are exempt)."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    if request.headers.get("authorization", "").lower().startswith("bearer "):
        return
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise WebError(WebErrorCode.CSRF_INVALID)


router = APIRouter(prefix="/api", dependencies=[Depends(api_guard)])
router.include_router(accounts.router)
router.include_router(games.router)
router.include_router(votes.router)  # issue 11: the vote record
router.include_router(commands.router)
router.include_router(discussion.router)
router.include_router(audit.router)
router.include_router(notifications.router)  # issue 13
