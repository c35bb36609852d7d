"""The Sound Library: requests, their flow through the hosts, and published entries.

ROLE-CIT-5, ROLE-DEAD-2, HOST-PROC-4, SOUND-1..3, SOUND-CONF, SOUND-INT, SOUND-LW,
SOUND-SEANCE. Media storage and playback are not the engine's: an entry names a media id
and a duration.
"""

from __future__ import annotations

from .. import commands_host as hc
from .. import events_host as hev
from ..audience import PUBLIC, Audience, only
from ..errors import N_, ErrorCode, check
from ..inboxes import Kind, live_inbox, readers
from ..progress import Progress
from ..records import RequestState, SoundKind, SoundRequest
from ..state import DeathCause, GameState
from .common import living_resident, require_running, require_undecided
from .host import reason_of, text_of

MAX_NOTE = 1000
OUTCOMES = ("recorded", "refused", "no_show")
"""AMB-28: a confrontation the target refuses or misses is published as such."""

_RULE = {
    SoundKind.CONFRONTATION: "SOUND-CONF-3",
    SoundKind.INTERROGATION: "SOUND-INT-2",
    SoundKind.LAST_WORD: "SOUND-LW-2",
    SoundKind.SEANCE: "SOUND-SEANCE-2",
}


def _kind(text: str) -> SoundKind:
    check(text in {k.value for k in SoundKind}, ErrorCode.SOUND_REQUEST_INVALID, "SOUND-1",
          detail=N_("unknown kind of request"))
    return SoundKind(text)


def library_audience(s: GameState, city: str) -> Audience:
    """SOUND-2 (AMB-29): public by default; ``city_only``: residents, observers and hosts."""
    if s.settings.sound_library_visibility == "public":
        return PUBLIC
    box = s.current_inbox(Kind.CITY.value, city)
    watchers = readers(s, box) if box else frozenset()
    return only(s.cities[city].residents, watchers, s.hosts())


def voting_inbox_live(s: GameState, user: str) -> bool:
    """EXEC-12: the candidate's voting inbox exists and has not been killed."""
    r = s.residents.get(user)
    box = live_inbox(s, Kind.VOTING, r.city, user) if r else None
    return box is not None and not s.inboxes[box].archived


def _nominated(s: GameState, user: str) -> bool:
    """SOUND-LW-1: a nominated citizen, before the vote or while his voting inbox lives."""
    r = s.residents[user]
    return user in s.cities[r.city].nominations.values() or voting_inbox_live(s, user)


def handler_user(s: GameState, req: SoundRequest) -> str:
    return s.procurator if req.handler == "procurator" else s.cities[req.city].tribune


def _request(s: GameState, number: int) -> SoundRequest:
    found = next((r for r in s.records.sound_requests if r.number == number), None)
    check(found is not None, ErrorCode.UNKNOWN_RECORD)
    assert found is not None
    return found


def _living_target(s: GameState, actor: str, target: str | None, rule: str) -> str:
    r = s.residents.get(target or "")
    check(r is not None and r.alive and target != actor, ErrorCode.SOUND_REQUEST_INVALID, rule,
          detail=N_("the other party must be another living resident"))
    assert r is not None
    return r.city


def request_sound(p: Progress, c: hc.RequestSound) -> None:
    s = p.state
    require_running(s)
    kind = _kind(c.kind)
    note = text_of(s, c.note, required=False, limit=MAX_NOTE)
    target: str | None = None
    inalienable = False
    form: str | None = None
    if kind is SoundKind.SEANCE:
        # ROLE-DEAD-2, SOUND-SEANCE-1: a Cemetery inhabitant asks the Procurator.
        r = s.residents.get(c.actor)
        check(r is not None, ErrorCode.NOT_RESIDENT)
        assert r is not None
        check(not r.alive and r.cause is not DeathCause.SUICIDE, ErrorCode.NOT_IN_CEMETERY,
              "SOUND-SEANCE-1")
        check(c.form in ("acoustic", "visual"), ErrorCode.SOUND_REQUEST_INVALID,
              "SOUND-SEANCE-2", detail=N_("a séance is acoustic or visual"))
        city, handler, form = r.city, "procurator", c.form
    else:
        r = living_resident(s, c.actor)  # ROLE-DEAD-3: the dead request no confrontation
        if kind is SoundKind.CONFRONTATION:
            # ROLE-CIT-5, SOUND-CONF-3: to the Tribune; SOUND-CONF-6: of the target's city.
            city = _living_target(s, c.actor, c.target, "SOUND-CONF-1")
            target, handler = c.target, "tribune"
        elif kind is SoundKind.INTERROGATION:
            city = _living_target(s, c.actor, c.target, "SOUND-INT-3")
            target, handler = c.target, "procurator" if c.to_procurator else "tribune"
        else:
            check(_nominated(s, c.actor), ErrorCode.SOUND_REQUEST_INVALID, "SOUND-LW-1",
                  detail=N_("a Last Word belongs to a nominated citizen"))
            city, handler = r.city, "procurator" if c.to_procurator else "tribune"
            inalienable = voting_inbox_live(s, c.actor)  # SOUND-LW-5
        require_undecided(s.cities[city])
    number = len(s.records.sound_requests) + 1
    draft = SoundRequest(number=number, kind=kind, city=city, requester=c.actor, target=target,
                         handler=handler, state=RequestState.SUBMITTED, submitted_at=p.now)
    p.emit(hev.SoundRequested, only(c.actor, handler_user(s, draft)), request=number,
           kind=kind.value, city=city, requester=c.actor, target=target, handler=handler,
           inalienable=inalienable, form=form, note=note)


def forward_request(p: Progress, c: hc.ForwardSoundRequest) -> None:
    """ROLE-CIT-5, HOST-PROC-4: the Tribune passes the request on to the Procurator."""
    s = p.state
    req = _request(s, c.request)
    check(req.state is RequestState.SUBMITTED and req.handler == "tribune"
          and c.actor == handler_user(s, req), ErrorCode.NOT_HANDLER, "ROLE-CIT-5")
    p.emit(hev.SoundRequestForwarded, only(req.requester, c.actor, s.procurator), host=c.actor,
           rule="ROLE-CIT-5", reason=text_of(s, c.reason, required=False, limit=MAX_NOTE),
           request=req.number, to="procurator")


def answer_request(p: Progress, c: hc.AnswerSoundRequest) -> None:
    """The host holding the request accepts (and schedules) or declines it, with reasons.

    SOUND-LW-5: a Last Word asked for while the voting inbox lived cannot be declined.
    """
    s = p.state
    req = _request(s, c.request)
    check(req.state in (RequestState.SUBMITTED, RequestState.FORWARDED)
          and c.actor == handler_user(s, req), ErrorCode.NOT_HANDLER, _RULE[req.kind])
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
    p.emit(hev.SoundRequestAnswered, audience, host=c.actor, rule=rule, reason=reason,
           request=req.number, accepted=c.accept, scheduled_for=c.scheduled_for if c.accept else None)


def _limit_minutes(s: GameState, kind: SoundKind) -> int | None:
    if kind is SoundKind.CONFRONTATION:
        return s.settings.confrontation_max_minutes  # SOUND-CONF-4
    if kind is SoundKind.LAST_WORD:
        return s.settings.last_word_max_minutes  # SOUND-LW-4
    return None


def publish_entry(p: Progress, c: hc.PublishSoundEntry) -> None:
    s = p.state
    require_running(s)
    kind = _kind(c.kind)
    request: int | None = None
    if c.request is not None:
        req = _request(s, c.request)
        check(req.state is RequestState.ACCEPTED and c.actor == handler_user(s, req),
              ErrorCode.NOT_HANDLER, _RULE[req.kind])
        check(kind is req.kind, ErrorCode.SOUND_REQUEST_INVALID, detail=N_("unknown kind of request"))
        city, requester, request = req.city, req.requester, req.number
        participants = tuple(u for u in (req.requester, req.target) if u)
        rule = _RULE[kind]
    elif kind is SoundKind.LAST_WORD:
        # SOUND-LW-3, SOUND-LW-5: the candidate may always record his Last Word himself.
        r = living_resident(s, c.actor)
        check(_nominated(s, c.actor), ErrorCode.SOUND_REQUEST_INVALID, "SOUND-LW-3",
              detail=N_("a Last Word belongs to a nominated citizen"))
        city, requester, participants, rule = r.city, c.actor, (c.actor,), "SOUND-LW-3"
    elif kind is SoundKind.INTERROGATION:
        # SOUND-INT-1, HOST-PROC-4: a host calls one citizen on his own initiative.
        check(len(c.participants) == 1, ErrorCode.SOUND_REQUEST_INVALID, "SOUND-INT-1",
              detail=N_("an interrogation has one citizen"))
        city = _living_target(s, c.actor, c.participants[0], "SOUND-INT-1")
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
        limit = _limit_minutes(s, kind)
        check(limit is None or c.duration_seconds <= limit * 60, ErrorCode.SOUND_TOO_LONG,
              "SOUND-CONF-4" if kind is SoundKind.CONFRONTATION else "SOUND-LW-4", limit=limit)
    else:
        check(kind is SoundKind.CONFRONTATION and not c.media.strip() and c.duration_seconds == 0,
              ErrorCode.SOUND_REQUEST_INVALID, "SOUND-CONF-3",
              detail=N_("only a confrontation is published as refused or missed, without media"))
    p.emit(hev.SoundEntryPublished, library_audience(s, city), host=c.actor, rule=rule,
           reason="", entry=len(s.records.sound_entries) + 1, kind=kind.value, city=city,
           participants=participants, requester=requester, media=c.media.strip(),
           duration_seconds=c.duration_seconds, outcome=c.outcome, request=request,
           notes=text_of(s, c.notes, required=False, limit=MAX_NOTE))
