"""The hosts' consoles. Each shows only what its office may know (no god view, §9) and posts
every decision as an engine command through ``/games/{id}/do/{action}``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...engine import events as ev
from ...engine import events_host as hev
from ...engine.inboxes import can_read
from ...engine.rules.cases import IMPEACH_OUTCOMES, bannable_kinds
from ...engine.rules.host import SANCTION_RULES, offices_of
from ...service.accounts import AccountError
from ...service.outbound import visible
from ..deps import Lang, RequireUser, WebDep
from ..errors import WebError, WebErrorCode
from ..i18n import N_, translate
from .common import GameCtx, load_game, page_events
from .game import city_rows, clocks, game_page, inbox_rows, posts_of
from .labels import inbox_label
from .views import Seat, execution_tally, seat_of

router = APIRouter()

OFFICE_NAMES = {
    "procurator": "Procurator",
    "tribune": "Tribune",
    "arbiter": "Supreme Arbiter",
    "consigliere": "Consigliere",
}


def _allowed(seat: Seat, office: str) -> bool:
    return office in seat.consoles


async def _visible(web: Any, game: GameCtx, uid: str, kinds: tuple[type, ...]) -> list[tuple[int, Any]]:
    return list(visible(await page_events(web, game), uid, kinds))


DUTY_TEXTS = {
    "appoint_consigliere": N_("Appoint the Consigliere"),
    "appoint_arbiter": N_("Appoint the Supreme Arbiter"),
    "form_cities": N_("Form the cities ({signups} signed up)"),
    "name_numbers": N_("Name the mafia's numbers · {city}"),
    "start_game": N_("Start the game"),
    "offer_commissar": N_("Offer the commissar's badge · {city} (attempt {attempt})"),
    "seal_deal": N_("Seal the deal"),
    "commit_entropy": N_("Commit to your value for the drawn deal"),
    "open_reveals": N_("Open the reveals of the drawn deal"),
    "reveal_entropy": N_("Reveal your value for the drawn deal"),
    "appoint_godfather": N_("Appoint a Godfather · {city}"),
    "schedule_vote": N_("Schedule the vote · {city}"),
    "verdict_pending": N_("A pardon window is open · {city}"),
    "schedule_judge_election": N_("Schedule a judge election · {city}"),
    "choose_pardon_preset": N_("Choose the Court's majority rule"),
    "answer_check": N_("Answer a check · {city}"),
    "sign_restoration": N_("Sign the restoration · {city}"),
}
"""A host duty's sentence (English msgid) by its kind."""


def _duty_text(lang: str, duty: dict[str, Any]) -> str:
    template = DUTY_TEXTS.get(str(duty["duty"]))
    if template is None:
        return str(duty["duty"])
    return translate(lang, template, **duty)


def _draft_cities(game: GameCtx) -> str:
    s = game.state
    if s.cities:
        return "\n".join(f"{n}; {c.tribune}; {', '.join(c.residents)}" for n, c in s.cities.items())
    count = max(1, s.settings.city_count)
    names = ["Лепроград", "Лепросицилия", "Глюкоград", "Пыжиков", "Баянск", "Тролльск", "Коптильня"]
    chunks: list[list[str]] = [[] for _ in range(count)]
    for i, user in enumerate(s.signups):
        chunks[i % count].append(user)
    return "\n".join(
        f"{names[i] if i < len(names) else f'Город-{i + 1}'}; tribune{i + 1}; {', '.join(chunk)}"
        for i, chunk in enumerate(chunks)
    )


@router.get("/games/{game_id}/console/{office}", include_in_schema=False)
async def console(
    request: Request, game_id: str, office: str, web: WebDep, user: RequireUser, lang: Lang
) -> Response:
    game = await load_game(web, game_id)
    uid = user.user_id
    s = game.state
    seat = seat_of(s, uid)
    if office not in OFFICE_NAMES:
        raise WebError(WebErrorCode.NOT_FOUND, what=office)
    if not _allowed(seat, office):
        raise WebError(WebErrorCode.FORBIDDEN)
    duties = [_duty_text(lang, d) for d in await web.queries.duties(game_id, uid) if d["office"] == office]
    inboxes = [r for r in await inbox_rows(web, game, uid, lang) if not r.archived]
    ctx: dict[str, Any] = {
        "office": office,
        "duties": duties,
        "inboxes": inboxes,
        "deadlines": await clocks(web, game, uid, lang),
        "cities": city_rows(game),
        "now_local": (game.now + timedelta(hours=0)),
        "state": s,
    }
    if office == "procurator":
        ctx.update(await _procurator(web, game, uid))
    elif office == "tribune":
        ctx.update(await _tribune(web, game, uid, lang))
    elif office == "arbiter":
        ctx.update(await _arbiter(web, game, uid))
    else:
        ctx.update(await _consigliere(web, game, uid, lang))
    return await game_page(
        request, web, user, lang, game, f"console-{office}", f"pages/console_{office}.html", **ctx
    )


async def _procurator(web: Any, game: GameCtx, uid: str) -> dict[str, Any]:
    s = game.state
    first_day = (game.now + timedelta(days=1)).date().isoformat()
    offers = []
    for name, c in s.cities.items():
        offers.append(
            {
                "city": name,
                "commissar_known": False,
                "open": c.appointment_open,
                "offer": c.offer is not None and c.offer.accepted is None and not c.offer.lapsed,
                "attempts": len(c.offers_made),
            }
        )
    return {
        "draft_cities": _draft_cities(game),
        "first_day": first_day,
        "offers": offers,
        "commitment": s.deal.commitment,
        "numbers_named": sorted(s.deal.numbers),
        "posts": (await posts_of(web, game))[:1],
        "default_start": s.settings.day_start_time,
        "restorations_to_deal": [
            {"city": n, "new_name": c.restoration.new_name, "count": c.restoration.mafia_count,
             "size": len(c.restoration.order)}
            for n, c in s.cities.items()
            if c.restoration and c.restoration.order and not c.restoration.dealt],
        **await _procurator_decisions(web, game, uid),
    }


async def _procurator_decisions(web: Any, game: GameCtx, uid: str) -> dict[str, Any]:
    """HOST-2, HOST-PROC-5, OMERTA-2, IMPEACH-2, NOCONF-1/2: what awaits the Procurator."""
    s = game.state
    hosts = sorted(u for u in s.hosts() if u)
    complaints = {e.complaint: e for _s, e in await _visible(web, game, uid, (hev.NoConfidenceExpressed,))}
    return {
        "combinations": [(u, offices_of(s, u)) for u in hosts
                         if len(offices_of(s, u)) >= 2 and u not in s.records.acknowledged],
        "open_contests": [c for c in s.records.contests if not c.results_recorded],
        "everyone": sorted(s.residents),
        "sanction_rules": SANCTION_RULES,
        "sanctions": s.records.sanctions,
        "impeachments": [i for i in s.records.impeachments if i.outcome is None],
        "impeach_outcomes": IMPEACH_OUTCOMES,
        "complaints": [complaints[c.number] for c in s.records.complaints
                       if not c.decided and c.number in complaints],
    }


async def _tribune(web: Any, game: GameCtx, uid: str, lang: str) -> dict[str, Any]:
    s = game.state
    mine = [n for n, c in s.cities.items() if c.tribune == uid]
    proxies = await _visible(web, game, uid, (ev.ProxyRequested,))
    cities = []
    for name in mine:
        c = s.cities[name]
        personal = [
            (r, inbox_label(lang, s, i, uid), i)
            for r in c.residents
            if (i := s.current.get(f"personal:{r}")) and can_read(s, i, uid)
        ]
        cities.append(
            {
                "name": name,
                "city_inbox": s.current.get(f"city:{name}"),
                "personal": personal,
                "nominations": sorted(c.nominations.items()),
                "proxies": [(e.voter, e.candidates) for _s, e in proxies if e.city == name],
                "tally": execution_tally(s, name, uid),
                "vote_opens_at": c.vote_opens_at,
                "vote_closes_at": c.vote_closes_at,
                "residents": c.residents,
                "living": s.living(name),
                "restoration": c.restoration,
            }
        )
    plan = s.plan()
    observers = [(e.city, e.user) for _s, e in await _visible(web, game, uid, (ev.ObserverJoined,))
                 if e.city in mine]
    delegations = [d for d in s.records.delegations
                   if (d.city in mine or d.delegate == uid) and not d.revoked and game.now < d.until]
    return {"my_cities": cities, "plan": plan, "observers": observers, "delegations": delegations,
            "other_tribunes": sorted(t for t in s.tribunes() if t != uid)}


async def _arbiter(web: Any, game: GameCtx, uid: str) -> dict[str, Any]:
    s = game.state
    petitions = [(n, c.petition) for n, c in s.cities.items() if c.petition]
    verdicts = [(n, c.verdict) for n, c in s.cities.items() if c.verdict]
    elections = [(n, c.election) for n, c in s.cities.items() if c.election]
    polling = [
        (n, i)
        for n, c in s.cities.items()
        for key, i in s.current.items()
        if key.startswith(f"polling:{n}/") and can_read(s, i, uid)
    ]
    return {
        "petitions": petitions,
        "verdicts": verdicts,
        "elections": elections,
        "polling": polling,
        "court_inbox": next((i for k, i in s.current.items() if k.startswith("court:")), None),
        "has_court": s.has_court,
        "judges": [(n, c.judge) for n, c in s.cities.items()],
        **await _cases(web, game, uid),
    }


async def _cases(web: Any, game: GameCtx, uid: str) -> dict[str, Any]:
    """HOST-ARB-3: the private-prosecution cases as the Arbiter received them, the inboxes he
    may ban from (AMB-34, ``arbiter_ban_scope``) and the cases with a ban still running."""
    s = game.state
    texts = {e.case: e.text for _s, e in await _visible(web, game, uid, (hev.PrivateCaseFiled,))}
    kinds = {k.value for k in bannable_kinds(s)}
    active = {b.case for b in s.records.bans if not b.lifted and game.now < b.until}
    return {
        "cases": [{"case": c, "text": texts.get(c.number, ""), "banned": c.number in active}
                  for c in s.records.cases if c.number in texts],
        # A city inbox or a Cemetery is known to exist; any other kind only if he reads it.
        "bannable": [i for i, box in s.inboxes.items()
                     if box.kind in kinds and not box.archived
                     and (box.kind in ("city", "cemetery") or can_read(s, i, uid))],
    }


async def _consigliere(web: Any, game: GameCtx, uid: str, lang: str) -> dict[str, Any]:
    s = game.state
    sealed = await _visible(web, game, uid, (ev.DealListsRecorded,))
    checks = await _visible(web, game, uid, (ev.CheckAnswered,))
    ambushes = await _visible(web, game, uid, (ev.AmbushPlaced,))
    dealt = await _visible(web, game, uid, (ev.MafiaDealt,))
    mafia_of = {e.city: e.mafiosi for _s, e in dealt}
    godfathers = {n: c.godfather for n, c in s.cities.items()}
    return {
        "sealed_lists": sealed[-1][1].lists if sealed else (),
        "checks": [e for _s, e in checks],
        # COMM-4 (AMB-20): questions awaiting the Consigliere's answer, city and target only.
        "pending_checks": [(n, c.checked_tonight) for n, c in s.cities.items()
                           if c.check_pending and c.checked_tonight],
        "ambush_log": [e for _s, e in ambushes],
        "mafia_of": mafia_of,
        "godfathers": godfathers,
        "can_seal": s.stage.value == "formed",
        "restorations_to_seal": [
            (n, c.restoration.new_name) for n, c in s.cities.items()
            if c.restoration and c.restoration.began_day is not None and not c.restoration.order],
        "restoration_lists": [(e.city, e.order) for _s, e in
                              await _visible(web, game, uid, (ev.RestorationListRecorded,))],
        # AMBUSH-6: the cities holding the right for tonight or a night to come; the order set
        # before (or the living mafiosi) as the default.
        "ambush_cities": [(n, ", ".join(dict(s.records.ambush_orders).get(n, s.living_mafia(n))))
                          for n, c in s.cities.items()
                          if c.decided is None and any(night >= s.day for night in c.ambush_nights)],
        # MAFIA-COMM-1..3: relays awaiting review.
        "pending_relays": [r for r in s.records.relays if r.state == "pending"],
    }


@router.get("/games/{game_id}/contacts", include_in_schema=False)
async def contacts(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    """PLAYER-4, SEC-13: the voice contacts the viewer is entitled to (the Procurator: all;
    a Tribune: his city's residents); every read is logged. Nobody else: 403."""
    game = await load_game(web, game_id)
    s = game.state
    subjects = [u for u in s.residents if web.accounts.may_read_contact(s, user.user_id, u)]
    if not subjects:
        raise WebError(WebErrorCode.FORBIDDEN)
    rows = []
    for subject in subjects:
        try:
            text = await web.accounts.read_contact(s, game_id, user.user_id, subject)
        except AccountError:
            text = ""
        rows.append((s.residents[subject].city, subject, text))
    rows.sort()
    return await game_page(request, web, user, lang, game, "contacts", "pages/contacts.html", rows=rows)


__all__ = ["router", "translate"]
