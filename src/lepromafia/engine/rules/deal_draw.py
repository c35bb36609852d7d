"""The commit-reveal deal (issue 14, docs/verification.md): nobody chooses the mafia positions.

Parties — the Procurator, the Consigliere and any signed-up player who wishes — commit
``SHA-256(value)`` until the Procurator opens the reveals, which the Consigliere's sealed
lists must precede. Opening adds the server's commitment (supplied by the service in the
command) and closes the commitments; each party then reveals. A value that does not match
its commitment is refused. When every party has revealed, or the reveal window closes, each
silent party's value is replaced from the server's (recorded), the positions are drawn from
all values (``engine.deal.draw_positions``) and the factions are dealt as in RANDOM-4.
"""

from __future__ import annotations

import re
from datetime import timedelta

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..deal import SERVER_PARTY, draw_positions, entropy_seed, fallback_value, value_digest
from ..errors import ErrorCode, check
from ..progress import Progress
from ..state import GameState, Stage
from .common import cancel, require_procurator, schedule
from .setup import deal_factions

DIGEST = re.compile(r"[0-9a-f]{64}")
MAX_VALUE = 200
DEADLINE = "deal_reveal:close"
PROCURATOR, CONSIGLIERE = "office:procurator", "office:consigliere"
"""The hosts commit by office: the Consigliere's name is secret (HOST-CONS-5)."""


def by_draw(s: GameState) -> bool:
    return s.settings.deal_method == "commit_reveal"


def party_of(s: GameState, actor: str) -> str | None:
    """The name a party commits under: the hosts by office (the Consigliere's identity is
    secret, HOST-CONS-5), a player by his user id, the server as ``system``."""
    if actor == SERVER_PARTY:
        return SERVER_PARTY
    if actor == s.consigliere:
        return CONSIGLIERE
    if actor == s.procurator:
        return PROCURATOR
    return actor if actor in s.signups or actor in s.residents else None


def may_commit(s: GameState, actor: str) -> bool:
    """RANDOM-4: a party that has not committed, while commitments are taken."""
    party = party_of(s, actor)
    return (by_draw(s) and s.stage in (Stage.RECRUITING, Stage.FORMED, Stage.SEALED)
            and not s.deal.reveals_open and party is not None and party != SERVER_PARTY
            and party not in s.deal.digests)


def may_open_reveals(s: GameState) -> bool:
    """The lists are sealed and both hosts have committed: the Procurator may open the reveals."""
    return (by_draw(s) and s.stage is Stage.SEALED and not s.deal.reveals_open
            and {PROCURATOR, CONSIGLIERE} <= set(s.deal.digests))


def may_reveal(s: GameState, actor: str) -> bool:
    """A committed party that has not revealed, while the reveals are open."""
    party = party_of(s, actor)
    return (by_draw(s) and s.stage is Stage.SEALED and s.deal.reveals_open and party is not None
            and party != SERVER_PARTY and party in s.deal.digests and party not in s.deal.values)


def commit(p: Progress, c: cmd.CommitDealEntropy) -> None:
    s = p.state
    check(by_draw(s), ErrorCode.DEAL_BY_HAND, "RANDOM-4")
    check(s.stage in (Stage.RECRUITING, Stage.FORMED, Stage.SEALED) and not s.deal.reveals_open,
          ErrorCode.ENTROPY_CLOSED, "RANDOM-4")
    party = party_of(s, c.actor)
    check(party is not None and party != SERVER_PARTY, ErrorCode.ENTROPY_NOT_A_PARTY, "RANDOM-4")
    check(party not in s.deal.digests, ErrorCode.ENTROPY_ALREADY_COMMITTED, "RANDOM-4")
    check(DIGEST.fullmatch(c.digest) is not None, ErrorCode.ENTROPY_DIGEST_INVALID, "RANDOM-4")
    p.emit(ev.DealEntropyCommitted, PUBLIC, party=party, digest=c.digest)


def open_reveals(p: Progress, c: cmd.OpenDealReveals) -> None:
    s = p.state
    require_procurator(s, c.actor)
    check(by_draw(s), ErrorCode.DEAL_BY_HAND, "RANDOM-4")
    check(s.stage is Stage.SEALED, ErrorCode.DEAL_NOT_SEALED if s.stage is Stage.FORMED
          else ErrorCode.WRONG_STAGE, "RANDOM-3", stage=s.stage.value)
    check(not s.deal.reveals_open, ErrorCode.ENTROPY_CLOSED, "RANDOM-4")
    check({PROCURATOR, CONSIGLIERE} <= set(s.deal.digests),
          ErrorCode.ENTROPY_PARTIES_MISSING, "RANDOM-4")
    check(DIGEST.fullmatch(c.server_digest) is not None, ErrorCode.ENTROPY_DIGEST_INVALID, "RANDOM-4")
    closes = p.now + timedelta(minutes=s.settings.deal_reveal_minutes)
    p.emit(ev.DealRevealsOpened, PUBLIC, parties=tuple(sorted(s.deal.digests)),
           server_digest=c.server_digest, closes_at=closes)
    schedule(p, DEADLINE, closes)


def reveal(p: Progress, c: cmd.RevealDealEntropy) -> None:
    s = p.state
    check(by_draw(s), ErrorCode.DEAL_BY_HAND, "RANDOM-4")
    check(s.stage is Stage.SEALED and s.deal.reveals_open, ErrorCode.ENTROPY_REVEALS_NOT_OPEN,
          "RANDOM-4")
    party = party_of(s, c.actor)
    check(party is not None and party in s.deal.digests, ErrorCode.ENTROPY_NOT_A_PARTY, "RANDOM-4")
    assert party is not None
    check(party not in s.deal.values, ErrorCode.ENTROPY_ALREADY_REVEALED, "RANDOM-4")
    check(0 < len(c.value) <= MAX_VALUE and value_digest(c.value) == s.deal.digests[party],
          ErrorCode.ENTROPY_MISMATCH, "RANDOM-4")
    p.emit(ev.DealEntropyRevealed, PUBLIC, party=party, value=c.value)
    if set(p.state.deal.values) == set(p.state.deal.digests):
        cancel(p, DEADLINE)
        _draw(p)


def close_reveals(p: Progress, rest: str, seed: int) -> None:
    """The window closed: silent parties are replaced from the server's value, then the draw."""
    s = p.state
    if s.stage is not Stage.SEALED or set(s.deal.values) == set(s.deal.digests):
        return
    if SERVER_PARTY not in s.deal.values:  # the server never revealed: only public data left
        p.emit(ev.DealEntropyReplaced, PUBLIC, party=SERVER_PARTY, value=missing_server_value(s))
    server = p.state.deal.values[SERVER_PARTY]
    for party in sorted(s.deal.digests):
        if party not in p.state.deal.values:
            p.emit(ev.DealEntropyReplaced, PUBLIC, party=party, value=fallback_value(server, party))
    _draw(p)


def missing_server_value(s: GameState) -> str:
    """What stands in for a server that did not reveal: the hash of every commitment."""
    return value_digest(",".join(f"{party}={digest}" for party, digest in sorted(s.deal.digests.items())))


def _draw(p: Progress) -> None:
    """RANDOM-4 by lot: the positions come from every party's value."""
    s = p.state
    seed = entropy_seed(s.deal.values)
    for name, city in s.cities.items():
        numbers = draw_positions(seed, name, len(s.deal.lists[name]), city.mafia_count)
        p.emit(ev.MafiaNumbersNamed, only(s.procurator, s.consigliere), city=name, numbers=numbers)
    deal_factions(p)
