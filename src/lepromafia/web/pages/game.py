"""A game's pages: the public page, the role card, the inboxes; and every form's POST."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ...engine import commands_host as hc
from ...engine import events as ev
from ...engine import events_host as hev
from ...engine.commands import REQUIREMENTS, CreateGame, PostMessage, SignUp
from ...engine.duties import DutyKind, duties
from ...engine.errors import CodedError
from ...engine.inboxes import Access, can_read
from ...engine.keywords import Keyword
from ...engine.settings import GameSettings
from ...engine.state import NO_KILL
from ...engine.upcoming import Soon, upcoming
from ...engine.visibility import public_faction
from ...service.media import library
from ...service.outbound import visible, visible_now
from ...service.queries import THREAD_PAGE
from ...service.transparency import day_post_heads, published_heads
from ..api.commands import platform_rng
from ..api.games import scoped
from ..deps import CommandCsrfChecked, CurrentUser, Lang, RequireUser, WebDep, csrf_token
from ..errors import WebError, WebErrorCode, describe
from ..i18n import N_
from . import votes as vote_record
from .actions import citizen_forms, role_actions
from .common import (
    GameCtx,
    clear_flash,
    flash_context,
    game_context,
    load_game,
    page_events,
    redirect,
    rendered_at,
    safe_next,
)
from .discussion import author_label, discussion_context, thread  # noqa: F401 - author_label: re-exported
from .forms import ACTIONS, Form, FormError, draws, integer, text
from .labels import deadline_label, inbox_label
from .notary import may_certify, notary_view
from .render import render
from .sound import KIND_NAMES
from .today import clock_time, later_of, today_of
from .views import day_posts, execution_tally, keywords_of, last_closed_vote, readable_inboxes

router = APIRouter()

KEYWORD_STYLE = {Keyword.EXECUTE: "", Keyword.WITHDRAW: "secondary", Keyword.GANDHI: "ok",
                 Keyword.HITLER: "dark"}
"""The look of each keyword's button; which buttons an inbox has is the policy table's."""

REQUIREMENT_TEXTS = (
    ("active", N_("I will be active: I read the city inbox and vote every day.")),
    ("rules_read", N_("I have read the rules.")),
    ("voice_contact", N_("I can be reached by voice (phone or Skype) for a confrontation or my last word.")),
    ("no_insults", N_("I will not insult other players.")),
    ("omerta", N_("I keep omertà: I share nothing of the game outside it.")),
)
RULE_IDS = {
    "active": "PLAYER-2",
    "rules_read": "PLAYER-3",
    "voice_contact": "PLAYER-4",
    "no_insults": "PLAYER-5",
    "omerta": "PLAYER-6",
}
assert {k for k, _ in REQUIREMENT_TEXTS} == REQUIREMENTS


async def game_page(
    request: Request, web: Any, user: Any, lang: str, game: GameCtx, nav: str, template: str, **context: Any
) -> HTMLResponse:
    uid = user.user_id if user else None
    ctx = await game_context(web, request, game, uid, nav)
    ctx.update(user=uid, **flash_context(request))
    ctx.update(context)
    status = ctx.pop("status", 200)
    response = render(request, template, ctx, lang=lang, status=status)
    clear_flash(response, request)
    return response


async def clocks(web: Any, game: GameCtx, uid: str | None, lang: str) -> list[tuple[str, datetime, str]]:
    """The deadlines the viewer may see; a resident's only those of the whole game, his own
    city and the cities he observes (review M2: not six vote rows of other cities)."""
    s = game.state
    me = s.residents.get(uid or "")
    mine = None if me is None else {me.city} | {n for n, c in s.cities.items() if uid in c.observers}
    out = []
    for d in await web.queries.deadlines(game.id, uid, game=game.current):
        city = d.key.partition(":")[2].split(":")[0].split("/")[0]
        if mine is not None and city in s.cities and city not in mine:
            continue
        out.append((d.key, datetime.fromisoformat(d.due_at), deadline_label(lang, d.key)))
    return out


def city_rows(game: GameCtx) -> list[dict[str, Any]]:
    s = game.state
    rows = []
    for name, c in s.cities.items():
        residents = [
            {
                "user": u,
                "alive": s.residents[u].alive,
                "faction": public_faction(s, u),
            }
            for u in c.residents
        ]
        rows.append(
            {
                "name": name,
                "tribune": c.tribune,
                "judge": c.judge,
                "population": len(c.residents),
                "living": len(s.living(name)),
                "mafia_count": c.mafia_count
                if s.deal.numbers or s.stage.value in ("dealt", "running", "finished")
                else "?",
                # review m3: the mafiosi whose death announced their faction (EXEC-16)
                "mafia_dead": sum(1 for r in residents if not r["alive"] and r["faction"] == "mafia"),
                "decided": c.decided.value if c.decided else None,
                "residents": residents,
            }
        )
    return rows


async def ending_of(web: Any, game: GameCtx, viewer: str | None = None) -> dict[str, Any] | None:
    """§9.4: once GameEnded is public, the final result, each city's, every role — every
    commissar who held office (D13), each restoration's factions before and after (D15) —
    and the mafia's decisions and check logs, open to all after the game (D14)."""
    events = await page_events(web, game)
    ended = [e for _s, e in visible(events, None, ev.GameEnded)]
    if not ended:
        return None
    e = ended[-1]
    factions = dict(e.factions)
    s = game.state
    record = mafia_record(s, events, viewer)
    cities = []
    for name, c in s.cities.items():
        commissars = [u for city, u in e.commissars if city == name]
        cities.append({
            "name": name,
            "display_name": c.display_name or name,
            "outcome": c.decided.value if c.decided else None,
            "commissars": commissars,
            "godfather": c.godfather,
            "judge": c.judge,
            "residents": [{"user": u, "faction": factions.get(u), "alive": s.residents[u].alive,
                           "commissar": u in commissars} for u in c.residents],
            "record": record.get(name, []),
        })
    restorations = [{
        "city": r.city, "new_name": r.new_name, "commitment": r.commitment, "salt": r.salt,
        "rows": [{"user": u, "before": before, "after": factions.get(u)}
                 for u, before in r.factions_before],
    } for r in e.restorations]
    return {"result": e.result, "consigliere": e.consigliere, "cities": cities,
            "commitment": e.commitment, "salt": e.deal_salt, "restorations": restorations}


def _target(t: str | None) -> str:
    return "—" if t is None or t == NO_KILL else t


def _record_line(e: Any) -> tuple[str, dict[str, Any]] | None:
    """One of the mafia's (or the commissar's) decisions as a sentence to translate."""
    if isinstance(e, ev.GodfatherVoteCast):
        return N_("{voter} votes for {candidate} as Godfather"), {"voter": e.voter, "candidate": e.candidate}
    if isinstance(e, ev.GodfatherElected):
        msg = N_("{user} is appointed Godfather") if e.appointed else N_("{user} is elected Godfather")
        return msg, {"user": e.godfather}
    if isinstance(e, ev.GodfatherElectionFailed):
        return N_("The Godfather election fails"), {}
    if isinstance(e, ev.GodfatherReelectionDemanded):
        return N_("{user} demands a re-election"), {"user": e.user}
    if isinstance(e, ev.KillDeclared):
        return _KILL_LINES[(e.is_order, e.tour, e.target == NO_KILL)], {"user": e.mafioso, "target": e.target}
    if isinstance(e, ev.NightDecisionFixed):
        msg = (N_("Night {night}, tour decision: {target}") if e.tour
               else N_("Night {night}, decision: {target}"))
        return msg, {"night": e.night, "target": _target(e.target)}
    if isinstance(e, ev.AmbushPlaced):
        return N_("{user} lies in wait for {target}"), {"user": e.mafioso, "target": e.target}
    if isinstance(e, ev.AmbushesFixed):
        return N_("Night {night}, ambushes: {list}"), {
            "night": e.night, "list": ", ".join(f"{m} → {t}" for m, t in e.ambushes) or "—"}
    if isinstance(e, ev.CheckRequested):
        return N_("Night {night}, the commissar asks about {target}"), {"night": e.night, "target": e.target}
    if isinstance(e, ev.CheckAnswered):
        msg = N_("Night {night}, check of {target}: mafia") if e.is_mafia else N_(
            "Night {night}, check of {target}: not mafia")
        return msg, {"night": e.night, "target": e.target}
    return None


_KILL_LINES = {  # (the Godfather's order, on tour, no kill) -> sentence
    (True, False, False): N_("{user} (Godfather): kill {target}"),
    (False, False, False): N_("{user}: kill {target}"),
    (True, True, False): N_("{user} (Godfather): kill {target} on tour"),
    (False, True, False): N_("{user}: kill {target} on tour"),
    (True, False, True): N_("{user} (Godfather): no kill"),
    (False, False, True): N_("{user}: no kill"),
    (True, True, True): N_("{user} (Godfather): no kill on tour"),
    (False, True, True): N_("{user}: no kill on tour"),
}


RECORD_KINDS = (ev.GodfatherVoteCast, ev.GodfatherElected, ev.GodfatherElectionFailed,
                ev.GodfatherReelectionDemanded, ev.KillDeclared, ev.NightDecisionFixed,
                ev.AmbushPlaced, ev.AmbushesFixed, ev.CheckRequested, ev.CheckAnswered)


def mafia_record(s: Any, events: Any, viewer: str | None) -> dict[str, list[dict[str, Any]]]:
    """§9.4, INBOX-MAFIA-4 (D14): per city, the decisions the engine opens at the game's end
    (``engine.archive.readable``), in order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for _seq, e in visible_now(s, events, viewer, RECORD_KINDS):
        line = _record_line(e)
        if line is not None:
            out.setdefault(e.city, []).append({"at": e.at, "msg": line[0], "fields": line[1]})
    return out


async def posts_of(web: Any, game: GameCtx) -> list[Any]:
    return [e for _s, e in reversed(day_posts(await page_events(web, game)))]


def day_sound(game: GameCtx, uid: str | None, posts: list[Any]) -> dict[int, list[dict[str, Any]]]:
    """Issue 6, SOUND-2: the Sound Library entries the viewer may hear, under the Day Post of
    the day they were published in (from that post until the next; earlier ones go under the
    first post). Keyed by the post's day."""
    ordered = sorted(posts, key=lambda p: p.at)
    out: dict[int, list[dict[str, Any]]] = {}
    if not ordered:
        return out
    for entry in reversed(library(game.state, uid)):  # oldest first
        at = datetime.fromisoformat(entry["at"])
        post = next((p for p in reversed(ordered) if p.at <= at), ordered[0])
        out.setdefault(post.day, []).append(
            entry | {"kind_name": KIND_NAMES.get(entry["kind"], entry["kind"]),
                     "href": f"/games/{game.id}/sound?city={quote(entry['city'])}#entry-{entry['entry']}"})
    return out


async def day_contests(web: Any, game: GameCtx, posts: list[Any]) -> dict[int, list[Any]]:
    """HOST-PROC-5, POST-2: the Procurator's charades and contests, under their day's post
    (or the first post after it, for a day without one). Keyed by the post's day."""
    days = sorted({p.day for p in posts})
    out: dict[int, list[Any]] = {}
    for _s, e in visible(await page_events(web, game), None, hev.ContestPublished):
        day = next((d for d in days if d >= e.day), e.day)
        out.setdefault(day, []).append(e)
    return out


# --- the game page ------------------------------------------------------------------


@router.get("/games/new", include_in_schema=False)
async def new_game_form(request: Request, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    ctx = {"user": user.user_id, "defaults": GameSettings(), "form": {}, **flash_context(request)}
    response = render(request, "pages/new_game.html", ctx, lang=lang)
    clear_flash(response, request)
    return response


NEW_GAME_FIELDS = {
    "city_count": int,
    "population_per_city": int,
    "mafia_share_percent": int,
    "day_start_time": str,
    "default_vote_opens": str,
    "default_vote_closes": str,
    "commissar_check_mode": str,
}


@router.post("/games/new", include_in_schema=False, dependencies=[CommandCsrfChecked])
async def create_game(request: Request, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    form = _form(await request.form())
    try:
        game_id = text(form, "game_id", required=False, limit=40) or f"g-{secrets.token_hex(3)}"
        if (
            not all(ch.isascii() and (ch.isalnum() or ch == "-") for ch in game_id)
            or game_id != game_id.lower()
        ):
            raise FormError("game_id")
        settings: dict[str, Any] = {}
        for name, kind in NEW_GAME_FIELDS.items():
            raw = text(form, name, required=False, limit=20)
            if raw:
                settings[name] = integer(form, name) if kind is int else raw
        title = text(form, "title", limit=120)
        GameSettings.from_mapping(settings)
        command = CreateGame(actor=user.user_id, title=title, settings=settings)
        command_id = scoped(
            user.user_id, text(form, "command_id", required=False, limit=60) or secrets.token_hex(8)
        )
        await web.service.create_game(game_id, command, command_id, time_scale=web.settings.time_scale)
    except CodedError as exc:
        info = describe(exc, lang)
        ctx = {"user": user.user_id, "defaults": GameSettings(), "form": form, "error": info}
        return render(request, "pages/new_game.html", ctx, lang=lang, status=info.status if info else 422)
    return redirect(f"/games/{game_id}/console/procurator", ok=N_("Game created."), lang=lang)


def observable(game: GameCtx, uid: str | None) -> list[str]:
    """The cities the viewer may still ask to observe (ROLE-OBS-1..3)."""
    s = game.state
    me = s.residents.get(uid or "")
    if me is None or not me.alive or s.stage.value != "running":
        return []
    return [n for n, c in s.cities.items() if n != me.city and c.decided is None and uid not in c.observers]


@router.get("/games/{game_id}", include_in_schema=False)
async def game_view(request: Request, game_id: str, web: WebDep, user: CurrentUser, lang: Lang) -> Response:
    game = await load_game(web, game_id)
    uid = user.user_id if user else None
    s = game.state
    consigliere = s.consigliere if uid and uid in (s.procurator, s.consigliere) else None
    game_info = {
        "procurator": s.procurator,
        "arbiter": s.arbiter,
        "consigliere": consigliere,
        "signups": list(s.signups),
        "non_default": s.settings.non_default(),
        "result": s.result.value if s.result else None,
    }
    observe = observable(game, uid)
    deadlines = await clocks(web, game, uid, lang)
    return await game_page(
        request,
        web,
        user,
        lang,
        game,
        "game",
        "pages/game.html",
        info=game_info,
        observe=observe,
        today=await today_of(web, game, uid, lang, deadlines, mark=True),
        ending=await ending_of(web, game, uid),
        posts=(posts := await posts_of(web, game)),
        day_sound=day_sound(game, uid, posts),
        day_contests=await day_contests(web, game, posts),
        day_heads=day_post_heads(await published_heads(web.service.store, game.id)),
        deadlines=deadlines,
        cities=city_rows(game),
        requirements=REQUIREMENT_TEXTS,
        rule_ids=RULE_IDS,
        **await discussion_context(web, game, uid, lang),
    )


@router.get("/games/{game_id}/part/{name}", include_in_schema=False)
async def game_part(
    request: Request, game_id: str, name: str, web: WebDep, user: CurrentUser, lang: Lang
) -> Response:
    """The live regions of the pages, re-fetched when the WebSocket says something changed."""
    game = await load_game(web, game_id)
    uid = user.user_id if user else None
    ctx: dict[str, Any] = {"user": uid}
    if name == "posts":
        ctx["posts"] = await posts_of(web, game)
        ctx["day_sound"] = day_sound(game, uid, ctx["posts"])
        ctx["day_contests"] = await day_contests(web, game, ctx["posts"])
        ctx["day_heads"] = day_post_heads(await published_heads(web.service.store, game.id))
        ctx.update(await discussion_context(web, game, uid, lang))
        template = "partials/posts.html"
    elif name == "clocks":
        ctx["deadlines"] = await clocks(web, game, uid, lang)
        template = "partials/clocks.html"
    elif name == "cities":
        ctx["cities"] = city_rows(game)
        template = "partials/cities.html"
    elif name == "phase":
        template = "partials/phase.html"
    elif name == "observe":
        ctx["observe"] = observable(game, uid)
        template = "partials/observe.html"
    elif name == "today":
        ctx["today"] = await today_of(web, game, uid, lang, await clocks(web, game, uid, lang), mark=False)
        template = "partials/today.html"
    elif name == "unread" and uid:
        template = "partials/unread_badge.html"
    elif name == "ending":
        ctx["ending"] = await ending_of(web, game, uid)
        template = "partials/ending_slot.html"
    elif name == "role-actions" and uid:
        ctx["acts"] = role_actions(game.state, uid, await page_events(web, game), game.now)
        ctx["soon"] = soon_lines(game, uid, lang)
        template = "components/role_actions.html"
    elif name == "inbox-list" and uid:
        ctx["inboxes"] = await inbox_rows(web, game, uid, lang)
        ctx["groups"] = inbox_groups(ctx["inboxes"], game.state.day)
        template = "partials/inbox_list.html"
    else:
        raise WebError(WebErrorCode.NOT_FOUND, what=name)
    ctx.update(await game_context(web, request, game, uid, "", unread=name == "unread"))
    return rendered_at(render(request, template, ctx, lang=lang), ctx)


# --- role card and inboxes ------------------------------------------------------------


@router.get("/games/{game_id}/role", include_in_schema=False)
async def role(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    game = await load_game(web, game_id)
    card = await web.queries.role_card(game_id, user.user_id)
    resident = card.resident
    fellows = [u for u in resident.mafia if u != user.user_id] if resident else []
    can_ack = resident is not None and resident.faction == "mafia" and not resident.acknowledged
    s = game.state
    me = s.residents.get(user.user_id)
    return await game_page(
        request,
        web,
        user,
        lang,
        game,
        "role",
        "pages/role.html",
        fellows=fellows,
        can_acknowledge=can_ack,
        acknowledged=resident.acknowledged if resident else None,
        nominate=nomination_of(game, user.user_id, lang),
        acts=role_actions(s, user.user_id, await page_events(web, game), game.now),
        soon=soon_lines(game, user.user_id, lang),
        case_accused=[u for u in s.residents if u != user.user_id]
        if me is not None and s.arbiter and s.stage.value == "running" else [],
        citizen=citizen_forms(s, user.user_id),
    )


def soon_lines(game: GameCtx, uid: str, lang: str) -> dict[str, list[str]]:
    """The engine's "not yet, but then" for the viewer, worded, by kind (COMM-4, START-2)."""
    out: dict[str, list[str]] = {}
    for u in upcoming(game.state, uid, game.now):
        out.setdefault(u.kind.value, []).extend(later_of(lang, (u,), game.now))
    return out


def nomination_of(game: GameCtx, uid: str, lang: str) -> dict[str, Any] | None:
    """EXEC-3: the nomination form's choices (the engine's duty, none preselected), the
    viewer's current nomination with its deadline, or when nominating will be possible."""
    s = game.state
    me = s.residents.get(uid)
    if me is None or not me.alive or s.stage.value != "running" or s.cities[me.city].decided:
        return None
    duty = next((d for d in duties(s, uid, game.now) if d.kind is DutyKind.NOMINATE), None)
    soon = tuple(u for u in upcoming(s, uid, game.now) if u.kind is Soon.NOMINATE)
    return {
        "choices": list(duty.choices) if duty else [],
        "mine": s.cities[me.city].nominations.get(uid) if s.phase.value == "day" else None,
        "until": clock_time(lang, duty.deadline, game.now) if duty and duty.deadline else "",
        "later": later_of(lang, soon, game.now),
    }


async def inbox_rows(web: Any, game: GameCtx, uid: str, lang: str) -> list[Any]:
    counts = {i.inbox: i for i in await web.queries.inboxes(game.id, uid, game=game.current)}
    rows = readable_inboxes(game.state, uid, now=game.now, include_archived=True)
    events = await page_events(web, game)
    starts = [(e.at, e.day) for _s, e in visible(events, None, ev.DayStarted)]
    keywords = vote_record.keyword_totals(game, events, uid)
    for row in rows:
        found = counts.get(row.id)
        row.unread = found.unread if found else 0
        row.messages = keywords.get(row.id, found.messages if found else 0)
        row.label = inbox_label(lang, game.state, row.id, uid)  # type: ignore[attr-defined]
        opened = game.state.inboxes[row.id].opened_at
        row.day = max((d for at, d in starts if opened and at <= opened), default=0)  # type: ignore[attr-defined]
    return rows


RECENT_DAYS = 2
"""Earlier days with a group of their own in the inbox list; older closed inboxes go to «Archive»."""


def inbox_groups(rows: list[Any], today: int) -> list[dict[str, Any]]:
    """The inbox list by day (review M6): «Today» — every live inbox except the ballots of
    earlier days; then each of the RECENT_DAYS previous days (its closed inboxes — the day's
    voting inboxes, the renewed city inbox — and its ballots still open), newest first; then
    «Archive» (everything older). Earlier days and the archive start collapsed unless they
    hold unread messages."""
    current, archive = [], []
    by_day: dict[int, list[Any]] = {}
    for row in rows:
        ballot = bool(keywords_of(row.kind))
        if not row.archived and not (ballot and row.day < today):
            current.append(row)
        elif today - RECENT_DAYS <= row.day < today or (row.day == today and row.archived):
            by_day.setdefault(row.day, []).append(row)
        else:
            archive.append(row)
    current.sort(key=lambda r: (not keywords_of(r.kind), 0 if r.unread else 1))
    groups = [{"key": "today", "day": today, "rows": current, "open": True}]
    for day in sorted(by_day, reverse=True):
        found = by_day[day]
        key = "today-closed" if day == today else "day"
        groups.append({"key": key, "day": day, "rows": found, "open": any(r.unread for r in found)})
    if archive:
        archive.sort(key=lambda r: -r.day)
        groups.append({"key": "archive", "day": None, "rows": archive,
                       "open": any(r.unread for r in archive)})
    return groups


@router.get("/games/{game_id}/inboxes", include_in_schema=False)
async def inboxes(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    game = await load_game(web, game_id)
    return await game_page(
        request,
        web,
        user,
        lang,
        game,
        "inboxes",
        "pages/inboxes.html",
        inboxes=(rows := await inbox_rows(web, game, user.user_id, lang)),
        groups=inbox_groups(rows, game.state.day),
        certify=may_certify(game.state, user.user_id),  # INBOX-NOTARY-1
    )


async def inbox_context(
    web: Any, game: GameCtx, inbox_id: str, uid: str, lang: str, mark_read: bool = True,
    start: int | None = None,
) -> dict[str, Any]:
    """An inbox page's (or region's) context: the thread's last messages or from the
    viewer's first unread one (``GameQueries.thread``), or from message ``start`` on."""
    s = game.state
    found = await web.queries.thread(game.id, inbox_id, uid, start=start, mark_read=mark_read,
                                     game=game.current)
    if found is None:
        raise WebError(WebErrorCode.NOT_FOUND, what=inbox_id)
    inbox = s.inboxes[inbox_id]
    level = Access.WRITE if found.access == "write" else Access.READ
    messages = await thread(web, game, found, uid, lang)  # rendered posts, edits, mentions
    read_upto = found.read_upto
    buttons = [(k.value, KEYWORD_STYLE[k]) for k in keywords_of(inbox.kind)] if level is Access.WRITE else []
    tally, closed = await vote_panel(web, game, inbox_id, uid)
    pardons = []
    if inbox.kind == "court" and any(c.judge == uid for c in s.cities.values()):
        for name, c in s.cities.items():  # COURT-2..4: every judge votes on every verdict
            if c.verdict is not None:
                pardons.append({"city": name, "candidate": c.verdict.candidate,
                                "closes_at": c.verdict.closes_at, "mine": c.verdict.votes.get(uid)})
    me = s.residents.get(uid)
    suicide = None
    if inbox.kind == "personal" and inbox.subject == uid and me is not None and me.alive:
        suicide = "withdraw" if uid in s.cities[me.city].suicides else "declare"
    own_personal = inbox.kind == "personal" and inbox.subject == uid
    return {
        "pardons": pardons,
        "suicide": suicide,
        "nominate": nomination_of(game, uid, lang) if own_personal else None,
        "inbox": {
            "id": inbox_id,
            "kind": inbox.kind,
            "city": inbox.city,
            "archived": inbox.archived,
            "label": inbox_label(lang, s, inbox_id, uid),
        },
        "messages": messages,
        **earlier_control(found.earlier),
        "read_upto": read_upto,
        "can_post": level is Access.WRITE,
        "members": found.members,
        "vote_buttons": buttons,
        "keywords_only": found.keywords_only,
        "max_length": s.settings.message_max_length,
        "tally": tally,
        "closed": closed,
        "notary": notary_view(s, inbox_id, uid),  # INBOX-NOTARY-2/3
        **await vote_record.inbox_record(web, game, inbox_id, uid, lang, messages,
                                         whole=not found.earlier),  # B1
    }


async def vote_panel(web: Any, game: GameCtx, inbox_id: str, uid: str) -> tuple[Any, Any]:
    """A voting inbox's city tally, and the last closed vote's result once it is over."""
    s = game.state
    inbox = s.inboxes.get(inbox_id)
    if inbox is None or inbox.kind != "voting" or not inbox.city:
        return None, None
    tally = execution_tally(s, inbox.city, uid) or []
    book = s.cities[inbox.city].voting
    if book is not None and not book.closed:
        return tally, None
    return tally, last_closed_vote(await page_events(web, game), inbox.city)


async def tally_context(web: Any, game: GameCtx, inbox_id: str, uid: str) -> dict[str, Any]:
    """The tally region alone: no messages, no read marker (it changes nothing)."""
    found = game.state.inboxes.get(inbox_id)
    if found is None or not can_read(game.state, inbox_id, uid):
        raise WebError(WebErrorCode.NOT_FOUND, what=inbox_id)
    tally, closed = await vote_panel(web, game, inbox_id, uid)
    return {"inbox": {"id": inbox_id, "kind": found.kind, "city": found.city}, "tally": tally,
            "closed": closed}


@router.get("/games/{game_id}/inboxes/{inbox_id:path}/part", include_in_schema=False)
async def inbox_part(
    request: Request, game_id: str, inbox_id: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    game = await load_game(web, game_id)
    ctx = await inbox_context(web, game, inbox_id, user.user_id, lang)
    ctx.update(await game_context(web, request, game, user.user_id, "inboxes", unread=False),
               user=user.user_id)
    ctx["draft"] = request.query_params.get("draft", "")
    return rendered_at(render(request, "partials/inbox_body.html", ctx, lang=lang), ctx)


@router.get("/games/{game_id}/inboxes/{inbox_id:path}/tally", include_in_schema=False)
async def tally_part(
    request: Request, game_id: str, inbox_id: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    game = await load_game(web, game_id)
    ctx = await tally_context(web, game, inbox_id, user.user_id)
    ctx.update(await game_context(web, request, game, user.user_id, "inboxes", unread=False),
               user=user.user_id)
    return rendered_at(render(request, "partials/tally.html", ctx, lang=lang), ctx)


@router.post(
    "/games/{game_id}/inboxes/{inbox_id:path}/post", include_in_schema=False,
    dependencies=[CommandCsrfChecked],
)
async def post_message(
    request: Request, game_id: str, inbox_id: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    """A message, a typed vote or a vote button: all the same PostMessage (EXEC-5, JUDGE-ELECT-10)."""
    form = _form(await request.form())
    body = str(form.get("text", "")) if not isinstance(form.get("text"), list) else form["text"][0]
    back = f"/games/{game_id}/inboxes/{inbox_id}"
    error = None
    try:
        command = PostMessage(actor=user.user_id, inbox=inbox_id, text=body)
        command_id = scoped(user.user_id, str(form.get("command_id") or secrets.token_hex(8)))
        await web.service.execute(game_id, command, command_id)
    except CodedError as exc:
        error = describe(exc, lang, field="text")
    if request.headers.get("hx-request"):
        game = await load_game(web, game_id)
        if request.headers.get("hx-target") == COMPOSER_CARD:
            card = await composer_card(request, web, game, inbox_id, user.user_id, lang, error, body)
            if card is not None:
                return card
        ctx = await inbox_context(web, game, inbox_id, user.user_id, lang)
        ctx.update(await game_context(web, request, game, user.user_id, "inboxes", unread=False),
                   user=user.user_id)
        ctx.update(error=error, draft=body if error else "", flash=None)
        return rendered_at(render(request, "partials/inbox_body.html", ctx, lang=lang, status=200), ctx)
    if error is not None:
        return redirect(back, error=error, draft=body, lang=lang)
    return redirect(back, lang=lang)


COMPOSER_CARD = "composer-card"
"""The id of a chat composer's card: its own htmx target (``partials/composer_card.html``)."""


async def composer_card(request: Request, web: Any, game: GameCtx, inbox_id: str, uid: str, lang: str,
                        error: Any, body: str) -> Response | None:
    """A chat composer's answer to its own post: its card alone, emptied, or with the
    refusal and the draft kept (issue 17: the message reaches the thread by the socket's
    push, as everyone else's does; the thread is neither read nor rendered). None where the
    card no longer fits (the author may not write here any more): the whole region then."""
    header = await web.queries.inbox_header(game.id, inbox_id, uid, game=game.current)
    if header is None or header.access != "write" or header.keywords_only or keywords_of(header.kind):
        return None
    ctx = {"game": {"id": game.id}, "inbox": {"id": inbox_id}, "card_only": True, "vote_buttons": [],
           "keywords_only": False, "max_length": game.state.settings.message_max_length,
           "error": error, "draft": body if error else "", "flash": None}
    if error is not None:
        return render(request, "partials/composer_card.html", ctx, lang=lang)
    return EMPTY_CARDS.card(request, ctx, lang)


class EmptyCards:
    """The emptied composer card of each (game, inbox, language, length limit), rendered
    once: every author's answer is the same but for its form token, which is put in (one
    ``csrf_token`` per answer, as a render would make). Bounded; oldest first out."""

    PLACEHOLDER = "cardnonce0.0.cardmac0"
    """What the cached card holds where a token goes (the nonce part also as command id)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._html: dict[tuple[str, str, str, int], str] = {}  # in insertion order

    def card(self, request: Request, ctx: dict[str, Any], lang: str) -> HTMLResponse:
        key = (ctx["game"]["id"], ctx["inbox"]["id"], lang, ctx["max_length"])
        html = self._html.get(key)
        if html is None:
            drawn = render(request, "partials/composer_card.html",
                           {**ctx, "csrf_token": lambda: self.PLACEHOLDER}, lang=lang)
            html = bytes(drawn.body).decode()
            self._html[key] = html
            if len(self._html) > self.size:
                del self._html[next(iter(self._html))]
        token = csrf_token(request)
        nonce = self.PLACEHOLDER.split(".", 1)[0]
        fresh = html.replace(self.PLACEHOLDER, token).replace(nonce, token.split(".", 1)[0])
        return HTMLResponse(fresh, headers={"Cache-Control": "no-store"})


EMPTY_CARDS = EmptyCards()


def earlier_control(earlier: int) -> dict[str, int]:
    """The numbers of «Show earlier messages» (partials/thread_items.html): how many
    messages come before the first one shown, and where its link without JavaScript starts
    (a page before it)."""
    return {"earlier": earlier, "earlier_from": max(1, earlier + 1 - THREAD_PAGE)}


def message_number(raw: str | None) -> int | None:
    """A message number from a query string; None for anything else (the default view)."""
    return int(raw) if raw and raw.isdigit() and 0 < int(raw) < 10**9 else None


@router.get("/games/{game_id}/inboxes/{inbox_id:path}/earlier", include_in_schema=False)
async def earlier_messages(
    request: Request, game_id: str, inbox_id: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    """The messages before number ``before`` ("show earlier", htmx): their items, and the
    control for the ones before them if there are any. No read marker moves."""
    before = message_number(request.query_params.get("before"))
    game = await load_game(web, game_id)
    found = await web.queries.thread(game.id, inbox_id, user.user_id, before=before or 1,
                                     mark_read=False, game=game.current)
    if found is None:
        raise WebError(WebErrorCode.NOT_FOUND, what=inbox_id)
    messages = await thread(web, game, found, user.user_id, lang)
    until = datetime.fromisoformat(found.next_at) if found.next_at else None
    ctx = {"game": game, "user": user.user_id, "inbox": {"id": inbox_id}, "messages": messages,
           **earlier_control(found.earlier), "read_upto": found.read_upto,
           "can_post": found.access == "write",
           "max_length": game.state.settings.message_max_length,
           **await vote_record.inbox_record(web, game, inbox_id, user.user_id, lang, messages,
                                            whole=not found.earlier, until=until)}
    return render(request, "partials/thread_items.html", ctx, lang=lang)


@router.get("/games/{game_id}/inboxes/{inbox_id:path}", include_in_schema=False)
async def inbox_view(
    request: Request, game_id: str, inbox_id: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    """An inbox's page: its last messages (or from the first unread one), or with ``from``
    (a message number: the "show earlier" link without JavaScript) from that one on."""
    game = await load_game(web, game_id)
    ctx = await inbox_context(web, game, inbox_id, user.user_id, lang,
                              start=message_number(request.query_params.get("from")))
    return await game_page(request, web, user, lang, game, "inboxes", "pages/inbox.html", **ctx)


# --- every other form ----------------------------------------------------------------


def _form(raw: Any) -> Form:
    out: Form = {}
    for key in raw:
        values = [v for v in raw.getlist(key) if isinstance(v, str)]
        out[key] = values if len(values) > 1 or key in ("accepted",) else (values[0] if values else "")
    return out


@router.post("/games/{game_id}/do/{action}", include_in_schema=False, dependencies=[CommandCsrfChecked])
async def do(
    request: Request, game_id: str, action: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    """One form, one engine command through the service, with the API's scoped command ids.
    An error comes back to the same page as a translated message with its stable code."""
    form = _form(await request.form())
    back = safe_next(str(form.get("next") or ""), f"/games/{game_id}")
    try:
        game = await load_game(web, game_id)
        raw_id = str(form.get("command_id") or secrets.token_hex(8))
        command_id = scoped(user.user_id, raw_id)
        if action == "signup":
            await web.accounts.check_not_banned(user.user_id)
            contact = web.accounts.validate_contact(text(form, "contact", required=False))
            accepted = frozenset(a for a in form.get("accepted", []) if a in REQUIREMENTS)
            await web.service.execute(
                game_id, SignUp(actor=user.user_id, accepted=accepted, has_contact=bool(contact)), command_id
            )
            await web.accounts.save_contact(game_id, user.user_id, contact)
            return redirect(back, ok=N_("You are signed up."), lang=lang)
        builder = ACTIONS.get(action)
        if builder is None:
            raise WebError(WebErrorCode.UNKNOWN_COMMAND, command=action)
        if action in CONFIRM and form.get("confirmed") != "yes":
            return confirm_page(request, game, user.user_id, lang, action, form, back)
        with draws(platform_rng(web, game_id, user.user_id, raw_id, f"page:{action}")):
            command = builder(form, user.user_id, game.state)
        await web.service.execute(game_id, command, command_id)
        if isinstance(command, hc.RecordSanction):  # OMERTA-2, PLAYER-7: sign-up checks it
            await web.accounts.register_game_sanction(game_id, await web.service.state(game_id),
                                                      command)
    except CodedError as exc:
        return redirect(back, error=describe(exc, lang), form=form, action=request.url.path, lang=lang)
    if action == "nominate":  # EXEC-3: say whom, and until when it may be replaced
        after = nomination_of(await load_game(web, game_id), user.user_id, lang) or {}
        if after.get("until"):
            return redirect(back, ok=N_("Your nomination: {user} (you may change it until {time} MSK)"),
                            ok_fields={"user": after.get("mine"), "time": after["until"]}, lang=lang)
        return redirect(back, ok=N_("Your nomination: {user}"), ok_fields={"user": after.get("mine")},
                        lang=lang)
    return redirect(back, ok=N_("Done."), lang=lang)


CONFIRM: dict[str, str] = {
    "suicide": N_("Declare suicide? You die when the day ends, unless you withdraw it before then."),
    "sign_impeachment": N_("Sign the demand to impeach the Tribune? A signature cannot be taken back."),
    "no_confidence": N_("Express no confidence? It cannot be taken back."),
    "file_case": N_("File a case with the Supreme Arbiter? It cannot be taken back."),
    "petition": N_("File a petition to remove the judge? It cannot be taken back."),
    "recuse": N_("Recuse yourself as judge? It cannot be taken back."),
    "decline_candidacy": N_("Decline your candidacy? It cannot be taken back."),
}
"""Forms whose effect cannot be undone (or ends one's game): the first POST answers with a
confirmation page (no JavaScript needed) that re-posts the same fields with ``confirmed``."""


def confirm_page(request: Request, game: GameCtx, uid: str, lang: str, action: str, form: Form,
                 back: str) -> HTMLResponse:
    kept = {k: v for k, v in form.items() if k not in ("csrf_token", "command_id", "confirmed", "next")}
    fields = [(k, item) for k, v in kept.items() for item in (v if isinstance(v, list) else [v])]
    ctx = {"user": uid, "game": game, "question": CONFIRM[action], "action": action, "fields": fields,
           "back": back}
    return render(request, "pages/confirm.html", ctx, lang=lang)


__all__ = ["ev", "router"]
