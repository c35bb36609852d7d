"""The server-rendered pages (Jinja2 + htmx): ``router`` is included by ``create_app``.

Every form posts to a page route that calls the same service functions as the API, with
CSRF; every error renders as a translated HTML message with its stable code.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from ..errors import ErrorInfo
from . import (
    archive,
    audit,
    consoles,
    discussion,
    draw,
    game,
    help,
    live_inbox,
    notary,
    notifications,
    public,
    sound,
    votes,
)
from .common import flash_context
from .render import render


def render_error(request: Request, info: ErrorInfo) -> Response:
    """``app.state.render_error``: a failure on a page, as a page."""
    from ..deps import get_lang

    lang = get_lang(request)
    if info.code in ("unauthenticated", "session_expired") and request.method == "GET":
        # a page that needs a login: to the login form, coming back here afterwards
        from urllib.parse import quote

        from .common import redirect

        target = f"/login?next={quote(request.url.path)}"
        return redirect(target, error=info, lang=lang)
    user = getattr(request.state, "user", None)
    ctx = {"user": user.user_id if user else None, **flash_context(request), "error": info}
    return render(request, "pages/error.html", ctx, lang=lang, status=info.status)


async def install_error_page(request: Request) -> None:
    """Installs the HTML error renderer on the first page request (create_app leaves the hook
    empty until the pages exist)."""
    if getattr(request.app.state, "render_error", None) is None:
        request.app.state.render_error = render_error


router = APIRouter(dependencies=[Depends(install_error_page)])
router.include_router(public.router)
router.include_router(live_inbox.router)  # issue 17: the batched read marker, an edit form on demand
router.include_router(game.router)
router.include_router(discussion.router)  # POST-1, POST-2: comments under the posts
router.include_router(notary.router)  # INBOX-NOTARY-1..3: notary inboxes for anyone
router.include_router(draw.router)  # RANDOM-4 by lot: commit, open the reveals, reveal (issue 14)
router.include_router(consoles.router)
router.include_router(audit.router)  # issue 12: the hosts' audit log
router.include_router(help.router)  # issue 12: the host's handbook
router.include_router(sound.router)  # the Sound Library (issue 6)
router.include_router(archive.router)  # the archives after the game (issue 6)
router.include_router(votes.router)  # the vote record per city and day (issue 11, B1)
router.include_router(notifications.router)  # notifications (issue 13)

__all__ = ["render_error", "router"]
