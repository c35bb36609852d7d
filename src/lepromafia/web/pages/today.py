"""The "today" panel atop the game page (issue 11; review M2, M4, M5, M11): the phase, the
viewer's next deadline (a countdown and Moscow clock time), his status, his duties now with
one-click links, what is not possible yet and when it will be, and what happened since his
last visit.

Every rule answer comes from the engine: duties from ``engine.duties.duties``, "not yet"
from ``engine.upcoming.upcoming``, the events from ``service.outbound.visible``. This module
only words and links them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from urllib.parse import quote

from ...engine import events as ev
from ...engine.duties import Duty, DutyKind, Seat, duties
from ...engine.state import GameState, PhaseKind, Stage
from ...engine.upcoming import Soon, Upcoming, upcoming
from ...service.outbound import visible
from ..i18n import N_, translate
from .common import GameCtx, page_events
from .terms import term

ROLE_ANCHORS: dict[DutyKind, str] = {
    DutyKind.NOMINATE: "nominate",
    DutyKind.ACKNOWLEDGE_ROLE: "rolecard",
    DutyKind.ANSWER_OFFER: "offer-card",
    DutyKind.PROPOSE_JUDGE: "judge-election",
    DutyKind.CHECK: "commissar-check",
    DutyKind.ORDER_KILL: "mafia-night",
    DutyKind.DECLARE_KILL: "mafia-night",
    DutyKind.ORDER_TOUR: "mafia-night",
    DutyKind.DECLARE_TOUR: "mafia-night",
    DutyKind.VOTE_GODFATHER: "mafia-night",
    DutyKind.PLACE_AMBUSH: "mafia-night",
}
"""Where on the role card a resident's duty is done."""

CONSOLE_OF: dict[Seat, str] = {Seat.PROCURATOR: "procurator", Seat.CONSIGLIERE: "consigliere",
                               Seat.ARBITER: "arbiter", Seat.TRIBUNE: "tribune"}

RESIDENT_TEXTS: dict[DutyKind, str] = {
    DutyKind.NOMINATE: N_("Nominate a resident for execution"),
    DutyKind.ACKNOWLEDGE_ROLE: N_("Acknowledge your role"),
    DutyKind.ANSWER_OFFER: N_("Answer the offer of the commissar's badge"),
    DutyKind.PROPOSE_JUDGE: N_("Propose a judge"),
    DutyKind.VOTE_PARDON: N_("Vote on the pardon · {city}"),
    DutyKind.CHECK: N_("Check a resident tonight"),
    DutyKind.ORDER_KILL: N_("Give tonight's kill order"),
    DutyKind.DECLARE_KILL: N_("Your voice on tonight's kill"),
    DutyKind.ORDER_TOUR: N_("Give the tour kill order"),
    DutyKind.DECLARE_TOUR: N_("Your voice on the tour kill"),
    DutyKind.VOTE_GODFATHER: N_("Elect the Godfather"),
    DutyKind.PLACE_AMBUSH: N_("Place an ambush"),
}

DEADLINE_TEXTS: dict[str, str] = {
    DutyKind.VOTE.value: N_("The vote closes"),
    DutyKind.NOMINATE.value: N_("Nominations close"),
    DutyKind.CHECK.value: N_("Checks close"),
    DutyKind.ANSWER_OFFER.value: N_("Answer the offer"),
}
"""The panel's headline for a duty's deadline; other duties are named by their own text."""

SOON_TEXTS: dict[Soon, str] = {
    Soon.NOMINATE: N_("Nominations — from Day {n}."),
    Soon.VOTE: N_("The vote opens at {time} MSK."),
    Soon.STRIKE: N_("The mafia's kill — on Night {n}."),
    Soon.CHECK: N_("First check — on Night {n}."),
}
SOON_AT_TEXTS: dict[Soon, str] = {
    Soon.CHECK: N_("The check — tonight, from {time} MSK."),
}


@dataclass
class Link:
    text: str
    href: str
    mine: bool = False
    """The viewer's current choice (his vote)."""


@dataclass
class Item:
    text: str
    href: str
    required: bool
    deadline: datetime | None
    links: list[Link] = field(default_factory=list)
    """Several targets of one duty (today's voting inboxes)."""
    kind: str = ""
    until: str = ""
    """The deadline as Moscow clock time («23:30»)."""


@dataclass
class Today:
    phase: str
    day: int
    status: str
    deadline: tuple[str, datetime, str] | None
    """(what, when, «23:30»)."""
    items: list[Item]
    later: list[str]
    since: list[str] | None
    """None on a first visit; else the lines since the last one (maybe none)."""
    nomination: str | None = None
    nomination_until: str = ""


def clock_time(lang: str, moment: datetime, now: datetime) -> str:
    """«23:30», «24:00» for tonight's midnight, or «02.12 23:30» when it is not today (Moscow
    time)."""
    from ...engine.calendar import MOSCOW

    local, today = moment.astimezone(MOSCOW), now.astimezone(MOSCOW)
    if local.hour == local.minute == 0 and (local - timedelta(minutes=1)).date() == today.date():
        return "24:00"  # the end of today, not «02.12 00:00»
    return local.strftime("%H:%M") if local.date() == today.date() else local.strftime("%d.%m %H:%M")


def status_of(lang: str, s: GameState, uid: str | None) -> str:
    """The viewer's status in one sentence: guest, host, resident alive or dead, Spirit,
    observer, signed up. His faction stays on the role card."""
    _ = partial(translate, lang)
    if uid is None:
        return _("You are watching as a guest.")
    offices = [_(name) for name, holder in (("Procurator", s.procurator), ("Consigliere", s.consigliere),
                                            ("Supreme Arbiter", s.arbiter)) if holder == uid]
    offices += [_("Tribune of {city}", city=n) for n, c in s.cities.items() if c.tribune == uid]
    if offices:
        return _("You host this game: {offices}.", offices=", ".join(offices))
    r = s.residents.get(uid)
    if r is None:
        if uid in s.signups:
            return _("You are signed up.")
        return _("You are not playing in this game.")
    city = s.cities[r.city]
    if not r.alive:
        if uid in city.spirits:
            return _("You are dead and a Spirit of {city}: you still vote.", city=r.city)
        return _("You are dead ({city}): you read, but no longer play.", city=r.city)
    watched = sorted(n for n, c in s.cities.items() if uid in c.observers)
    if watched:
        return _("You live in {city}, alive; you observe {cities}.", city=r.city, cities=", ".join(watched))
    return _("You live in {city}, alive.", city=r.city)


def _duty_text(lang: str, d: Duty) -> str:
    fields = {k: v for k, v in d.args if isinstance(v, str | int)}
    msgid = RESIDENT_TEXTS.get(d.kind)
    if msgid is None:
        from .console_duties import TEXTS  # the consoles' words for host duties (no import cycle)

        msgid = TEXTS.get(d.kind, N_("A decision awaits you"))
    try:
        return translate(lang, msgid, **fields)
    except (KeyError, IndexError):
        return translate(lang, msgid.split(" · ")[0])


def items_of(lang: str, game: GameCtx, mine: tuple[Duty, ...]) -> list[Item]:
    base = f"/games/{game.id}"
    out: list[Item] = []
    votes = [d for d in mine if d.kind is DutyKind.VOTE]
    if votes:
        first = votes[0]
        links = [Link(str(d.arguments["candidate"]),
                      f"{base}/inboxes/{quote(str(d.arguments['inbox']), safe='')}",
                      mine="казнить" not in d.choices) for d in votes]
        voted = any(link.mine for link in links)
        text = (translate(lang, "You are voting. Change your vote until the close:") if voted
                else translate(lang, "Vote today: open a candidate's voting inbox"))
        out.append(Item(text, links[0].href, first.required, first.deadline, links, "vote"))
        out[-1].until = clock_time(lang, first.deadline, game.now) if first.deadline else ""
    for d in mine:
        if d.kind is DutyKind.VOTE:
            continue
        if d.seat in CONSOLE_OF:
            href = f"{base}/console/{CONSOLE_OF[d.seat]}"
        elif d.kind is DutyKind.VOTE_PARDON:
            href = f"{base}/inboxes"
        else:
            href = f"{base}/role#{ROLE_ANCHORS.get(d.kind, 'role-actions')}"
        out.append(Item(_duty_text(lang, d), href, d.required, d.deadline, kind=d.kind.value,
                        until=clock_time(lang, d.deadline, game.now) if d.deadline else ""))
    return out


def later_of(lang: str, found: tuple[Upcoming, ...], now: datetime) -> list[str]:
    out = []
    for u in found:
        if u.at is not None and u.kind in SOON_AT_TEXTS:
            out.append(translate(lang, SOON_AT_TEXTS[u.kind], time=clock_time(lang, u.at, now)))
        elif u.at is not None:
            out.append(translate(lang, SOON_TEXTS[u.kind], time=clock_time(lang, u.at, now), n=u.day))
        else:
            out.append(translate(lang, SOON_TEXTS[u.kind], n=u.day, time=""))
    return out


def _city_of_key(s: GameState, key: str) -> str | None:
    parts = key.split(":")
    return parts[1] if len(parts) > 1 and parts[1] in s.cities else None


def next_deadline(lang: str, game: GameCtx, uid: str | None, items: list[Item],
                  clocks: list[tuple[str, datetime, str]]) -> tuple[str, datetime, str] | None:
    """The viewer's next deadline: his earliest duty's, else the next clock of his city (or
    of the game); a host sees every city's."""
    s, now = game.state, game.now
    dated = sorted((i for i in items if i.deadline and i.deadline > now), key=lambda i: i.deadline or now)
    if dated:
        first = dated[0]
        what = translate(lang, DEADLINE_TEXTS[first.kind]) if first.kind in DEADLINE_TEXTS else first.text
        return what, first.deadline, first.until  # type: ignore[return-value]
    r = s.residents.get(uid or "")
    host = uid is not None and uid in s.hosts()
    for key, due, label in clocks:
        city = _city_of_key(s, key)
        if due > now and (host or city is None or (r is not None and city == r.city)):
            return label, due, clock_time(lang, due, now)
    return None


SINCE_LIMIT = 8


def since_lines(lang: str, events: Any, viewer: str | None, after: int) -> list[str]:
    """What happened after global seq ``after`` that the viewer may see, in sentences."""
    _ = partial(translate, lang)
    out: list[str] = []
    kinds = (ev.DayStarted, ev.NightStarted, ev.ResidentDied, ev.VotingOpened, ev.VotingClosed,
             ev.NoExecution, ev.CityDecided, ev.GameEnded, ev.CommissarAppointed)
    for seq, e in visible(events, viewer, kinds):
        if seq <= after:
            continue
        if isinstance(e, ev.DayStarted):
            out.append(_("Day {n} began.", n=e.day))
        elif isinstance(e, ev.NightStarted):
            out.append(_("Night {n} fell.", n=e.night))
        elif isinstance(e, ev.ResidentDied):
            out.append(_("{user} ({city}) died: {cause}.", user=e.user, city=e.city,
                         cause=term(lang, "cause", e.cause)))
        elif isinstance(e, ev.VotingOpened):
            out.append(_("Voting opened in {city}.", city=e.city))
        elif isinstance(e, ev.VotingClosed):
            out.append(_("The vote closed in {city}: {who} condemned.", city=e.city, who=e.condemned)
                       if e.condemned else _("The vote closed in {city}: nobody condemned.", city=e.city))
        elif isinstance(e, ev.NoExecution):
            out.append(_("No execution in {city} today.", city=e.city))
        elif isinstance(e, ev.CityDecided):
            out.append(_("{city} is decided: {outcome}.", city=e.city,
                         outcome=term(lang, "result", e.outcome)))
        elif isinstance(e, ev.GameEnded):
            out.append(_("The game has ended: {result}.", result=term(lang, "result", e.result)))
        elif isinstance(e, ev.CommissarAppointed):
            out.append(_("{city} has a commissar.", city=e.city))
    return out[-SINCE_LIMIT:]


async def today_of(web: Any, game: GameCtx, uid: str | None, lang: str,
                   clocks: list[tuple[str, datetime, str]], *, mark: bool) -> Today:
    """The panel for this viewer. ``mark`` moves his last-visit marker (the page itself,
    never its live refreshes)."""
    s, now = game.state, game.now
    mine = duties(s, uid, now)
    items = items_of(lang, game, mine)
    since: list[str] | None = None
    if uid is not None:
        last = await web.queries.last_visit(game.id, uid)
        if last is not None:
            since = since_lines(lang, await page_events(web, game), uid, last)
            unread = await web.queries.unread_total(game.id, uid, game=game.current)
            if unread:
                since.append(translate(lang, "Unread messages in your inboxes: {n}.", n=unread))
        if mark:
            await web.queries.mark_visit(game.id, uid, game.version)
    r = s.residents.get(uid or "")
    nomination = None
    if r is not None and s.stage is Stage.RUNNING and s.phase is PhaseKind.DAY:
        nomination = s.cities[r.city].nominations.get(uid or "")
    until = next((i.until for i in items if i.kind == DutyKind.NOMINATE.value), "")
    return Today(
        phase=game.phase, day=s.day, status=status_of(lang, s, uid),
        deadline=next_deadline(lang, game, uid, items, clocks),
        items=items, later=later_of(lang, upcoming(s, uid, now), now), since=since,
        nomination=nomination, nomination_until=until,
    )


__all__ = ["Today", "clock_time", "status_of", "today_of"]
