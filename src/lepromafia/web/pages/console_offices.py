"""What each host console shows beside its task list, office by office. Every fact is the
engine's state or an event the office may see (``service.outbound.visible``); the pages
ask no rule question of their own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from ...engine import events as ev
from ...engine import events_host as hev
from ...engine import targets
from ...engine.decisions.sanctions import SANCTION_WORDS
from ...engine.duties import DutyKind, duties
from ...engine.inboxes import Kind, can_read, live_inbox
from ...engine.rules import night
from ...engine.rules.cases import IMPEACH_OUTCOMES, bannable_kinds
from ...engine.rules.host import SANCTION_RULES, offices_of
from ...engine.rules.judges import earliest_window
from ...engine.state import GameState
from ...service.outbound import visible
from ..api.votes import published_counts
from ..i18n import N_, translate
from .common import GameCtx, page_events
from .game import city_rows, day_contests, posts_of
from .labels import inbox_label
from .render import local
from .views import execution_tally
from .votes import HELPERS as VOTE_HELPERS
from .votes import record_of

SANCTION_LABELS = SANCTION_WORDS
"""The bans a Procurator may record (PLAYER-7), by what they punish: the decision's words."""


async def _visible(web: Any, game: GameCtx, uid: str, kinds: tuple[type, ...]) -> list[tuple[int, Any]]:
    return list(visible(await page_events(web, game), uid, kinds))


def _clock(dt: datetime | None) -> str:
    """A moment as the Moscow clock shows it on its day («14:00»), the date when not today."""
    return local(dt).split(" ")[-1] if dt else ""


def _on_the_minute(window: tuple[datetime, datetime], step: int = 5) -> tuple[datetime, datetime]:
    """A window the picker can show (whole minutes), moved later to the next ``step``
    minutes so that it still gives the notice it gave when the page was drawn."""
    opens, closes = window
    extra = timedelta(minutes=step - opens.minute % step, seconds=-opens.second,
                      microseconds=-opens.microsecond)
    return opens + extra, closes + extra


# --- the Procurator ----------------------------------------------------------------


CITY_NAMES = ("Лепроград", "Лепросицилия", "Глюкоград", "Пыжиков", "Баянск", "Тролльск", "Коптильня")
"""Suggested city names for the Form-cities draft (a host may rename them)."""


def _draft_cities(s: GameState) -> list[dict[str, Any]]:
    """CITY-3: the Form-cities draft, one entry per city: a suggested name and the signed-up
    players spread evenly. The Tribune is left empty: a host names a real person (no
    placeholder is ever preselected)."""
    if s.cities:
        return [{"name": n, "tribune": c.tribune, "residents": c.residents} for n, c in s.cities.items()]
    count = max(1, s.settings.city_count)
    chunks: list[list[str]] = [[] for _ in range(count)]
    for i, user in enumerate(s.signups):
        chunks[i % count].append(user)
    return [{"name": CITY_NAMES[i] if i < len(CITY_NAMES) else f"Город-{i + 1}", "tribune": "",
             "residents": tuple(chunk)} for i, chunk in enumerate(chunks)]


async def procurator(web: Any, game: GameCtx, uid: str, lang: str) -> dict[str, Any]:
    s = game.state
    posts = await posts_of(web, game)
    today_post = next((p for p in posts if p.day == s.day), None)
    return {
        "draft_cities": _draft_cities(s),
        "first_day": game.now.astimezone().date().isoformat(),
        "offers": await _offers(web, game, uid, lang),
        "commitment": s.deal.commitment,
        "numbers_named": sorted(s.deal.numbers),
        "today_post": today_post,
        "day_contests": await day_contests(web, game, posts[:1]) if posts else {},
        "default_start": s.settings.day_start_time,
        "restorations_to_deal": [
            {"city": n, "new_name": c.restoration.new_name, "count": c.restoration.mafia_count,
             "size": len(c.restoration.order)}
            for n, c in s.cities.items()
            if c.restoration and c.restoration.order and not c.restoration.dealt],
        "cities": city_rows(game),
        **await _procurator_decisions(web, game, uid, lang),
    }


async def _offers(web: Any, game: GameCtx, uid: str, lang: str) -> list[dict[str, Any]]:
    """COMM-APPT-1..3, SEC-1: each city's offers as the Procurator knows them — to whom,
    which attempt of how many, the answer due by, and an answer only once it is revealed."""
    s = game.state
    offered = {(e.city, e.attempt): e for _s, e in await _visible(web, game, uid, (ev.CommissarOffered,))}
    resolved = {(e.city, e.attempt): e
                for _s, e in await _visible(web, game, uid, (ev.CommissarOfferResolved,))}
    appointed = {e.city for _s, e in await _visible(web, game, uid, (ev.CommissarAppointed,))}
    appointed |= {city for (city, _a), r in resolved.items() if r.accepted}  # what he is told
    # COMM-APPT-1, -3: the engine says where an offer may be made now.
    offerable = {d.city for d in duties(s, uid, game.now, (DutyKind.OFFER_COMMISSAR,))}
    attempts = s.settings.commissar_offer_attempts
    rows = []
    for name, c in s.cities.items():
        history = []
        for (city, attempt), e in sorted(offered.items()):
            if city != name:
                continue
            r = resolved.get((city, attempt))
            if r is None:
                due = s.deadlines.get(f"offer_timeout:{name}:{attempt}")
                status = translate(lang, N_("waiting for the answer until {time} MSK"), time=local(due)) \
                    if due else translate(lang, N_("waiting for the answer"))
            elif r.accepted:
                status = translate(lang, N_("accepted"))
            else:
                status = translate(lang, N_("no answer in time") if r.lapsed else N_("refused"))
            history.append({"attempt": attempt, "candidate": e.candidate, "status": status})
        rows.append({
            "city": name, "attempts": attempts, "made": len(history), "history": history,
            "appointed": name in appointed, "decided": c.decided is not None,
            "pending": any((name, h["attempt"]) not in resolved for h in history),
            "can_offer": name in offerable and name not in appointed,
        })
    return rows


async def _procurator_decisions(web: Any, game: GameCtx, uid: str, lang: str) -> dict[str, Any]:
    """HOST-2, HOST-PROC-5, OMERTA-2, IMPEACH-2, NOCONF-1/2: what awaits the Procurator."""
    s = game.state
    hosts = sorted(u for u in s.hosts() if u)
    complaints = {e.complaint: e for _s, e in await _visible(web, game, uid, (hev.NoConfidenceExpressed,))}
    return {
        "combinations": [(u, offices_of(s, u)) for u in hosts
                         if len(offices_of(s, u)) >= 2 and u not in s.records.acknowledged],
        "open_contests": [c for c in s.records.contests if not c.results_recorded],
        "everyone": sorted(s.residents),
        "sanction_rules": [(r, translate(lang, SANCTION_LABELS[r])) for r in SANCTION_RULES],
        "sanction_labels": {r: translate(lang, SANCTION_LABELS[r]) for r in SANCTION_RULES},
        "sanctions": s.records.sanctions,
        "impeachments": [i for i in s.records.impeachments if i.outcome is None],
        "impeach_outcomes": IMPEACH_OUTCOMES,
        "complaints": [complaints[c.number] for c in s.records.complaints
                       if not c.decided and c.number in complaints],
    }


# --- the Tribune ---------------------------------------------------------------------


async def tribune(web: Any, game: GameCtx, uid: str, lang: str) -> dict[str, Any]:
    s = game.state
    tribunes = s.tribunes()
    mine = [n for n, c in s.cities.items()
            if c.tribune == uid or s.records.delegate_active(n, uid, game.now, tribunes)]
    proxies = await _visible(web, game, uid, (ev.ProxyRequested,))
    closed = await _visible(web, game, uid, (ev.VotingClosed,))
    counts = published_counts(await page_events(web, game), uid)
    unread = {i.inbox: i.unread for i in await web.queries.inboxes(game.id, uid, game=game.current)}
    cities: list[dict[str, Any]] = []
    for name in mine:
        c = s.cities[name]
        personal = [
            {"resident": r, "label": inbox_label(lang, s, i, uid), "inbox": i, "unread": unread.get(i, 0),
             "alive": s.residents[r].alive}
            for r in c.residents
            if (i := s.current.get(f"personal:{r}")) and can_read(s, i, uid)
        ]
        grouped: dict[str, list[str]] = {}
        for nominator, candidate in sorted(c.nominations.items()):
            grouped.setdefault(candidate, []).append(nominator)
        last = next((e for _s, e in reversed(closed) if e.city == name and e.day == s.day), None)
        # EXEC-14, EXEC-16: the previous day's count, which he publishes with the verdict.
        before = next((vc for vc in reversed(counts) if vc.city == name and vc.day < s.day), None)
        cities.append({
            "index": len(cities) + 1,
            "name": name,
            "own": c.tribune == uid,
            "city_inbox": s.current.get(f"city:{name}"),
            "personal": personal,
            "nominations": sorted(grouped.items(), key=lambda kv: (-len(kv[1]), kv[0])),
            "proxies": [(e.voter, e.candidates) for _s, e in proxies if e.city == name],
            "tally": execution_tally(s, name, uid),
            "closed": last,
            "previous": record_of(lang, game.id, before) if before else None,
            "vote_opens_at": c.vote_opens_at,
            "vote_closes_at": c.vote_closes_at,
            "nominations_close_at": c.nominations_close_at,
            "voting_open": c.voting is not None and not c.voting.closed,
            "residents": c.residents,
            "living": s.living(name),
            "restoration": c.restoration,
            "decided": c.decided.value if c.decided else None,
        })
    observers = [(e.city, e.user) for _s, e in await _visible(web, game, uid, (ev.ObserverJoined,))
                 if e.city in mine]
    delegations = [d for d in s.records.delegations
                   if (d.city in mine or d.delegate == uid) and not d.revoked and game.now < d.until]
    return {"my_cities": cities, "plan": s.plan(), "observers": observers, "delegations": delegations,
            "other_tribunes": sorted(t for t in tribunes if t != uid),
            "executions_today": s.day >= 2, "has_court": s.has_court, **VOTE_HELPERS}


# --- the Supreme Arbiter -------------------------------------------------------------


async def arbiter(web: Any, game: GameCtx, uid: str, lang: str) -> dict[str, Any]:
    s = game.state
    found: dict[str, Any] = {"has_court": s.has_court, **await _cases(web, game, uid, lang)}
    if not s.has_court:
        return found
    polling = [
        (n, i)
        for n, c in s.cities.items()
        for key, i in s.current.items()
        if key.startswith(f"polling:{n}/") and not s.inboxes[i].archived and can_read(s, i, uid)
    ]
    found.update({
        "petitions": [(n, c.petition) for n, c in s.cities.items() if c.petition],
        "verdicts": [(n, c.verdict) for n, c in s.cities.items() if c.verdict],
        "elections": [(n, c.election) for n, c in s.cities.items() if c.election],
        "polling": polling,
        "court_inbox": next((i for k, i in s.current.items() if k.startswith("court:")), None),
        "judges": [(n, c.judge) for n, c in s.cities.items()],
        "decided": {n for n, c in s.cities.items() if c.decided is not None},
        "recusals": [e for _s, e in await _visible(web, game, uid, (ev.JudgeRecused,))],
        "preset_chosen": s.pardon_votes_held,
        "judge_defaults": {n: _on_the_minute(earliest_window(s, c, game.now)) for n, c in s.cities.items()},
        # JUDGE-ELECT-2 (AMB-9): who may stand, as the engine answers it, and the candidates
        # proposed so far with how many citizens proposed each (not who: the Tribune collects).
        "judge_candidates": {n: targets.judge_candidates(s, n) for n, c in s.cities.items()
                             if c.decided is None and c.judge is None},
        "proposed": {n: _proposed(c.election.proposals) for n, c in s.cities.items()
                     if c.election and not c.election.opened},
    })
    return found


def _proposed(proposals: Mapping[str, str]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for candidate in proposals.values():
        counts[candidate] = counts.get(candidate, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


async def _cases(web: Any, game: GameCtx, uid: str, lang: str) -> dict[str, Any]:
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
        "bannable": [(i, inbox_label(lang, s, i, uid)) for i, box in s.inboxes.items()
                     if box.kind in kinds and not box.archived
                     and (box.kind in ("city", "cemetery") or can_read(s, i, uid))],
    }


# --- the Consigliere -----------------------------------------------------------------


async def consigliere(web: Any, game: GameCtx, uid: str, lang: str) -> dict[str, Any]:
    s = game.state
    sealed = await _visible(web, game, uid, (ev.DealListsRecorded,))
    checks = await _visible(web, game, uid, (ev.CheckAnswered,))
    ambushes = await _visible(web, game, uid, (ev.AmbushPlaced,))
    dealt = await _visible(web, game, uid, (ev.MafiaDealt,))
    mafia_of = {e.city: e.mafiosi for _s, e in dealt}
    checks_close = s.deadlines.get(f"checks_close:{s.day}")
    return {
        "sealed_lists": sealed[-1][1].lists if sealed else (),
        "checks": [e for _s, e in checks],
        # COMM-4 (AMB-20): questions awaiting the Consigliere's answer, city and target only.
        "pending_checks": [(n, c.checked_tonight) for n, c in s.cities.items()
                           if c.check_pending and c.checked_tonight],
        "checks_close": checks_close,
        "check_mode": s.settings.commissar_check_mode,
        "ambush_log": [e for _s, e in ambushes],
        "mafia_of": mafia_of,
        "godfathers": {n: c.godfather for n, c in s.cities.items()},
        # GODFATHER-3: the cities whose election failed, each with the engine's candidates.
        "appointable": {n: targets.godfather_candidates(s, n) for n, c in s.cities.items()
                        if n in mafia_of and c.decided is None and night.appointment_open(c)
                        and s.living_mafia(n)},
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
        "bar": live_inbox(s, Kind.BAR),
        "mafia_inboxes": {n: live_inbox(s, Kind.MAFIA, n) for n in mafia_of},
    }


OFFICES: dict[str, Callable[[Any, GameCtx, str, str], Awaitable[dict[str, Any]]]] = {
    "procurator": procurator, "tribune": tribune, "arbiter": arbiter, "consigliere": consigliere,
}

__all__ = ["OFFICES", "SANCTION_LABELS"]
