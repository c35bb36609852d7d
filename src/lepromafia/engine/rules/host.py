"""Recorded [HOST] decisions: combinations, contests, delegation, ambush order, sanctions,
sealed notary records (HOST-2, HOST-PROC-5, HOST-TRIB-2, AMBUSH-6, OMERTA-2, COMM-APPT-6).

Each decision is a command by the host who decides, validated where the rules allow it,
and recorded as a ``HostDecision`` event: one line of the audit log (§9.1 p.4).
"""

from __future__ import annotations

import hashlib
from typing import Any

from .. import commands as cmd
from .. import commands_host as hc
from .. import events as ev
from .. import events_host as hev
from ..audience import PUBLIC, Audience, only
from ..calendar import MOSCOW
from ..errors import N_, ErrorCode, check
from ..progress import Progress
from ..state import GameState, Stage
from . import commissar
from .common import (
    mafia_audience,
    require_city,
    require_procurator,
    require_running,
    require_undecided,
)

MAX_TITLE = 200
MAX_REASON = 4000
SANCTION_RULES = ("OMERTA-2", "IMPEACH-5", "RESTORE-T1")
"""Breaking omertà, forging evidence, a game-destroying leak (AMB-38)."""


# --- shared helpers ------------------------------------------------------------------


def text_of(s: GameState, text: str, *, required: bool = True, limit: int | None = None) -> str:
    clean = text.strip()
    if required:
        check(bool(clean), ErrorCode.MESSAGE_EMPTY)
    top = limit or s.settings.message_max_length
    check(len(clean) <= top, ErrorCode.MESSAGE_TOO_LONG, limit=top)
    return clean


def reason_of(s: GameState, reason: str) -> str:
    """Every discretionary decision says why (§3 [HOST]: who, when and why)."""
    clean = reason.strip()
    check(bool(clean), ErrorCode.REASON_REQUIRED)
    check(len(clean) <= MAX_REASON, ErrorCode.MESSAGE_TOO_LONG, limit=MAX_REASON)
    return clean


def office_audience(s: GameState) -> Audience:
    """The Office's members (INBOX-OFFICE-1): the Procurator, the Tribunes, the Arbiter."""
    return only(s.procurator, s.tribunes(), s.arbiter)


def offices_of(s: GameState, user: str) -> tuple[str, ...]:
    held = [name for name, holder in (("procurator", s.procurator), ("consigliere", s.consigliere),
                                      ("arbiter", s.arbiter)) if holder == user]
    held += [f"tribune:{c.name}" for c in s.cities.values() if c.tribune == user]
    return tuple(held)


def digest(content: tuple[tuple[str, str], ...]) -> str:
    canonical = "\n".join(f"{key}={value}" for key, value in content)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def seal(p: Progress, kind: str, content: tuple[tuple[str, str], ...], *, host: str, rule: str,
         audience: Audience, opens_at_game_end: bool, reason: str = "") -> int:
    """A sealed record (AMB-39): immutable, timestamped, hashed; its organizer reads it."""
    number = len(p.state.records.sealed) + 1
    p.emit(hev.RecordSealed, audience, host=host, rule=rule, reason=reason, record=number,
           kind=kind, digest=digest(content), content=content, opens_at_game_end=opens_at_game_end)
    return number


# --- HOST-2: combinations --------------------------------------------------------------


def acknowledge_combination(p: Progress, c: hc.AcknowledgeCombination) -> None:
    """HOST-2 (AMB-27): the warning given at appointment is acknowledged, on the record."""
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    offices = offices_of(s, c.user)
    check(len(offices) >= 2, ErrorCode.NO_COMBINATION, "HOST-2", user=c.user)
    check(c.user not in s.records.acknowledged, ErrorCode.ALREADY_DECIDED, "HOST-2")
    reason = reason_of(s, c.reason)
    # HOST-CONS-5: a combination that includes the Consigliere names him; keep it in the Bar.
    audience = only(s.procurator, c.user) if "consigliere" in offices else PUBLIC
    p.emit(hev.CombinationAcknowledged, audience, host=c.actor, rule="HOST-2", reason=reason,
           user=c.user, offices=offices)


# --- HOST-PROC-5: charades and contests ----------------------------------------------


def publish_contest(p: Progress, c: hc.PublishContest) -> None:
    s = p.state
    require_procurator(s, c.actor)
    require_running(s)
    title = text_of(s, c.title, limit=MAX_TITLE)
    text = text_of(s, c.text)
    p.emit(hev.ContestPublished, PUBLIC, host=c.actor, rule="HOST-PROC-5", reason="",
           contest=len(s.records.contests) + 1, day=s.day, title=title, text=text)


def record_contest_results(p: Progress, c: hc.RecordContestResults) -> None:
    """AMB-42: participation is recorded; no automatic penalty follows."""
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    contest = next((x for x in s.records.contests if x.number == c.contest), None)
    check(contest is not None, ErrorCode.UNKNOWN_RECORD)
    assert contest is not None
    check(not contest.results_recorded, ErrorCode.ALREADY_DECIDED, "HOST-PROC-5")
    participants = tuple(dict.fromkeys(c.participants))
    for user in participants:
        check(user in s.residents, ErrorCode.NOT_A_PARTICIPANT, "HOST-PROC-5", user=user)
    living = [u for name in s.cities for u in s.living(name)]
    absent = tuple(u for u in living if u not in participants)
    p.emit(hev.ContestResultsRecorded, PUBLIC, host=c.actor, rule="AMB-42", reason="",
           contest=c.contest, participants=participants, absent=absent,
           results=text_of(s, c.results), consequences=text_of(s, c.consequences, required=False))


# --- HOST-TRIB-2: a Tribune's stand-in -------------------------------------------------


def delegate_tribune(p: Progress, c: hc.DelegateTribune) -> None:
    """AMB-27: voting operations only, for a recorded period; no personal inboxes, no contacts."""
    s = p.state
    check(s.stage not in (Stage.RECRUITING, Stage.FINISHED), ErrorCode.WRONG_STAGE,
          stage=s.stage.value)
    city = require_city(s, c.city)
    check(c.actor == city.tribune, ErrorCode.NOT_TRIBUNE, "HOST-TRIB-2")
    check(c.delegate in s.tribunes() and c.delegate != c.actor, ErrorCode.DELEGATION_INVALID,
          "HOST-TRIB-2", detail=N_("the stand-in must be another city's Tribune"))
    check(c.starts_at.tzinfo is not None and c.until.tzinfo is not None,
          ErrorCode.DELEGATION_INVALID, detail=N_("times need a timezone"))
    check(c.starts_at < c.until and p.now < c.until, ErrorCode.DELEGATION_INVALID, "HOST-TRIB-2",
          detail=N_("the period must end after it starts, in the future"))
    reason = reason_of(s, c.reason)
    p.emit(hev.TribuneDelegated, office_audience(s), host=c.actor, rule="HOST-TRIB-2",
           reason=reason, delegation=len(s.records.delegations) + 1, city=city.name,
           delegate=c.delegate, starts_at=c.starts_at, until=c.until,
           scope=s.settings.tribune_delegation_scope)


def revoke_delegation(p: Progress, c: hc.RevokeDelegation) -> None:
    s = p.state
    found = next((d for d in s.records.delegations if d.number == c.delegation), None)
    check(found is not None, ErrorCode.UNKNOWN_RECORD)
    assert found is not None
    check(c.actor in (s.cities[found.city].tribune, found.delegate), ErrorCode.NOT_TRIBUNE,
          "HOST-TRIB-2")
    check(not found.revoked and p.now < found.until, ErrorCode.ALREADY_DECIDED, "HOST-TRIB-2")
    p.emit(hev.DelegationRevoked, office_audience(s), host=c.actor, rule="HOST-TRIB-2",
           reason=reason_of(s, c.reason), delegation=found.number, city=found.city)


# --- AMBUSH-6: the order of ambushes ----------------------------------------------------


def set_ambush_order(p: Progress, c: hc.SetAmbushOrder) -> None:
    """AMBUSH-6: the Consigliere's order; recorded in the mafia inbox's audience only (§9.2)."""
    s = p.state
    check(c.actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, "AMBUSH-6")
    require_running(s)
    city = require_city(s, c.city)
    living = set(s.living_mafia(city.name))
    order = tuple(c.order)
    check(bool(order) and len(set(order)) == len(order) and set(order) <= living,
          ErrorCode.AMBUSH_ORDER_INVALID, "AMBUSH-6")
    p.emit(hev.AmbushOrderSet, mafia_audience(s, city.name), host=c.actor, rule="AMBUSH-6",
           reason=reason_of(s, c.reason), city=city.name, order=order)


# --- GODFATHER-2, MAFIA-KILL-5: the Consigliere's procedures ---------------------------

GODFATHER_RULES = ("plurality", "majority", "unanimity")
SILENT_PROCEDURES = ("majority", "plurality", "no_kill")


def _consigliere_city(p: Progress, actor: str, city_name: str, rule: str) -> str:
    s = p.state
    check(actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, rule)
    check(s.stage not in (Stage.RECRUITING, Stage.FINISHED), ErrorCode.WRONG_STAGE, rule,
          stage=s.stage.value)
    city = require_city(s, city_name)
    require_undecided(city)
    return city.name


def set_godfather_election_rule(p: Progress, c: hc.SetGodfatherElectionRule) -> None:
    """GODFATHER-2: «по правилам, которые он устанавливает»; seen by the city's mafia only."""
    name = _consigliere_city(p, c.actor, c.city, "GODFATHER-2")
    check(c.rule in GODFATHER_RULES, ErrorCode.DECISION_INVALID, "GODFATHER-2",
          detail=N_("choose one of the offered election rules"))
    p.emit(hev.GodfatherElectionRuleSet, mafia_audience(p.state, name), host=c.actor,
           rule="GODFATHER-2", reason=reason_of(p.state, c.reason), city=name, election_rule=c.rule)


def set_silent_godfather_procedure(p: Progress, c: hc.SetSilentGodfatherProcedure) -> None:
    """MAFIA-KILL-5: «порядок принятия решения определяется Консильери»."""
    name = _consigliere_city(p, c.actor, c.city, "MAFIA-KILL-5")
    check(c.procedure in SILENT_PROCEDURES, ErrorCode.DECISION_INVALID, "MAFIA-KILL-5",
          detail=N_("choose one of the offered procedures"))
    p.emit(hev.SilentGodfatherProcedureSet, mafia_audience(p.state, name), host=c.actor,
           rule="MAFIA-KILL-5", reason=reason_of(p.state, c.reason), city=name,
           procedure=c.procedure)


# --- OMERTA-2, IMPEACH-5, PLAYER-7: sanctions -------------------------------------------


def sanction_visible(state: GameState, sanctioned: str, viewer: str | None) -> bool:
    """OMERTA-2 (D8): a sanction tied to a running game names a mafioso, so until the game
    ends only the Procurator and the sanctioned player may know it; afterwards everyone."""
    if state.stage is Stage.FINISHED:
        return True
    return viewer is not None and viewer in (state.procurator, sanctioned)


def record_sanction(p: Progress, c: hc.RecordSanction) -> None:
    """The engine records the decision; the community registry enforces it at sign-up.

    No faction check: an omertà sanction on an honest resident would otherwise be rejected,
    and the rejection would tell the Procurator a faction (HOST-PROC-7).
    """
    s = p.state
    require_procurator(s, c.actor)
    check(c.user in s.residents or c.user in s.signups, ErrorCode.NOT_A_PARTICIPANT, "PLAYER-7",
          user=c.user)
    check(c.rule in SANCTION_RULES, ErrorCode.SANCTION_INVALID, "PLAYER-7",
          detail=N_("choose one of the offered grounds"))
    today = p.now.astimezone(MOSCOW).date()
    check(c.until is None or c.until > today, ErrorCode.SANCTION_INVALID, "PLAYER-7",
          detail=N_("a period must end in the future (or be for life)"))
    # The sanction's reason may concern the mafia: the sanctioned player and the Procurator only.
    p.emit(hev.SanctionRecorded, only(s.procurator, c.user), host=c.actor, rule=c.rule,
           reason=reason_of(s, c.reason), sanction=len(s.records.sanctions) + 1, user=c.user,
           until=c.until)


# --- COMM-APPT-6: the commissar draws, sealed in a notary record ----------------------


def offer_commissar(p: Progress, c: cmd.OfferCommissar) -> None:
    """COMM-APPT-6 (AMB-39): each draw and its pool are sealed at once; they open at game end."""
    city = p.state.cities.get(c.city)
    pool = [u for u in p.state.living(c.city) if u not in city.offers_made] if city else []
    before = len(p.events)
    commissar.offer(p, c)
    offered = next(e for e in p.events[before:] if isinstance(e, ev.CommissarOffered))
    content = (
        ("city", offered.city), ("attempt", str(offered.attempt)), ("draw", str(c.draw)),
        ("pool", ",".join(pool)), ("candidate", offered.candidate),
        ("offered_at", p.now.isoformat()),
    )
    seal(p, "commissar_draw", content, host=c.actor, rule="COMM-APPT-6",
         audience=only(p.state.procurator), opens_at_game_end=True)


def open_sealed_at_game_end(p: Progress) -> None:
    """§9.4, AMB-39: the COMM-APPT-6 records open to everyone when the game ends."""
    for record in p.state.records.sealed:
        if record.opens_at_game_end and not record.opened:
            _open(p, record.number, "platform")


def reveal_sealed_record(p: Progress, c: hc.RevealSealedRecord) -> None:
    """IMPEACH-3: reasons may be disclosed no earlier than the end of the game."""
    s = p.state
    require_procurator(s, c.actor)
    record = next((r for r in s.records.sealed if r.number == c.record), None)
    check(record is not None, ErrorCode.UNKNOWN_RECORD)
    assert record is not None
    check(s.stage is Stage.FINISHED, ErrorCode.RECORD_STILL_SEALED, "IMPEACH-3")
    check(not record.opened, ErrorCode.ALREADY_DECIDED)
    _open(p, record.number, c.actor)


def _open(p: Progress, number: int, by: str) -> None:
    record = p.state.records.sealed[number - 1]
    fields: dict[str, Any] = {"record": number, "kind": record.kind, "digest": record.digest,
                              "content": record.content, "sealed_at": record.sealed_at}
    p.emit(hev.RecordOpened, PUBLIC, opened_by=by, **fields)
