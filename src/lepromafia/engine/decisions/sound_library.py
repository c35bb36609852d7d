"""The Sound Library's host decisions (ROLE-CIT-5, HOST-PROC-4, SOUND-1..3, SOUND-CONF,
SOUND-INT, SOUND-LW, SOUND-SEANCE): a Tribune passes a citizen's request to the Procurator,
the host holding a request accepts or declines it, and a recording (or a confrontation
refused or missed, AMB-28) is published. The citizens' requests themselves are
``rules/sound.py``; the Sound Library page draws these forms (it uploads the media and
measures its duration) and posts their fields.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ..audience import only
from ..commands import Command
from ..decision import AuditLine, host_decision
from ..errors import N_, ErrorCode, check
from ..events_host import HostDecision
from ..progress import Progress
from ..records import RequestState, SoundEntry, SoundKind
from ..rules.common import living_resident, require_running
from ..rules.host import reason_of, text_of
from ..rules.sound import (
    MAX_NOTE,
    OUTCOMES,
    RULES,
    handler_user,
    library_audience,
    limit_minutes,
    living_target,
    nominated,
    request_of,
    sound_kind,
)
from ..state import DeathCause, GameState

_C = {"frozen": True, "slots": True, "kw_only": True}

KIND_WORDS = {"confrontation": N_("confrontation"), "interrogation": N_("interrogation"),
              "last_word": N_("last word"), "seance": N_("séance")}
"""Each kind of entry as the audit log words it."""


def _requests(s: GameState, number: int, **changes: Any) -> GameState:
    requests = tuple(replace(r, **changes) if r.number == number else r
                     for r in s.records.sound_requests)
    return replace(s, records=replace(s.records, sound_requests=requests))


# --- ROLE-CIT-5: the Tribune forwards ------------------------------------------------


@dataclass(**_C)
class ForwardSoundRequest(Command):
    """ROLE-CIT-5: the Tribune passes a request on to the Procurator."""

    request: int
    reason: str = ""


@dataclass(**_C)
class SoundRequestForwarded(HostDecision):
    request: int
    to: str


def _forwarded(state: GameState, e: SoundRequestForwarded) -> GameState:
    return _requests(state, e.request, handler="procurator", state=RequestState.FORWARDED)


@host_decision(
    "forward_sound_request", office="tribune", command=ForwardSoundRequest,
    event=SoundRequestForwarded, rule="HOST-PROC-4", title=N_("Forward to the Procurator"),
    explain=N_("A citizen's request you cannot hold yourself goes to the Procurator."),
    evolve=_forwarded, labels={"request": N_("Request"), "reason": N_("Note")},
    limits={"reason": MAX_NOTE},
    audit=AuditLine("sound", N_("Passed sound request {request} on to {to}"),
                    lambda e: {"request": e.request, "to": e.to}, any_office=True),
    bespoke_form=True)
def forward_request(p: Progress, c: ForwardSoundRequest) -> None:
    """ROLE-CIT-5, HOST-PROC-4: the Tribune passes the request on to the Procurator."""
    s = p.state
    req = request_of(s, c.request)
    check(req.state is RequestState.SUBMITTED and req.handler == "tribune"
          and c.actor == handler_user(s, req), ErrorCode.NOT_HANDLER, "ROLE-CIT-5")
    p.emit(SoundRequestForwarded, only(req.requester, c.actor, s.procurator), host=c.actor,
           rule="ROLE-CIT-5", reason=text_of(s, c.reason, required=False, limit=MAX_NOTE),
           request=req.number, to="procurator")


# --- the holder answers ----------------------------------------------------------------


@dataclass(**_C)
class AnswerSoundRequest(Command):
    request: int
    accept: bool
    scheduled_for: datetime | None = None
    reason: str = ""


@dataclass(**_C)
class SoundRequestAnswered(HostDecision):
    request: int
    accepted: bool
    scheduled_for: datetime | None


def _answered(state: GameState, e: SoundRequestAnswered) -> GameState:
    return _requests(state, e.request,
                     state=RequestState.ACCEPTED if e.accepted else RequestState.DECLINED)


def _answer_line(e: SoundRequestAnswered) -> str:
    if e.accepted and e.scheduled_for:
        return N_("Accepted sound request {request} for {when}")
    if e.accepted:
        return N_("Accepted sound request {request}")
    return N_("Declined sound request {request}")


@host_decision(
    "answer_sound_request", office="procurator", command=AnswerSoundRequest,
    event=SoundRequestAnswered, rule="HOST-PROC-4", title=N_("Answer a request"),
    explain=N_("Accept a request with the time it is held, or decline it saying why."),
    evolve=_answered,
    labels={"request": N_("Request"), "accept": N_("Accept"), "scheduled_for": N_("When"),
            "reason": N_("Reason")},
    limits={"reason": MAX_NOTE},
    audit=AuditLine("sound", _answer_line, lambda e: {"request": e.request,
                                                      "when": e.scheduled_for},
                    any_office=True),
    bespoke_form=True)
def answer_request(p: Progress, c: AnswerSoundRequest) -> None:
    """The host holding the request accepts (and schedules) or declines it, with reasons.

    SOUND-LW-5: a Last Word asked for while the voting inbox lived cannot be declined.
    """
    s = p.state
    req = request_of(s, c.request)
    check(req.state in (RequestState.SUBMITTED, RequestState.FORWARDED)
          and c.actor == handler_user(s, req), ErrorCode.NOT_HANDLER, RULES[req.kind])
    if c.accept:
        reason = text_of(s, c.reason, required=False, limit=MAX_NOTE)
        check(c.scheduled_for is None or c.scheduled_for.tzinfo is not None,
              ErrorCode.SCHEDULE_INVALID, detail=N_("times need a timezone"))
    else:
        check(not req.inalienable, ErrorCode.LAST_WORD_INALIENABLE, "SOUND-LW-5")
        reason = reason_of(s, c.reason)
    audience = only(req.requester, c.actor,
                    s.cities[req.city].tribune if req.state is RequestState.FORWARDED else None,
                    # SOUND-CONF-3 step 2: the time is agreed with both citizens.
                    req.target if c.accept and req.kind is SoundKind.CONFRONTATION else None)
    rule = {SoundKind.SEANCE: "SOUND-SEANCE-1", SoundKind.INTERROGATION: "SOUND-INT-3"}.get(
        req.kind, "HOST-PROC-4")
    p.emit(SoundRequestAnswered, audience, host=c.actor, rule=rule, reason=reason,
           request=req.number, accepted=c.accept, scheduled_for=c.scheduled_for if c.accept else None)


# --- SOUND-3: an entry is published ------------------------------------------------------


@dataclass(**_C)
class PublishSoundEntry(Command):
    """Publish a recording (or a confrontation refused / not attended, AMB-28)."""

    kind: str
    media: str
    duration_seconds: int
    request: int | None = None
    city: str | None = None
    participants: tuple[str, ...] = ()
    outcome: str = "recorded"
    notes: str = ""


@dataclass(**_C)
class SoundEntryPublished(HostDecision):
    """``host`` is whoever ran or recorded it; for a self-recorded Last Word, the candidate."""

    entry: int
    kind: str
    city: str
    participants: tuple[str, ...]
    requester: str | None
    media: str
    duration_seconds: int
    outcome: str
    request: int | None
    notes: str


def _published(state: GameState, e: SoundEntryPublished) -> GameState:
    entry = SoundEntry(number=e.entry, kind=SoundKind(e.kind), city=e.city,
                       participants=e.participants, requester=e.requester, host=e.host,
                       media=e.media, duration_seconds=e.duration_seconds, outcome=e.outcome,
                       request=e.request, at=e.at)
    new = replace(state, records=replace(state.records,
                                         sound_entries=(*state.records.sound_entries, entry)))
    return new if e.request is None else _requests(new, e.request, state=RequestState.DONE)


@host_decision(
    "publish_sound_entry", office="procurator", command=PublishSoundEntry,
    event=SoundEntryPublished, rule="SOUND-1", title=N_("Publish a recording"),
    explain=N_("Upload the recording; the platform measures its length. A confrontation "
               "refused or missed is published as such, without media."),
    evolve=_published,
    labels={"kind": N_("Kind"), "media": N_("Recording"), "duration_seconds": N_("Length"),
            "request": N_("Request"), "city": N_("City"), "participants": N_("Participant"),
            "outcome": N_("Outcome"), "notes": N_("Notes")},
    limits={"notes": MAX_NOTE, "kind": 20, "media": 64},
    audit=AuditLine("sound", N_("Published a {what} in the Sound Library of {city}"),
                    lambda e: {"what": KIND_WORDS.get(e.kind, e.kind), "city": e.city},
                    words=("what",), any_office=True),
    bespoke_form=True)
def publish_entry(p: Progress, c: PublishSoundEntry) -> None:
    s = p.state
    require_running(s)
    kind = sound_kind(c.kind)
    request: int | None = None
    if c.request is not None:
        req = request_of(s, c.request)
        check(req.state is RequestState.ACCEPTED and c.actor == handler_user(s, req),
              ErrorCode.NOT_HANDLER, RULES[req.kind])
        check(kind is req.kind, ErrorCode.SOUND_REQUEST_INVALID, detail=N_("unknown kind of request"))
        city, requester, request = req.city, req.requester, req.number
        participants = tuple(u for u in (req.requester, req.target) if u)
        rule = RULES[kind]
    elif kind is SoundKind.LAST_WORD:
        # SOUND-LW-3, SOUND-LW-5: the candidate may always record his Last Word himself.
        r = living_resident(s, c.actor)
        check(nominated(s, c.actor), ErrorCode.SOUND_REQUEST_INVALID, "SOUND-LW-3",
              detail=N_("a Last Word belongs to a nominated citizen"))
        city, requester, participants, rule = r.city, c.actor, (c.actor,), "SOUND-LW-3"
    elif kind is SoundKind.INTERROGATION:
        # SOUND-INT-1, HOST-PROC-4: a host calls one citizen on his own initiative.
        check(len(c.participants) == 1, ErrorCode.SOUND_REQUEST_INVALID, "SOUND-INT-1",
              detail=N_("an interrogation has one citizen"))
        city = living_target(s, c.actor, c.participants[0], "SOUND-INT-1")
        check(c.actor in (s.procurator, s.cities[city].tribune), ErrorCode.NOT_HANDLER,
              "SOUND-INT-1")
        requester, participants, rule = None, tuple(c.participants), "SOUND-INT-1"
    elif kind is SoundKind.SEANCE:
        # HOST-PROC-4: the Procurator may hold a séance on his own initiative.
        require = s.residents.get(c.participants[0]) if len(c.participants) == 1 else None
        check(c.actor == s.procurator, ErrorCode.NOT_PROCURATOR, "HOST-PROC-4")
        check(require is not None and not require.alive
              and require.cause is not DeathCause.SUICIDE,
              ErrorCode.NOT_IN_CEMETERY, "SOUND-SEANCE-1")
        assert require is not None
        city, requester, participants, rule = require.city, None, (require.user,), "HOST-PROC-4"
    else:
        check(False, ErrorCode.SOUND_REQUEST_INVALID, "SOUND-CONF-3",
              detail=N_("a confrontation starts with a citizen's request"))
        raise AssertionError  # unreachable
    check(c.outcome in OUTCOMES, ErrorCode.SOUND_REQUEST_INVALID, detail=N_("unknown outcome"))
    if c.outcome == "recorded":
        check(bool(c.media.strip()) and c.duration_seconds > 0, ErrorCode.SOUND_REQUEST_INVALID,
              "SOUND-3", detail=N_("a recording needs media and a duration"))
        limit = limit_minutes(s, kind)
        check(limit is None or c.duration_seconds <= limit * 60, ErrorCode.SOUND_TOO_LONG,
              "SOUND-CONF-4" if kind is SoundKind.CONFRONTATION else "SOUND-LW-4", limit=limit)
    else:
        check(kind is SoundKind.CONFRONTATION and not c.media.strip() and c.duration_seconds == 0,
              ErrorCode.SOUND_REQUEST_INVALID, "SOUND-CONF-3",
              detail=N_("only a confrontation is published as refused or missed, without media"))
    p.emit(SoundEntryPublished, library_audience(s, city), host=c.actor, rule=rule,
           reason="", entry=len(s.records.sound_entries) + 1, kind=kind.value, city=city,
           participants=participants, requester=requester, media=c.media.strip(),
           duration_seconds=c.duration_seconds, outcome=c.outcome, request=request,
           notes=text_of(s, c.notes, required=False, limit=MAX_NOTE))
