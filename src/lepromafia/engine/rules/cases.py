"""Impeachment, no-confidence and private prosecution (IMPEACH, NOCONF, HOST-ARB-3, SEC-12)."""

from __future__ import annotations

from datetime import datetime

from .. import commands_host as hc
from .. import events_host as hev
from ..audience import PUBLIC, only
from ..errors import N_, ErrorCode, check
from ..inboxes import POLICY, Access, Kind, access, can_read, readers
from ..progress import Progress
from ..records import Impeachment, MessageRef, PrivateCase
from ..state import Faction, GameState
from .common import (
    living_resident,
    mafia_audience,
    open_inbox,
    require_procurator,
    require_running,
    require_undecided,
)
from .host import reason_of, seal, text_of
from .setup import combination_warnings

IMPEACH_OUTCOMES = ("replace", "bonus", "unfounded", "insignificant")
CHARGES = ("insult", "slander", "moral_abuse")
MAX_EVIDENCE = 50


def needed_signatures(s: GameState, city: str) -> int:
    """IMPEACH-1 (AMB-37): ceil(30% of living residents), mafiosi counted as citizens."""
    living = len(s.living(city))
    return -(-living * s.settings.impeachment_share_percent // 100)


# --- IMPEACH-1, IMPEACH-4: the demand --------------------------------------------------


def sign_impeachment(p: Progress, c: hc.SignImpeachment) -> None:
    """Signatures go straight to the Procurator (HOST-PROC-6); at the threshold the demand
    is filed and its inbox opens with the initiators writing and everyone else banned."""
    s = p.state
    require_running(s)
    resident = living_resident(s, c.actor)  # signers must be alive (AMB-37)
    city = s.cities[resident.city]
    require_undecided(city)
    check(s.records.open_impeachment(city.name) is None, ErrorCode.IMPEACHMENT_OPEN, "IMPEACH-4")
    check(c.actor not in s.records.signers(city.name), ErrorCode.ALREADY_SIGNED, "IMPEACH-1")
    grievance = text_of(s, c.grievance, required=False)
    signers = (*(u for u in s.records.signers(city.name) if s.residents[u].alive), c.actor)
    needed = needed_signatures(s, city.name)
    p.emit(hev.ImpeachmentSigned, only(s.procurator, signers), city=city.name, user=c.actor,
           signatures=len(signers), needed=needed, grievance=grievance)
    if len(signers) < needed:
        return
    number = len(s.records.impeachments) + 1
    box = open_inbox(p, Kind.IMPEACHMENT, f"{city.name}/{number}", city=city.name,
                     members=frozenset(signers), title=f"Impeachment of {city.tribune}")
    p.emit(hev.ImpeachmentDemanded, only(readers(p.state, box), city.tribune),
           impeachment=number, city=city.name, tribune=city.tribune, initiators=signers,
           living=len(s.living(city.name)), needed=needed)


# --- IMPEACH-2, HOST-ARB-3, SEC-12: evidence as links to messages ------------------------


def _refs(s: GameState, grantor: str, refs: tuple[MessageRef, ...], rule: str) -> None:
    check(0 < len(refs) <= MAX_EVIDENCE, ErrorCode.EVIDENCE_INVALID, rule,
          detail=N_("link 1 to {limit} messages"), limit=MAX_EVIDENCE)
    for ref in refs:
        # One can only show what one can read. That the seq is a message of that inbox is
        # the service's check: the engine keeps no message log (docs/decisions.md).
        check(can_read(s, ref.inbox, grantor) and ref.seq >= 0,
              ErrorCode.EVIDENCE_INVALID, rule, detail=N_("you can only link messages you can read"))


def link_evidence(p: Progress, c: hc.LinkEvidence) -> None:
    s = p.state
    kind, _, raw = c.case.partition(":")
    number = int(raw) if raw.isdigit() else 0
    if kind == "impeachment":
        imp = next((i for i in s.records.impeachments if i.number == number), None)
        check(imp is not None and c.actor in imp.initiators, ErrorCode.UNKNOWN_RECORD)
        assert imp is not None
        check(imp.outcome is None, ErrorCode.ALREADY_DECIDED, "IMPEACH-2")
        viewer, rule = s.procurator, "SEC-12"
    else:
        case = next((x for x in s.records.cases if x.number == number), None)
        check(kind == "private" and case is not None and c.actor == case.complainant,
              ErrorCode.UNKNOWN_RECORD)
        assert case is not None
        check(case.decision is None, ErrorCode.ALREADY_DECIDED, "HOST-ARB-3")
        check(s.arbiter is not None, ErrorCode.NO_ARBITER)
        assert s.arbiter is not None
        viewer, rule = s.arbiter, "HOST-ARB-3"
    refs = tuple(dict.fromkeys(c.messages))
    _refs(s, c.actor, refs, rule)
    p.emit(hev.EvidenceLinked, only(c.actor, viewer), case=c.case, grantor=c.actor, viewer=viewer,
           messages=refs)


# --- IMPEACH-2, -3, -6: the Procurator's decision ----------------------------------------


def _impeachment(s: GameState, number: int) -> Impeachment:
    imp = next((i for i in s.records.impeachments if i.number == number), None)
    check(imp is not None, ErrorCode.UNKNOWN_RECORD)
    assert imp is not None
    check(imp.outcome is None, ErrorCode.ALREADY_DECIDED, "IMPEACH-2")
    return imp


def decide_impeachment(p: Progress, c: hc.DecideImpeachment) -> None:
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
    p.emit(hev.ImpeachmentDecided, only(readers(p.state, imp.inbox), city.tribune), host=c.actor,
           rule="IMPEACH-3" if sealed else "IMPEACH-2", reason=public_reason,
           impeachment=imp.number, city=imp.city, outcome=c.outcome, bonus=bonus,
           sealed_record=sealed)
    if c.outcome == "replace":
        assert c.new_tribune is not None
        p.emit(hev.TribuneReplaced, PUBLIC, host=c.actor, rule="IMPEACH-6", reason=reason,
               city=imp.city, old=city.tribune, new=c.new_tribune, warnings=warnings)


# --- NOCONF-1/2 ---------------------------------------------------------------------


def express_no_confidence(p: Progress, c: hc.ExpressNoConfidence) -> None:
    s = p.state
    require_running(s)
    resident = living_resident(s, c.actor)
    check(c.target in ("arbiter", "consigliere"), ErrorCode.DECISION_INVALID, "NOCONF-1",
          detail=N_("the target is the Arbiter or the Consigliere"))
    text = text_of(s, c.text)
    number = len(s.records.complaints) + 1
    if c.target == "arbiter":
        check(s.arbiter is not None, ErrorCode.NO_ARBITER, "NOCONF-1")
        p.emit(hev.NoConfidenceExpressed, only(s.procurator, c.actor), complaint=number,
               target="arbiter", city=resident.city, complainant=c.actor, text=text)
        return
    # NOCONF-2: only the mafia; the Procurator learns the city, never the sender (HOST-PROC-7).
    check(resident.faction is Faction.MAFIA, ErrorCode.NOT_MAFIOSO, "NOCONF-2")
    p.emit(hev.NoConfidenceExpressed, only(s.procurator), complaint=number, target="consigliere",
           city=resident.city, complainant=None, text=text)
    p.emit(hev.NoConfidenceReceipt, only(c.actor), complaint=number, target="consigliere",
           text=text)


def decide_no_confidence(p: Progress, c: hc.DecideNoConfidence) -> None:
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
    p.emit(hev.NoConfidenceDecided, audience, host=c.actor, rule=rule, reason=reason,
           complaint=found.number, target=found.target, city=found.city, justified=c.justified,
           bonus=bonus)
    if found.target == "consigliere":
        p.emit(hev.NoConfidenceAnswered, mafia_audience(p.state, found.city),
               complaint=found.number, justified=c.justified, bonus=bonus)


# --- HOST-ARB-3: private prosecution and inbox bans -----------------------------------


def _parties(s: GameState) -> set[str]:
    """Residents and the public hosts; the Consigliere is an outsider here (HOST-CONS-5)."""
    public_hosts = {s.procurator, *s.tribunes(), *([s.arbiter] if s.arbiter else [])}
    return (set(s.residents) | public_hosts) - ({s.consigliere} if s.consigliere else set())


def file_private_case(p: Progress, c: hc.FilePrivateCase) -> None:
    s = p.state
    require_running(s)
    parties = _parties(s)
    check(c.actor in parties, ErrorCode.NOT_A_PARTICIPANT, "HOST-ARB-3", user=c.actor)
    check(c.accused in s.residents and c.accused != c.actor, ErrorCode.NOT_A_PARTICIPANT,
          "HOST-ARB-3", user=c.accused)
    check(s.arbiter is not None, ErrorCode.NO_ARBITER, "HOST-ARB-3")
    check(c.charge in CHARGES, ErrorCode.DECISION_INVALID, "HOST-ARB-3",
          detail=N_("choose one of the offered charges"))
    refs = tuple(dict.fromkeys(c.evidence))
    if refs:
        _refs(s, c.actor, refs, "HOST-ARB-3")
    p.emit(hev.PrivateCaseFiled, only(s.arbiter, c.actor, c.accused),
           case=len(s.records.cases) + 1, complainant=c.actor, accused=c.accused, charge=c.charge,
           evidence=refs, text=text_of(s, c.text))


HOST_ORGANIZED = (Kind.CITY, Kind.PERSONAL, Kind.VOTING, Kind.CEMETERY, Kind.POLICE, Kind.OFFICE,
                  Kind.BAR, Kind.IMPEACHMENT, Kind.OFFER)
"""Inboxes a Tribune or the Procurator organizes (engine/inboxes.py POLICY)."""


def bannable_kinds(s: GameState) -> set[Kind]:
    """HOST-ARB-3 (D24): «бан в одном или нескольких инбоксах, который исполняет Трибун или
    Прокуратор (в зависимости от организатора инбокса)» — by default any inbox a Tribune or
    the Procurator organizes; the narrower AMB-34 scopes are options. Never secret inboxes."""
    if s.settings.arbiter_ban_scope == "organizer_inboxes":
        return set(HOST_ORGANIZED)
    kinds = {Kind.CITY, Kind.CEMETERY}
    if s.settings.arbiter_ban_scope == "plus_police_impeachment":
        kinds |= {Kind.POLICE, Kind.IMPEACHMENT}
    if s.settings.arbiter_bans_in_voting:
        kinds |= {Kind.VOTING, Kind.POLLING, Kind.COURT, Kind.PERSONAL}
    return kinds


def _case(s: GameState, number: int) -> PrivateCase:
    case = next((x for x in s.records.cases if x.number == number), None)
    check(case is not None, ErrorCode.UNKNOWN_RECORD)
    assert case is not None
    return case


def organizer_of(s: GameState, inbox_id: str) -> str:
    inbox = s.inboxes[inbox_id]
    names = sorted(POLICY[Kind(inbox.kind)].organizer(s, inbox))
    return names[0] if names else s.procurator


def decide_private_case(p: Progress, c: hc.DecidePrivateCase) -> None:
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
    p.emit(hev.PrivateCaseDecided, only(s.arbiter, case.complainant, case.accused, organizers),
           host=c.actor, rule="HOST-ARB-3", reason=reason, case=case.number, guilty=c.guilty,
           inboxes=inboxes, until=until)
    for box in inboxes:
        assert until is not None
        organizer = organizer_of(s, box)
        # INBOX-GEN-4: the platform carries the ban out on the organizer's behalf, and logs it.
        p.emit(hev.InboxBanImposed, only(s.arbiter, case.accused, case.complainant, organizer),
               host=c.actor, rule="INBOX-GEN-4", reason=reason, case=case.number,
               user=case.accused, inbox=box, lineage=box.rsplit(":", 1)[0], organizer=organizer,
               until=until)


def lift_ban(p: Progress, c: hc.LiftInboxBan) -> None:
    s = p.state
    check(s.arbiter is not None and c.actor == s.arbiter, ErrorCode.NOT_ARBITER, "HOST-ARB-3")
    case = _case(s, c.case)
    active = [b for b in s.records.bans if b.case == case.number and not b.lifted and p.now < b.until]
    check(bool(active), ErrorCode.ALREADY_DECIDED, "HOST-ARB-3")
    organizers = {organizer_of(s, f"{b.lineage}:0") for b in active if f"{b.lineage}:0" in s.inboxes}
    p.emit(hev.InboxBanLifted, only(s.arbiter, case.accused, case.complainant, organizers),
           host=c.actor, rule="HOST-ARB-3", reason=reason_of(s, c.reason), case=case.number,
           user=case.accused)

