"""Read models follow the log: the incremental projection of a whole bot game equals the
engine's own answers at every step — membership is what ``engine.inboxes.access`` says —
and the deadline rows follow the state. (Live tallies have no read model: every read
asks ``engine.votes.live_tallies``.)"""

from __future__ import annotations

from datetime import datetime

from lepromafia.bots.simulate import play
from lepromafia.engine.commands import FireDeadline
from lepromafia.engine.commands_host import DecidePrivateCase
from lepromafia.engine.events import Event
from lepromafia.engine.evolve import evolve
from lepromafia.engine.inboxes import Access, access
from lepromafia.engine.state import GameState
from lepromafia.store.projection import MEMBERSHIP_NEUTRAL, GameClock, Projector, Step

from ..engine.cast import ARBITER, when
from ..engine.host.helpers import TOWN
from ..engine.host.test_private_cases import insulted


def by_access(state: GameState, now: datetime) -> dict[tuple[str, str], str]:
    """Every (inbox, user) pair the engine lets read, asked user by user."""
    users = set(state.residents) | state.hosts() | set(state.signups)
    for inbox in state.inboxes.values():
        users |= inbox.former | inbox.members
    found = {}
    for inbox_id in state.inboxes:
        for user in users:
            level = access(state, inbox_id, user, now=now)
            if level is not Access.NONE:
                found[(inbox_id, user)] = "write" if level is Access.WRITE else "read"
    return found


def project_all(events: list[Event]) -> tuple[Projector, GameState | None]:
    projector, state = Projector("g", GameClock(0.0)), None
    for seq, event in enumerate(events, start=1):
        before, state = state, evolve(state, event)
        projector.project(Step(f"c{seq}", FireDeadline(actor="system", key="k"), before, state,
                               ((seq, event),)))
    return projector, state


def test_incremental_membership_equals_the_engines_access_after_every_event() -> None:
    """INBOX-GEN-1: the membership rows are ``access`` itself; the tally rows are the live
    tally (EXEC-9, MAFIA-DISCLOSE-4); messages and votes never change membership."""
    game = play(2, cities=3, population=8)
    projector = Projector("g", GameClock(0.0))
    state = None
    pending: set[str] = set()
    for seq, event in enumerate(game.table.events, start=1):
        before, state = state, evolve(state, event)
        changes = projector.project(Step(f"c{seq}", FireDeadline(actor="system", key="k"), before, state,
                                         ((seq, event),)))
        if not isinstance(event, MEMBERSHIP_NEUTRAL):
            assert projector.members == by_access(state, event.at)
        for (_, key), row in changes["deadlines"].items():
            if row is not None and row["status"] == "pending":
                pending.add(key)
            else:
                pending.discard(key)
        assert pending == set(state.deadlines)
    assert any(level == "read" for level in projector.members.values()), "no ban or former member"


def test_the_membership_read_model_records_a_banned_member_as_read_only() -> None:
    """HOST-ARB-3, INBOX-GEN-1: dave insulted bob and the Arbiter banned him from the city
    inbox until Day 3, 12:00. The read model says 'read' during the ban, as ``access`` does,
    and 'write' again at the first change of membership after it expires."""
    g, _ = insulted()
    box = g.inbox("city", TOWN)
    g.do(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(box,),
                           until=when(3, "12:00"), reason="a plain insult"), 2, "12:00")
    projector, _ = project_all(g.table.events)
    assert projector.members[(box, "dave")] == "read"
    assert projector.members[(box, "bob")] == "write"
    assert projector.members == by_access(g.state, g.now)
    g.to(3, "23:59")  # the ban ran out at 12:00; the evening's deadlines change membership
    projector, _ = project_all(g.table.events)
    renewed = g.inbox("city", TOWN)
    assert projector.members[(renewed, "dave")] == "write"
    assert projector.members == by_access(g.state, g.now)
