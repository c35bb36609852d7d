"""Notary inboxes for anyone (INBOX-NOTARY-1..3, AMB-39, §9.4): certify a secret, let
whoever must verify read it, open it to everyone after the game.

The salt of the published digest is drawn here, server-side, from ``secrets``; the engine
decides everything else. The sealed text itself is read on the inbox page.
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...engine.commands import CreateNotaryInbox, GrantNotaryAccess, PublishNotaryInbox
from ...engine.errors import CodedError
from ...engine.inboxes import can_read
from ...engine.state import GameState, Stage
from ..api.commands import platform_rng
from ..api.games import scoped
from ..deps import CommandCsrfChecked, Lang, RequireUser, WebDep
from ..errors import describe
from ..i18n import N_
from .common import redirect

router = APIRouter()


def notary_view(s: GameState, inbox_id: str, viewer: str | None) -> dict[str, Any] | None:
    """What the inbox page shows about a certified secret to one who may read it."""
    notary = s.notaries.get(inbox_id)
    if notary is None or not can_read(s, inbox_id, viewer):
        return None
    mine = viewer == notary.organizer
    return {
        "inbox": inbox_id, "title": notary.title, "digest": notary.digest, "salt": notary.salt,
        "sealed_at": notary.sealed_at, "mine": mine, "published": notary.published,
        "granted": sorted(notary.granted) if mine else None,
        "can_publish": mine and s.stage is Stage.FINISHED and not notary.published,
        "can_grant": mine,
    }


def may_certify(s: GameState, viewer: str | None) -> bool:
    """INBOX-NOTARY-1: anyone in the game, player or host."""
    if viewer is None or s.stage is Stage.FINISHED:
        return False
    return viewer in s.residents or viewer in s.signups or viewer in s.hosts()


def _form_id(form: Any, user: str) -> str:
    return scoped(user, str(form.get("command_id") or secrets.token_hex(8)))


@router.post("/games/{game_id}/notary", include_in_schema=False, dependencies=[CommandCsrfChecked])
async def create(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    form = await request.form()
    title, content = str(form.get("title") or ""), str(form.get("content") or "")
    back = f"/games/{game_id}/inboxes"
    raw_id = str(form.get("command_id") or secrets.token_hex(8))
    # The salt is drawn keyed by the form's command id: a retried form seals the same way.
    salt = f"{platform_rng(web, game_id, user.user_id, raw_id, 'notary-salt').getrandbits(128):032x}"
    try:
        command = CreateNotaryInbox(actor=user.user_id, title=title, content=content, salt=salt)
        await web.service.execute(game_id, command, scoped(user.user_id, raw_id))
    except CodedError as exc:
        return redirect(back, error=describe(exc, lang), draft=content, lang=lang)
    s = await web.service.state(game_id)
    own = [n for n in s.notaries.values() if n.organizer == user.user_id]
    newest = max(own, key=lambda n: (n.sealed_at, n.inbox), default=None)
    where = f"/games/{game_id}/inboxes/{quote(newest.inbox, safe='')}" if newest else back
    return redirect(where, ok=N_("Sealed. Its digest is public; grant access to whoever must verify it."),
                    lang=lang)


@router.post("/games/{game_id}/notary/{inbox_id:path}/grant", include_in_schema=False,
             dependencies=[CommandCsrfChecked])
async def grant(request: Request, game_id: str, inbox_id: str, web: WebDep, user: RequireUser,
                lang: Lang) -> Response:
    form = await request.form()
    back = f"/games/{game_id}/inboxes/{quote(inbox_id, safe='')}"
    try:
        command = GrantNotaryAccess(actor=user.user_id, inbox=inbox_id,
                                    user=str(form.get("user") or "").strip().lower())
        await web.service.execute(game_id, command, _form_id(form, user.user_id))
    except CodedError as exc:
        return redirect(back, error=describe(exc, lang), lang=lang)
    return redirect(back, ok=N_("Access granted."), lang=lang)


@router.post("/games/{game_id}/notary/{inbox_id:path}/publish", include_in_schema=False,
             dependencies=[CommandCsrfChecked])
async def publish(request: Request, game_id: str, inbox_id: str, web: WebDep, user: RequireUser,
                  lang: Lang) -> Response:
    form = await request.form()
    back = f"/games/{game_id}/inboxes/{quote(inbox_id, safe='')}"
    try:
        await web.service.execute(game_id, PublishNotaryInbox(actor=user.user_id, inbox=inbox_id),
                                  _form_id(form, user.user_id))
    except CodedError as exc:
        return redirect(back, error=describe(exc, lang), lang=lang)
    return redirect(back, ok=N_("Opened to everyone."), lang=lang)
