"""The hosts' consoles: a task list first (the engine's duties for the office), then the
office's tools by subject. Each console shows only what its office may know (no god view,
§9) and posts every decision as an engine command through ``/games/{id}/do/{action}``.
The office contexts live in ``console_offices.py``; the task list in ``console_duties.py``."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from babel.dates import format_date
from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...engine import events as ev
from ...engine.calendar import MOSCOW
from ...engine.duties import DutyKind
from ...engine.events import Event
from ...service.accounts import AccountError
from ...service.outbound import visible
from ..deps import Lang, RequireUser, WebDep
from ..errors import WebError, WebErrorCode
from ..i18n import translate
from .common import GameCtx, game_context, load_game, page_events, rendered_at
from .console_duties import city_slugs, office_duties
from .console_offices import OFFICES
from .forms import text
from .game import _form, clocks, game_page, inbox_rows
from .host_decision_forms import decision_forms
from .render import render
from .views import seat_of

router = APIRouter()

OFFICE_NAMES = {
    "procurator": "Procurator",
    "tribune": "Tribune",
    "arbiter": "Supreme Arbiter",
    "consigliere": "Consigliere",
}

PICKER_DAYS = 16
"""How many days the consoles' date lists offer, from the day before today."""


def day_options(now: datetime, lang: str) -> list[tuple[str, str]]:
    """The date list of the consoles' own date-and-time picker: ISO value, and the day in the
    page's language («ср, 2 декабря»), Moscow dates."""
    today = now.astimezone(MOSCOW).date()
    days = [today + timedelta(days=i) for i in range(-1, PICKER_DAYS - 1)]
    return [(d.isoformat(), _day_label(d, lang)) for d in days]


def msk_parts(dt: datetime) -> tuple[str, str]:
    """The picker's two parts of a moment: the Moscow date (ISO) and its HH:MM."""
    local = dt.astimezone(MOSCOW)
    return local.date().isoformat(), local.strftime("%H:%M")


def _day_label(d: date, lang: str) -> str:
    return format_date(d, "EEE, d MMMM", locale=lang)


def _office(game: GameCtx, uid: str, office: str) -> None:
    if office not in OFFICE_NAMES:
        raise WebError(WebErrorCode.NOT_FOUND, what=office)
    if office not in seat_of(game.state, uid).consoles:
        raise WebError(WebErrorCode.FORBIDDEN)


SETTLED_BY: dict[DutyKind, type[Event]] = {DutyKind.CHOOSE_PARDON_PRESET: ev.PardonPresetChosen}
"""Optional duties a host's own decision settles: once he has chosen, the task leaves his
list (COURT-5: the majority may still be changed from its form until the first pardon vote)."""


async def settled_kinds(web: Any, game: GameCtx, uid: str) -> frozenset[DutyKind]:
    seen = {type(e) for _s, e in visible(await page_events(web, game), uid, tuple(SETTLED_BY.values()))}
    return frozenset(k for k, event in SETTLED_BY.items() if event in seen)


def duties_context(game: GameCtx, uid: str, office: str, lang: str,
                   settled: frozenset[DutyKind] = frozenset()) -> dict[str, Any]:
    return {"duties": office_duties(game.state, uid, game.now, office, lang, settled), "office": office}


def form_context(game: GameCtx, uid: str, office: str, lang: str,
                 settled: frozenset[DutyKind] = frozenset()) -> dict[str, Any]:
    """What the consoles' forms need: the task list, the cities' ids, the picker's days."""
    return {
        **duties_context(game, uid, office, lang, settled),
        "state": game.state,
        "slugs": city_slugs(game.state),
        "day_options": day_options(game.now, lang),
        "today": game.now.astimezone(MOSCOW).date().isoformat(),
        "msk": msk_parts,
        "host_decisions": decision_forms(game.state, uid, office),
    }


@router.get("/games/{game_id}/console/{office}", include_in_schema=False)
async def console(
    request: Request, game_id: str, office: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    game = await load_game(web, game_id)
    uid = user.user_id
    _office(game, uid, office)
    return await _render_console(request, web, user, lang, game, office)


async def _render_console(request: Request, web: Any, user: Any, lang: str, game: GameCtx, office: str,
                          **extra: Any) -> Response:
    uid = user.user_id
    ctx = form_context(game, uid, office, lang, await settled_kinds(web, game, uid))
    ctx.update(inboxes=[r for r in await inbox_rows(web, game, uid, lang) if not r.archived],
               deadlines=await clocks(web, game, uid, lang))
    ctx.update(await OFFICES[office](web, game, uid, lang))
    ctx.update(extra)
    return await game_page(
        request, web, user, lang, game, f"console-{office}", f"pages/console_{office}.html", **ctx
    )


@router.get("/games/{game_id}/console/{office}/part/duties", include_in_schema=False)
async def duties_part(
    request: Request, game_id: str, office: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    """The task list as a live region: a duty done disappears, a new one appears."""
    game = await load_game(web, game_id)
    _office(game, user.user_id, office)
    ctx = duties_context(game, user.user_id, office, lang, await settled_kinds(web, game, user.user_id))
    ctx.update(await game_context(web, request, game, user.user_id, "", unread=False))
    return rendered_at(render(request, "components/console_duties.html", ctx, lang=lang), ctx)


@router.get("/games/{game_id}/console/tribune/part/city/{index}", include_in_schema=False)
async def tribune_city_part(
    request: Request, game_id: str, index: int, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    """One city of the Tribune's console as a live region: the tally as votes arrive, the
    nominations, the schedule and the result."""
    game = await load_game(web, game_id)
    _office(game, user.user_id, "tribune")
    ctx = form_context(game, user.user_id, "tribune", lang)
    found = await OFFICES["tribune"](web, game, user.user_id, lang)
    city = next((c for c in found["my_cities"] if c["index"] == index), None)
    if city is None:
        raise WebError(WebErrorCode.NOT_FOUND, what=str(index))
    ctx.update(found, c=city)
    ctx.update(await game_context(web, request, game, user.user_id, "", unread=False), user=user.user_id)
    return rendered_at(render(request, "components/console_tribune_city.html", ctx, lang=lang), ctx)


@router.post("/games/{game_id}/console/procurator/preview", include_in_schema=False)
async def preview_contest(
    request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    """HOST-PROC-5: the Procurator's addition shown inside today's Day Post as it will be
    published; nothing is recorded (publishing is the form's other button)."""
    game = await load_game(web, game_id)
    _office(game, user.user_id, "procurator")
    form = _form(await request.form())
    preview = {"title": text(form, "title", required=False, limit=200),
               "text": text(form, "text", required=False, limit=20000)}
    return await _render_console(request, web, user, lang, game, "procurator", preview=preview)


@router.get("/games/{game_id}/contacts", include_in_schema=False)
async def contacts(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    """PLAYER-4, SEC-13: the voice contacts the viewer is entitled to (the Procurator: all;
    a Tribune: his city's residents); every read is logged, and the log is shown below
    (the Procurator: every read; a Tribune: the reads of his residents). Nobody else: 403."""
    game = await load_game(web, game_id)
    s = game.state
    subjects = [u for u in s.residents if web.accounts.may_read_contact(s, user.user_id, u)]
    if not subjects:
        raise WebError(WebErrorCode.FORBIDDEN)
    rows = []
    for subject in subjects:
        try:
            contact = await web.accounts.read_contact(s, game_id, user.user_id, subject)
        except AccountError:
            contact = ""
        rows.append((s.residents[subject].city, subject, contact))
    rows.sort()
    reads = [
        {"at": datetime.fromtimestamp(r["at_real"], MOSCOW).strftime("%d.%m %H:%M:%S"),
         "viewer": r["viewer"], "subject": r["subject"], "granted": r["granted"]}
        for r in await web.accounts.contact_reads(s, game_id, user.user_id)
    ]
    return await game_page(request, web, user, lang, game, "contacts", "pages/contacts.html", rows=rows,
                           reads=reads[:200])


__all__ = ["router", "translate"]
