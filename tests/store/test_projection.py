"""Read models follow the log: the incremental projection of a whole bot game equals
the membership and deadlines computed from scratch at every step."""

from __future__ import annotations

from lepromafia.bots.simulate import play
from lepromafia.engine.commands import FireDeadline
from lepromafia.engine.evolve import evolve
from lepromafia.store.projection import GameClock, Projector, Step, members_of


def test_incremental_membership_equals_a_full_recount_after_every_event() -> None:
    """INBOX-GEN-1: bans and memberships; messages and votes never change them."""
    game = play(2, cities=3, population=8)
    projector = Projector("g", GameClock(0.0))
    state = None
    pending: set[str] = set()
    for seq, event in enumerate(game.table.events, start=1):
        before, state = state, evolve(state, event)
        changes = projector.project(Step(f"c{seq}", FireDeadline(actor="system", key="k"), before, state,
                                         ((seq, event),)))
        assert projector.members == members_of(state)
        for (_, key), row in changes["deadlines"].items():
            if row is not None and row["status"] == "pending":
                pending.add(key)
            else:
                pending.discard(key)
        assert pending == set(state.deadlines)
    assert any(access == "read" for access in projector.members.values()), "no ban or former member"
