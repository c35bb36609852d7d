"""Notification pages (issue 13): the list, the service worker, the account's notification
settings, e-mail verification, the RFC 8058 one-click unsubscribe, the Procurator's dead
letters. Every read and write is one ``NotifyService`` call."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from ...engine.activity import inactive
from ...engine.inboxes import can_read
from ...service.errors import ServiceError
from ...service.notify.kinds import EXTERNAL, NotifyKind
from ...service.notify.service import KIND_LABELS, NotifyService
from ..deps import CsrfChecked, Lang, RequireUser, Web, WebDep
from ..errors import WebError, WebErrorCode, describe
from ..i18n import LANGUAGES, N_, language_name
from .common import GameCtx, game_context, load_game, redirect, rendered_at
from .game import game_page
from .public import page
from .render import render

router = APIRouter()
STATIC = Path(__file__).parent.parent / "static"

CHANNEL_LABELS = {"email": N_("E-mail"), "push": N_("Browser push"), "telegram": N_("Telegram")}
DIGEST_LABELS = {"off": N_("Send each at once"), "hourly": N_("Hourly digest"), "daily": N_("Daily digest")}


def notify(web: Web) -> NotifyService:
    assert web.notify is not None
    return web.notify


@router.get("/sw.js", include_in_schema=False)
async def service_worker() -> Response:
    """The push service worker, served from the root so its scope is the whole site."""
    return FileResponse(STATIC / "js" / "sw.js", media_type="text/javascript",
                        headers={"Service-Worker-Allowed": "/", "Cache-Control": "no-cache"})


@router.get("/notifications", include_in_schema=False)
async def notifications(request: Request, web: WebDep, user: RequireUser, lang: Lang,
                        game: str = "") -> Response:
    items = await notify(web).notifications(user.user_id, lang)
    dead: list[Any] = []
    procurator = bool(game) and (await web.service.state(game)).procurator == user.user_id
    if procurator:
        dead = await notify(web).dead_letters(game)
    return page(request, "pages/notifications.html", lang, user, items=items, dead=dead,
                dead_game=game if procurator else "")


@router.post("/notifications/read", include_in_schema=False, dependencies=[CsrfChecked])
async def read_all(web: WebDep, user: RequireUser, lang: Lang) -> Response:
    await notify(web).mark_read(user.user_id)
    return redirect("/notifications", ok=N_("All notifications are marked as read."), lang=lang)


@router.get("/account/notifications", include_in_schema=False)
async def settings(request: Request, web: WebDep, user: RequireUser, lang: Lang, game: str = "",
                   telegram: str = "") -> Response:
    service = notify(web)
    profile = await service.profile(user.user_id)
    prefs = await service.preferences(user.user_id, game)
    return page(request, "pages/notify_settings.html", lang, user, profile=profile, prefs=prefs,
                kinds=[(k.value, KIND_LABELS[k.value]) for k in NotifyKind],
                channels=[(c.value, CHANNEL_LABELS[c.value]) for c in EXTERNAL],
                digests=DIGEST_LABELS, profile_languages=[(c, language_name(c)) for c in LANGUAGES],
                pref_game=game, telegram_token=telegram,
                push_key=web.settings.vapid_public_key())


async def _form(request: Request) -> dict[str, Any]:
    return {k: str(v) for k, v in (await request.form()).multi_items()}


@router.post("/account/notifications/profile", include_in_schema=False, dependencies=[CsrfChecked])
async def save_profile(request: Request, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    form = await _form(request)
    try:
        await notify(web).save_profile(user.user_id, language=form.get("language", "ru"),
                                       time_zone=form.get("time_zone", ""),
                                       quiet_start=form.get("quiet_start", ""),
                                       quiet_end=form.get("quiet_end", ""), digest=form.get("digest", "off"))
    except ServiceError as exc:
        return redirect("/account/notifications", error=describe(exc, lang), form=form,
                        action="/account/notifications/profile", lang=lang)
    return redirect("/account/notifications", ok=N_("Saved."), lang=lang)


@router.post("/account/notifications/email", include_in_schema=False, dependencies=[CsrfChecked])
async def save_email(request: Request, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    form = await _form(request)
    try:
        await notify(web).set_email(user.user_id, form.get("email", ""), lang)
    except ServiceError as exc:
        return redirect("/account/notifications", error=describe(exc, lang), form=form,
                        action="/account/notifications/email", lang=lang)
    return redirect("/account/notifications", lang=lang,
                    ok=N_("We sent a confirmation link to {email}."), ok_fields={"email": form.get("email")})


@router.post("/account/notifications/prefs", include_in_schema=False, dependencies=[CsrfChecked])
async def save_prefs(request: Request, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    form = await request.form()
    game = str(form.get("game", ""))
    enabled = {tuple(str(v).split(":", 1)) for v in form.getlist("on") if ":" in str(v)}
    await notify(web).save_preferences(user.user_id, game, {(k, c) for k, c in enabled})
    target = "/account/notifications" + (f"?game={game}" if game else "")
    return redirect(target, ok=N_("Saved."), lang=lang)


@router.post("/account/notifications/telegram", include_in_schema=False, dependencies=[CsrfChecked])
async def telegram_link(web: WebDep, user: RequireUser, lang: Lang) -> Response:
    token = await notify(web).telegram_token(user.user_id)
    return redirect(f"/account/notifications?telegram={token}", lang=lang)


@router.get("/notify/verify/{token}", include_in_schema=False)
async def verify(request: Request, web: WebDep, lang: Lang, token: str) -> Response:
    ok = await notify(web).verify_email(token)
    message = N_("Your e-mail address is confirmed.") if ok else N_("This link is no longer valid.")
    return page(request, "pages/notify_done.html", lang, None, message=message, status=200 if ok else 404)


@router.get("/notify/unsubscribe/{token}", include_in_schema=False)
async def unsubscribe_form(request: Request, lang: Lang, token: str) -> Response:
    return page(request, "pages/notify_done.html", lang, None, unsubscribe=token,
                message=N_("Stop all e-mail notifications from Lepromafia?"))


@router.post("/notify/unsubscribe/{token}", include_in_schema=False)
async def unsubscribe(request: Request, web: WebDep, lang: Lang, token: str) -> Response:
    """RFC 8058 one-click: the mail client POSTs ``List-Unsubscribe=One-Click``; the
    token is the authority (no session, no CSRF token)."""
    ok = await notify(web).unsubscribe(token)
    message = N_("You will get no more e-mails from Lepromafia.") if ok \
        else N_("This link is no longer valid.")
    return page(request, "pages/notify_done.html", lang, None, message=message, status=200 if ok else 404)


# --- followed inboxes: a small block on the inbox page, loaded by htmx ----------------------


def _inbox_path(game_id: str, inbox_id: str) -> str:
    return f"/games/{quote(game_id, safe='')}/inboxes/{quote(inbox_id, safe='')}"


async def _part(request: Request, web: Web, user: Any, lang: str, game: GameCtx, nav: str, part: str,
                ctx: dict[str, Any]) -> Response:
    """A block of another page: alone for htmx (the page loads it), else as its own page
    (without JavaScript the block is a link to this)."""
    if request.headers.get("HX-Request"):
        full = await game_context(web, request, game, user.user_id, "", unread=False)
        return rendered_at(render(request, part, {**full, **ctx, "user": user.user_id}, lang=lang), full)
    return await game_page(request, web, user, lang, game, nav, "pages/notify_part.html", part=part, **ctx)


@router.get("/games/{game_id}/follow", include_in_schema=False)
async def follow_block(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang,
                       inbox: str = "") -> Response:
    """Whether the viewer follows this inbox, and the button that changes it."""
    game = await load_game(web, game_id)
    if inbox not in game.state.inboxes or not can_read(game.state, inbox, user.user_id):
        raise WebError(WebErrorCode.NOT_FOUND, what=inbox)
    on = await notify(web).following(user.user_id, game_id, inbox)
    return await _part(request, web, user, lang, game, "inboxes", "components/follow_inbox.html",
                       {"follow_inbox": inbox, "following": on, "inbox_path": _inbox_path(game_id, inbox)})


@router.post("/games/{game_id}/follow", include_in_schema=False, dependencies=[CsrfChecked])
async def follow(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    form = await _form(request)
    inbox, on = form.get("inbox", ""), form.get("on") == "1"
    back = _inbox_path(game_id, inbox)
    try:
        await notify(web).follow(user.user_id, game_id, inbox, on)
    except ServiceError as exc:  # an inbox he may not read: back to the ones he may
        return redirect(f"/games/{quote(game_id, safe='')}/inboxes", error=describe(exc, lang), lang=lang)
    message = N_("You will be notified of new messages here.") if on \
        else N_("You will no longer be notified of new messages here.")
    return redirect(back, ok=message, lang=lang)


# --- PLAYER-2: the Tribune's list of inactive residents ----------------------------------


@router.get("/games/{game_id}/inactive", include_in_schema=False)
async def inactive_residents(request: Request, game_id: str, web: WebDep, user: RequireUser,
                             lang: Lang) -> Response:
    """The residents of the viewer's cities (a Tribune's; every city for the Procurator)
    who have posted nothing in their city for ``inactivity_hours``, as the engine answers."""
    game = await load_game(web, game_id)
    state, uid = game.state, user.user_id
    cities = [name for name, c in state.cities.items() if uid in (c.tribune, state.procurator)]
    if not cities:
        raise WebError(WebErrorCode.FORBIDDEN)
    found = inactive(state, game.now)
    rows = [(name, [s for s in found if s.city == name]) for name in cities]
    return await _part(request, web, user, lang, game, "console-tribune",
                       "components/inactive_residents.html",
                       {"inactive": rows, "inactivity_hours": state.settings.inactivity_hours})
