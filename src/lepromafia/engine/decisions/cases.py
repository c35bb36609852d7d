"""The hosts' rulings on cases (IMPEACH-2, -3, -6, NOCONF-1/2, HOST-ARB-3, AMB-34): the
Procurator decides an impeachment and a complaint of no confidence, the Supreme Arbiter a
private case, with the inbox bans it imposes and their lifting. The citizens' side — the
signatures, the complaints, the private case filed, the evidence linked — is
``rules/cases.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ..audience import PUBLIC, only
from ..commands import Command
from ..decision import AuditLine, Recorded, host_decision, options
from ..errors import N_, ErrorCode, check
from ..events import Event
from ..events_host import HostDecision
from ..evolve import _city
from ..inboxes import Access, Kind, access, readers
from ..progress import Progress
from ..records import Impeachment, InboxBan, PrivateCase
from ..rules.cases import IMPEACH_OUTCOMES, bannable_kinds, organizer_of
from ..rules.common import mafia_audience, require_procurator, require_running
from ..rules.host import reason_of, seal
from ..rules.setup import combination_warnings
from ..state import GameState

_C = {"frozen": True, "slots": True, "kw_only": True}


def _records(state: GameState, **changes: Any) -> GameState:
    return replace(state, records=replace(state.records, **changes))


def _swap(items: tuple[Any, ...], number: int, **changes: Any) -> tuple[Any, ...]:
    return tuple(replace(x, **changes) if x.number == number else x for x in items)


# --- IMPEACH-2, -3, -6: the Procurator decides an impeachment -----------------------------

OUTCOME_WORDS = {"replace": N_("replace the Tribune"), "bonus": N_("a bonus to the initiators"),
                 "unfounded": N_("unfounded"),
                 "insignificant": N_("insignificant (the reasons stay sealed)")}
assert tuple(OUTCOME_WORDS) == IMPEACH_OUTCOMES


@dataclass(**_C)
class DecideImpeachment(Command):
    impeachment: int
    outcome: str
    reason: str
    new_tribune: str | None = None
    bonus: str = ""
    consulted_consigliere: bool = True


@dataclass(**_C)
class ImpeachmentDecided(HostDecision):
    impeachment: int
    city: str
    outcome: str
    """'replace', 'bonus', 'unfounded' or 'insignificant' (reasons sealed)."""
    bonus: str
    sealed_record: int | None


@dataclass(**_C)
class TribuneReplaced(HostDecision):
    """IMPEACH-6: the new Tribune organizes every inbox of the city from now on."""

    city: str
    old: str
    new: str
    warnings: tuple[str, ...]


def _impeachment_decided(state: GameState, e: ImpeachmentDecided) -> GameState:
    return _records(state, impeachments=_swap(state.records.impeachments, e.impeachment,
                                              outcome=e.outcome))


def _tribune_replaced(state: GameState, e: TribuneReplaced) -> GameState:
    """IMPEACH-6: every Tribune-organized inbox follows ``City.tribune``."""
    return _city(state, e.city, tribune=e.new)


def _impeachment(s: GameState, number: int) -> Impeachment:
    imp = next((i for i in s.records.impeachments if i.number == number), None)
    check(imp is not None, ErrorCode.UNKNOWN_RECORD)
    assert imp is not None
    check(imp.outcome is None, ErrorCode.ALREADY_DECIDED, "IMPEACH-2")
    return imp


@host_decision(
    "decide_impeachment", office="procurator", command=DecideImpeachment,
    event=ImpeachmentDecided, rule="IMPEACH-2", title=N_("Impeachment"),
    explain=N_("Decide a city's demand against its Tribune, saying why."),
    evolve=_impeachment_decided, submit=N_("Decide"),
    labels={"impeachment": N_("Impeachment"), "outcome": N_("Outcome"), "reason": N_("Reason"),
            "new_tribune": N_("New Tribune"), "bonus": N_("Bonus"),
            "consulted_consigliere": N_("Consulted the Consigliere")},
    choices={"outcome": options(*OUTCOME_WORDS.items())},
    limits={"outcome": 20, "new_tribune": 64, "bonus": 500},
    inputs={"consulted_consigliere": "consulted"},
    audit=AuditLine("case", N_("Decided the impeachment in {city}: {outcome}"),
                    lambda e: {"city": e.city, "outcome": OUTCOME_WORDS.get(e.outcome, e.outcome)},
                    words=("outcome",)),
    also=(Recorded(TribuneReplaced, _tribune_replaced, rule="IMPEACH-6", audit=AuditLine(
        "case", N_("Replaced the Tribune of {city}: {old} → {new}"),
        lambda e: {"city": e.city, "old": e.old, "new": e.new})),),
    bespoke_form=True)
def decide_impeachment(p: Progress, c: DecideImpeachment) -> None:
    """IMPEACH-2: replace, a bonus, unfounded; IMPEACH-3: insignificant, its reasons sealed."""
    s = p.state
    require_procurator(s, c.actor)
    require_running(s)
    imp = _impeachment(s, c.impeachment)
    check(c.outcome in IMPEACH_OUTCOMES, ErrorCode.DECISION_INVALID, "IMPEACH-2",
          detail=N_("choose one of the offered outcomes"))
    reason = reason_of(s, c.reason)
    city = s.cities[imp.city]
    warnings: tuple[str, ...] = ()
    if c.outcome == "replace":
        new = c.new_tribune or ""
        check(bool(new) and new != city.tribune, ErrorCode.DECISION_INVALID, "IMPEACH-6",
              detail=N_("name the new Tribune"))
        check(new not in s.residents and new not in s.signups, ErrorCode.HOST_CANNOT_PLAY, "HOST-1")
        # HOST-CONS-5: a Tribune is public; naming the Consigliere would expose him.
        check(new != s.consigliere, ErrorCode.DECISION_INVALID, "HOST-CONS-5",
              detail=N_("this host cannot become a Tribune openly"))
        warnings = combination_warnings(s, "tribune", new)
    bonus = c.bonus.strip()
    check((c.outcome == "bonus") == bool(bonus), ErrorCode.DECISION_INVALID, "IMPEACH-2",
          detail=N_("a bonus decision names the bonus, and only it"))
    sealed: int | None = None
    public_reason = reason
    if c.outcome == "insignificant":
        # IMPEACH-3: reasons are sealed until after the game (and seen by the consulted).
        sealed = seal(p, "impeachment_reasons",
                      (("impeachment", str(imp.number)), ("city", imp.city), ("reason", reason)),
                      host=c.actor, rule="IMPEACH-3",
                      audience=only(s.procurator, s.consigliere if c.consulted_consigliere else None),
                      opens_at_game_end=False)
        public_reason = f"sealed record {sealed}"
    p.emit(ImpeachmentDecided, only(readers(p.state, imp.inbox), city.tribune), host=c.actor,
           rule="IMPEACH-3" if sealed else "IMPEACH-2", reason=public_reason,
           impeachment=imp.number, city=imp.city, outcome=c.outcome, bonus=bonus,
           sealed_record=sealed)
    if c.outcome == "replace":
        assert c.new_tribune is not None
        p.emit(TribuneReplaced, PUBLIC, host=c.actor, rule="IMPEACH-6", reason=reason,
               city=imp.city, old=city.tribune, new=c.new_tribune, warnings=warnings)


# --- NOCONF-1/2: the Procurator decides a complaint of no confidence ----------------------


@dataclass(**_C)
class DecideNoConfidence(Command):
    complaint: int
    justified: bool
    reason: str
    bonus: str = ""


@dataclass(**_C)
class NoConfidenceDecided(HostDecision):
    complaint: int
    target: str
    city: str
    justified: bool
    bonus: str


@dataclass(**_C)
class NoConfidenceAnswered(Event):
    """NOCONF-2: the Procurator's answer, posted to the complaining city's mafia."""

    complaint: int
    justified: bool
    bonus: str


def _complaint_decided(state: GameState, e: NoConfidenceDecided) -> GameState:
    return _records(state, complaints=_swap(state.records.complaints, e.complaint, decided=True))


def _noconf_line(e: NoConfidenceDecided) -> str:
    if e.justified:
        return N_("Found the no-confidence complaint from {city} justified")
    return N_("Found the no-confidence complaint from {city} unfounded")


@host_decision(
    "decide_no_confidence", office="procurator", command=DecideNoConfidence,
    event=NoConfidenceDecided, rule="NOCONF-1", title=N_("No confidence"),
    explain=N_("Find a complaint against the Arbiter or the Consigliere justified or not, "
               "saying why."),
    evolve=_complaint_decided, submit=N_("Decide"),
    labels={"complaint": N_("Complaint"), "justified": N_("Justified"), "reason": N_("Reason"),
            "bonus": N_("Bonus")},
    limits={"bonus": 500},
    audit=AuditLine("case", _noconf_line, lambda e: {"city": e.city}),
    also=(Recorded(NoConfidenceAnswered, lambda state, e: state, rule="NOCONF-2"),),
    bespoke_form=True)
def decide_no_confidence(p: Progress, c: DecideNoConfidence) -> None:
    s = p.state
    require_procurator(s, c.actor)
    found = next((x for x in s.records.complaints if x.number == c.complaint), None)
    check(found is not None, ErrorCode.UNKNOWN_RECORD)
    assert found is not None
    check(not found.decided, ErrorCode.ALREADY_DECIDED, "NOCONF-1")
    reason = reason_of(s, c.reason)
    bonus = c.bonus.strip()
    check(c.justified or not bonus, ErrorCode.DECISION_INVALID, "NOCONF-1",
          detail=N_("bonuses follow a justified complaint only"))
    rule = "NOCONF-1" if found.target == "arbiter" else "NOCONF-2"
    audience = only(s.procurator, found.complainant)
    p.emit(NoConfidenceDecided, audience, host=c.actor, rule=rule, reason=reason,
           complaint=found.number, target=found.target, city=found.city, justified=c.justified,
           bonus=bonus)
    if found.target == "consigliere":
        p.emit(NoConfidenceAnswered, mafia_audience(p.state, found.city),
               complaint=found.number, justified=c.justified, bonus=bonus)


# --- HOST-ARB-3, AMB-34: the Arbiter decides a private case -------------------------------


@dataclass(**_C)
class DecidePrivateCase(Command):
    case: int
    guilty: bool
    reason: str
    inboxes: tuple[str, ...] = ()
    until: datetime | None = None


@dataclass(**_C)
class PrivateCaseDecided(HostDecision):
    case: int
    guilty: bool
    inboxes: tuple[str, ...]
    until: datetime | None


@dataclass(**_C)
class InboxBanImposed(HostDecision):
    """Carried out by the platform on behalf of the inbox's organizer (INBOX-GEN-4)."""

    case: int
    user: str
    inbox: str
    lineage: str
    organizer: str
    until: datetime


def _case_decided(state: GameState, e: PrivateCaseDecided) -> GameState:
    verdict = "guilty" if e.guilty else "not_guilty"
    return _records(state, cases=_swap(state.records.cases, e.case, decision=verdict))


def _banned(state: GameState, e: InboxBanImposed) -> GameState:
    ban = InboxBan(case=e.case, user=e.user, lineage=e.lineage, until=e.until)
    return _records(state, bans=(*state.records.bans, ban))


def _case_line(e: PrivateCaseDecided) -> str:
    if not e.guilty:
        return N_("Decided case {case}: not guilty")
    return N_("Decided case {case}: guilty; a ban in {count} inbox(es) until {until}")


def _case(s: GameState, number: int) -> PrivateCase:
    case = next((x for x in s.records.cases if x.number == number), None)
    check(case is not None, ErrorCode.UNKNOWN_RECORD)
    assert case is not None
    return case


@host_decision(
    "decide_case", office="arbiter", command=DecidePrivateCase, event=PrivateCaseDecided,
    rule="HOST-ARB-3", title=N_("Private cases"),
    explain=N_("Decide a complaint of insult, slander or moral abuse; a guilty party may be "
               "banned from inboxes until a moment you set."),
    evolve=_case_decided, submit=N_("Decide"),
    labels={"case": N_("Case"), "guilty": N_("Guilty"), "reason": N_("Reason"),
            "inboxes": N_("Ban in"), "until": N_("Ban until")},
    limits={"reason": 1000},
    audit=AuditLine("case", _case_line, lambda e: {
        "case": e.case, "count": len(e.inboxes), "until": e.until or ""}),
    also=(Recorded(InboxBanImposed, _banned, rule="HOST-ARB-3", audit=AuditLine(
        "sanction", N_("Banned {user} in {inbox} until {until} (case {case})"),
        lambda e: {"user": e.user, "inbox": e.inbox, "until": e.until, "case": e.case},
        inboxes=("inbox",), any_office=True)),),
    bespoke_form=True)
def decide_private_case(p: Progress, c: DecidePrivateCase) -> None:
    s = p.state
    check(s.arbiter is not None and c.actor == s.arbiter, ErrorCode.NOT_ARBITER, "HOST-ARB-3")
    require_running(s)
    case = _case(s, c.case)
    check(case.decision is None, ErrorCode.ALREADY_DECIDED, "HOST-ARB-3")
    reason = reason_of(s, c.reason)
    inboxes = tuple(dict.fromkeys(c.inboxes))
    until: datetime | None = None
    if inboxes:
        check(c.guilty, ErrorCode.DECISION_INVALID, "HOST-ARB-3", detail=N_("only the guilty are banned"))
        check(c.until is not None and c.until.tzinfo is not None and c.until > p.now,
              ErrorCode.DECISION_INVALID, "HOST-ARB-3", detail=N_("a ban needs an end in the future"))
        until = c.until
        allowed = bannable_kinds(s)
        for box in inboxes:
            inbox = s.inboxes.get(box)
            check(inbox is not None and not inbox.archived, ErrorCode.UNKNOWN_INBOX)
            assert inbox is not None
            check(Kind(inbox.kind) in allowed, ErrorCode.BAN_NOT_ALLOWED, "HOST-ARB-3",
                  detail=N_("not in this kind of inbox ({kind})"), kind=inbox.kind)
            check(access(s, box, case.accused, now=p.now) is Access.WRITE, ErrorCode.BAN_NOT_ALLOWED,
                  "HOST-ARB-3", detail=N_("{accused} cannot post in this inbox"), accused=case.accused)
    organizers = {organizer_of(s, box) for box in inboxes}
    p.emit(PrivateCaseDecided, only(s.arbiter, case.complainant, case.accused, organizers),
           host=c.actor, rule="HOST-ARB-3", reason=reason, case=case.number, guilty=c.guilty,
           inboxes=inboxes, until=until)
    for box in inboxes:
        assert until is not None
        organizer = organizer_of(s, box)
        # INBOX-GEN-4: the platform carries the ban out on the organizer's behalf, and logs it.
        p.emit(InboxBanImposed, only(s.arbiter, case.accused, case.complainant, organizer),
               host=c.actor, rule="INBOX-GEN-4", reason=reason, case=case.number,
               user=case.accused, inbox=box, lineage=box.rsplit(":", 1)[0], organizer=organizer,
               until=until)


@dataclass(**_C)
class LiftInboxBan(Command):
    case: int
    reason: str


@dataclass(**_C)
class InboxBanLifted(HostDecision):
    case: int
    user: str


def _ban_lifted(state: GameState, e: InboxBanLifted) -> GameState:
    bans = tuple(replace(b, lifted=True) if b.case == e.case else b for b in state.records.bans)
    return _records(state, bans=bans)


@host_decision(
    "lift_ban", office="arbiter", command=LiftInboxBan, event=InboxBanLifted, rule="HOST-ARB-3",
    title=N_("Lift a ban"), explain=N_("End a case's inbox bans before they run out."),
    evolve=_ban_lifted, labels={"case": N_("Case"), "reason": N_("Reason")},
    limits={"reason": 1000},
    audit=AuditLine("sanction", N_("Lifted the ban of {user} (case {case})"),
                    lambda e: {"user": e.user, "case": e.case}),
    bespoke_form=True)
def lift_ban(p: Progress, c: LiftInboxBan) -> None:
    s = p.state
    check(s.arbiter is not None and c.actor == s.arbiter, ErrorCode.NOT_ARBITER, "HOST-ARB-3")
    case = _case(s, c.case)
    active = [b for b in s.records.bans if b.case == case.number and not b.lifted and p.now < b.until]
    check(bool(active), ErrorCode.ALREADY_DECIDED, "HOST-ARB-3")
    organizers = {organizer_of(s, f"{b.lineage}:0") for b in active if f"{b.lineage}:0" in s.inboxes}
    p.emit(InboxBanLifted, only(s.arbiter, case.accused, case.complainant, organizers),
           host=c.actor, rule="HOST-ARB-3", reason=reason_of(s, c.reason), case=case.number,
           user=case.accused)
