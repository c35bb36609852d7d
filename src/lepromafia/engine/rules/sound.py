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
from .host import text_of

MAX_NOTE = 1000
OUTCOMES = ("recorded", "refused", "no_show")
"""AMB-28: a confrontation the target refuses or misses is published as such."""

RULES = {
    SoundKind.CONFRONTATION: "SOUND-CONF-3",
    SoundKind.INTERROGATION: "SOUND-INT-2",
    SoundKind.LAST_WORD: "SOUND-LW-2",
    SoundKind.SEANCE: "SOUND-SEANCE-2",
}


def sound_kind(text: str) -> SoundKind:
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


def nominated(s: GameState, user: str) -> bool:
    """SOUND-LW-1: a nominated citizen, before the vote or while his voting inbox lives."""
    r = s.residents[user]
    return user in s.cities[r.city].nominations.values() or voting_inbox_live(s, user)


def handler_user(s: GameState, req: SoundRequest) -> str:
    return s.procurator if req.handler == "procurator" else s.cities[req.city].tribune


def request_of(s: GameState, number: int) -> SoundRequest:
    found = next((r for r in s.records.sound_requests if r.number == number), None)
    check(found is not None, ErrorCode.UNKNOWN_RECORD)
    assert found is not None
    return found


def living_target(s: GameState, actor: str, target: str | None, rule: str) -> str:
    r = s.residents.get(target or "")
    check(r is not None and r.alive and target != actor, ErrorCode.SOUND_REQUEST_INVALID, rule,
          detail=N_("the other party must be another living resident"))
    assert r is not None
    return r.city


def request_sound(p: Progress, c: hc.RequestSound) -> None:
    s = p.state
    require_running(s)
    kind = sound_kind(c.kind)
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
            city = living_target(s, c.actor, c.target, "SOUND-CONF-1")
            target, handler = c.target, "tribune"
        elif kind is SoundKind.INTERROGATION:
            city = living_target(s, c.actor, c.target, "SOUND-INT-3")
            target, handler = c.target, "procurator" if c.to_procurator else "tribune"
        else:
            check(nominated(s, c.actor), ErrorCode.SOUND_REQUEST_INVALID, "SOUND-LW-1",
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


def limit_minutes(s: GameState, kind: SoundKind) -> int | None:
    if kind is SoundKind.CONFRONTATION:
        return s.settings.confrontation_max_minutes  # SOUND-CONF-4
    if kind is SoundKind.LAST_WORD:
        return s.settings.last_word_max_minutes  # SOUND-LW-4
    return None
