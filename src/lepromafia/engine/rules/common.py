"""Guards and helpers shared by the command handlers."""

from __future__ import annotations

from datetime import datetime

from .. import events as ev
from ..audience import PUBLIC, Audience, only
from ..errors import ErrorCode, check
from ..inboxes import Kind, inbox_id, readers, readers_of
from ..progress import Progress
from ..state import City, GameState, Inbox, PhaseKind, Resident, Stage


def require_running(state: GameState) -> None:
    check(state.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    check(state.stage is Stage.RUNNING, ErrorCode.WRONG_STAGE, stage=state.stage.value)


def require_procurator(state: GameState, actor: str) -> None:
    check(actor == state.procurator, ErrorCode.NOT_PROCURATOR, "HOST-PROC-1")


def require_city(state: GameState, name: str) -> City:
    city = state.cities.get(name)
    check(city is not None, ErrorCode.UNKNOWN_CITY, city=name)
    assert city is not None
    return city


def living_resident(state: GameState, actor: str) -> Resident:
    """ROLE-DEAD-3: the dead have no game rights."""
    resident = state.residents.get(actor)
    check(resident is not None, ErrorCode.NOT_RESIDENT)
    assert resident is not None
    check(resident.alive, ErrorCode.NOT_ALIVE, "ROLE-DEAD-3")
    return resident


def require_day(state: GameState) -> None:
    check(state.phase is PhaseKind.DAY, ErrorCode.WRONG_PHASE, "TIME-10")


def require_night(state: GameState) -> None:
    check(state.phase is PhaseKind.NIGHT, ErrorCode.WRONG_PHASE, "TIME-10")


def require_undecided(city: City) -> None:
    check(city.decided is None, ErrorCode.CITY_DECIDED, "WIN-5")


def mafia_audience(state: GameState, city: str) -> Audience:
    """The readers of the city's mafia inbox: its mafiosi and the Consigliere."""
    current = state.current_inbox(Kind.MAFIA.value, city)
    if current is None:
        return only(state.mafiosi(city), state.consigliere)
    return only(readers(state, current))


def schedule(p: Progress, key: str, due_at: datetime, audience: Audience = PUBLIC) -> None:
    p.emit(ev.DeadlineScheduled, audience, key=key, due_at=due_at)


def cancel(p: Progress, key: str) -> None:
    due = p.state.deadlines.get(key)
    if due is not None:
        p.emit(ev.DeadlineFired, PUBLIC if not key.startswith("offer") else only(p.state.procurator),
               key=key, due_at=due)


def open_inbox(
    p: Progress,
    kind: Kind,
    scope: str = "",
    *,
    city: str | None = None,
    subject: str | None = None,
    members: frozenset[str] = frozenset(),
    title: str = "",
    generation: int = 0,
    audience: Audience | None = None,
) -> str:
    """Open an inbox; its audience is whoever may read it once it exists."""
    new_id = inbox_id(kind, scope, generation)
    draft = Inbox(id=new_id, kind=kind.value, city=city, subject=subject, members=members)
    p.emit(
        ev.InboxOpened,
        audience if audience is not None else only(readers_of(p.state, draft)),
        inbox=new_id,
        kind=kind.value,
        city=city,
        subject=subject,
        generation=generation,
        members=members,
        title=title,
    )
    return new_id


def archive_inbox(p: Progress, inbox: str) -> None:
    """Kill or supersede an inbox: every current reader keeps read access only."""
    who = readers(p.state, inbox)
    box = p.state.inboxes[inbox]
    # SEC-5, SEC-6: a Commissar Line's reader list names the commissar and the Consigliere
    # to each other; only the Procurator, who knows both, is shown it.
    audience = only(p.state.procurator) if box.kind == Kind.LINE else only(who)
    p.emit(ev.InboxArchived, audience, inbox=inbox, readers=who)


def renew_inbox(p: Progress, inbox: str) -> str:
    """INBOX-GEN-2: a fresh inbox of the same kind; the old one read-only for all."""
    old = p.state.inboxes[inbox]
    scope = inbox.split(":")[1]
    archive_inbox(p, inbox)
    return open_inbox(
        p, Kind(old.kind), scope, city=old.city, subject=old.subject, members=old.members,
        title=old.title, generation=old.generation + 1,
    )
