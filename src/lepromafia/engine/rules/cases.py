"""Impeachment, no-confidence and private prosecution (IMPEACH, NOCONF, HOST-ARB-3, SEC-12)."""

from __future__ import annotations

from .. import commands_host as hc
from .. import events_host as hev
from ..audience import only
from ..errors import N_, ErrorCode, check
from ..inboxes import POLICY, Kind, can_read, readers
from ..progress import Progress
from ..records import MessageRef
from ..state import Faction, GameState
from .common import (
    living_resident,
    open_inbox,
    require_running,
    require_undecided,
)
from .host import text_of

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


# --- IMPEACH-2, -3, -6: the Procurator's decision is decisions/cases.py ---------------


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


def organizer_of(s: GameState, inbox_id: str) -> str:
    inbox = s.inboxes[inbox_id]
    names = sorted(POLICY[Kind(inbox.kind)].organizer(s, inbox))
    return names[0] if names else s.procurator
