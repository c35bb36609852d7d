"""What the viewer may do from his role card, and what his own seat lets him see there.

Forms only: every choice is a select or a button (no free text, COMM-4). Offering a form is
a convenience, not a permission: the engine decides every command. Secrets come from the
viewer's own seat or from events ``visible_to`` him (RULES.md §9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ...engine import events as ev
from ...engine import targets
from ...engine.duties import Duty, DutyKind, duties
from ...engine.events import Event
from ...engine.rules import ambush
from ...engine.rules.commissar import may_accept
from ...engine.state import City, Faction, GameState, Stage
from ...engine.visibility import visible_to


@dataclass
class MafiaNight:
    """The mafioso's night orders (MAFIA-KILL, TOUR, GODFATHER, AMBUSH)."""

    godfather: str | None
    is_godfather: bool
    kill_targets: list[str]
    tour_city: str | None
    tour_targets: list[str]
    order: str | None
    tour_order: str | None
    declarations: list[tuple[str, str, bool]]
    """(mafioso, target, tour) as the mafia inbox saw them."""
    election_open: bool
    candidates: list[str]
    my_vote: str | None
    demanded: bool
    ambush_right: bool
    ambush_targets: list[str]
    my_ambush: str | None
    judge: str | None
    can_decide: bool


@dataclass
class RoleActions:
    offer: dict[str, Any] | None = None
    mafia: MafiaNight | None = None
    checks: dict[str, Any] | None = None
    suicide: str | None = None
    """'declare' or 'withdraw' where the viewer may change his mind; None otherwise."""
    proxy_choices: list[str] = field(default_factory=list)
    proxy_current: tuple[str, ...] = ()
    election: dict[str, Any] | None = None
    petition: dict[str, Any] | None = None
    recuse: bool = False


def _running(s: GameState) -> bool:
    return s.stage is Stage.RUNNING


def _mafia_night(s: GameState, uid: str, city: City, events: Sequence[tuple[int, Event]],
                 mine_now: Sequence[Duty]) -> MafiaNight:
    """The forms of a mafioso's night, their choices as the engine lists them (targets,
    duties), never re-derived here."""
    book = city.night
    mafia = s.living_mafia(city.name)
    kinds = {d.kind for d in mine_now}
    declarations = [
        (e.mafioso, e.target, e.tour)
        for _seq, e in events
        if isinstance(e, ev.KillDeclared) and e.city == city.name and visible_to(e, uid)
        and e.at >= _night_start(s, events)
    ]
    mine = dict(city.ambushes).get(uid)
    return MafiaNight(
        godfather=city.godfather,
        is_godfather=city.godfather == uid,
        kill_targets=list(targets.kill_targets(s, city.name)),
        tour_city=s.touring_city,
        tour_targets=list(targets.tour_targets(s, city.name)),
        order=book.order,
        tour_order=book.tour_order,
        declarations=declarations,
        election_open=city.godfather_election_open,
        candidates=list(mafia),
        my_vote=book.godfather_votes.get(uid),
        demanded=uid in book.reelection_demands,
        ambush_right=ambush.ambush_night(s, city) is not None,
        ambush_targets=list(targets.ambush_targets(s, uid)),
        my_ambush=mine,
        judge=city.judge,
        can_decide=bool(kinds & _STRIKES),
    )


_STRIKES = {DutyKind.ORDER_KILL, DutyKind.DECLARE_KILL, DutyKind.ORDER_TOUR, DutyKind.DECLARE_TOUR}


def _night_start(s: GameState, events: Sequence[tuple[int, Event]]) -> Any:
    """Declarations of the current night only: after the last NightStarted."""
    starts = [e.at for _seq, e in events if isinstance(e, ev.NightStarted)]
    return starts[-1] if starts else s.created_at


def check_log(uid: str, city: str, events: Sequence[tuple[int, Event]]) -> list[ev.CheckAnswered]:
    """COMM-4/5: the answers the commissar received, night by night."""
    return [e for _seq, e in events
            if isinstance(e, ev.CheckAnswered) and e.city == city and visible_to(e, uid)]


def role_actions(s: GameState, uid: str, events: Sequence[tuple[int, Event]], now: datetime) -> RoleActions:
    me = s.residents.get(uid)
    mine = duties(s, uid, now)
    out = RoleActions()
    if me is None or not _running(s):
        return out
    city = s.cities[me.city]
    offer = city.offer
    if offer is not None and offer.candidate == uid and offer.accepted is None and not offer.lapsed:
        # SEC-1: a mafioso may only refuse; the page never shows him an "accept".
        out.offer = {"can_accept": may_accept(s, uid), "inbox": offer.inbox}
    if not me.alive or city.decided is not None:
        return out
    if me.faction is Faction.MAFIA:
        out.mafia = _mafia_night(s, uid, city, events, mine)
    if city.commissar == uid:
        out.checks = {
            "open": any(d.kind is DutyKind.CHECK for d in mine),
            "checked_tonight": city.checked_tonight,
            "targets": list(targets.check_targets(s, uid)),
            "log": check_log(uid, city.name, events),
        }
    out.suicide = "withdraw" if uid in city.suicides else "declare"
    out.proxy_choices = [u for u in s.living(city.name) if u != uid]
    out.proxy_current = tuple(city.proxies.get(uid, ()))
    e = city.election
    if e is not None and not e.opened:
        out.election = {"number": e.number, "opens_at": e.opens_at, "closes_at": e.closes_at,
                        "choices": list(targets.judge_candidates(s, city.name)),
                        "my_proposal": e.proposals.get(uid),
                        "candidate": uid in e.candidates and uid not in e.declined}
    if city.judge is not None and city.judge != uid:
        out.petition = {"judge": city.judge, "open": city.petition is not None,
                        "confirmed": bool(city.petition and uid in city.petition.confirmations),
                        "organizer": city.petition.organizer if city.petition else None}
    out.recuse = city.judge == uid
    return out



def citizen_forms(s: GameState, uid: str) -> dict[str, Any]:
    """IMPEACH-1, NOCONF-1/2, MAFIA-COMM-1..3: the living resident's complaints and, for a
    mafioso, the relay to another city. Empty when none applies."""
    me = s.residents.get(uid)
    if me is None or not me.alive or not _running(s) or s.cities[me.city].decided is not None:
        return {}
    city = s.cities[me.city]
    signers = s.records.signers(city.name)
    mafia = me.faction is Faction.MAFIA
    return {
        "impeachment": {"tribune": city.tribune, "signed": uid in signers, "signatures": len(signers)}
        if s.records.open_impeachment(city.name) is None else None,
        "noconf_targets": [t for t, ok in (("arbiter", s.arbiter is not None), ("consigliere", mafia)) if ok],
        "relay_cities": [n for n, c in s.cities.items() if n != city.name and c.decided is None]
        if mafia else [],
    }
