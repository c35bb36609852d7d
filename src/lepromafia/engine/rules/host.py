"""The helpers the host decisions declared in ``engine/decisions`` share, the rule questions
about sanctions (OMERTA-2), and the COMM-APPT-6 notary: sealing a record and opening it.

Each decision is a command by the host who decides, validated where the rules allow it,
and recorded as a ``HostDecision`` event: one line of the audit log (§9.1 p.4).
"""

from __future__ import annotations

import hashlib
from typing import Any

from .. import commands as cmd
from .. import events as ev
from .. import events_host as hev
from ..audience import PUBLIC, Audience, only
from ..errors import ErrorCode, check
from ..progress import Progress
from ..state import GameState, Stage
from . import commissar

MAX_TITLE = 200
MAX_REASON = 4000
SANCTION_RULES = ("OMERTA-2", "IMPEACH-5", "RESTORE-T1")
"""Breaking omertà, forging evidence, a game-destroying leak (AMB-38)."""


# --- shared helpers ------------------------------------------------------------------


def text_of(s: GameState, text: str, *, required: bool = True, limit: int | None = None) -> str:
    clean = text.strip()
    if required:
        check(bool(clean), ErrorCode.MESSAGE_EMPTY)
    top = limit or s.settings.message_max_length
    check(len(clean) <= top, ErrorCode.MESSAGE_TOO_LONG, limit=top)
    return clean


def reason_of(s: GameState, reason: str) -> str:
    """Every discretionary decision says why (§3 [HOST]: who, when and why)."""
    clean = reason.strip()
    check(bool(clean), ErrorCode.REASON_REQUIRED)
    check(len(clean) <= MAX_REASON, ErrorCode.MESSAGE_TOO_LONG, limit=MAX_REASON)
    return clean


def office_audience(s: GameState) -> Audience:
    """The Office's members (INBOX-OFFICE-1): the Procurator, the Tribunes, the Arbiter."""
    return only(s.procurator, s.tribunes(), s.arbiter)


def offices_of(s: GameState, user: str) -> tuple[str, ...]:
    held = [name for name, holder in (("procurator", s.procurator), ("consigliere", s.consigliere),
                                      ("arbiter", s.arbiter)) if holder == user]
    held += [f"tribune:{c.name}" for c in s.cities.values() if c.tribune == user]
    return tuple(held)


def digest(content: tuple[tuple[str, str], ...]) -> str:
    canonical = "\n".join(f"{key}={value}" for key, value in content)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def seal(p: Progress, kind: str, content: tuple[tuple[str, str], ...], *, host: str, rule: str,
         audience: Audience, opens_at_game_end: bool, reason: str = "") -> int:
    """A sealed record (AMB-39): immutable, timestamped, hashed; its organizer reads it."""
    number = len(p.state.records.sealed) + 1
    p.emit(hev.RecordSealed, audience, host=host, rule=rule, reason=reason, record=number,
           kind=kind, digest=digest(content), content=content, opens_at_game_end=opens_at_game_end)
    return number


# --- every [HOST] decision is declared in engine/decisions with @host_decision; the
# sanction itself (OMERTA-2, IMPEACH-5, PLAYER-7) in decisions/sanctions.py.


def sanction_visible(state: GameState, sanctioned: str, viewer: str | None) -> bool:
    """OMERTA-2 (D8): a sanction tied to a running game names a mafioso, so until the game
    ends only the Procurator and the sanctioned player may know it; afterwards everyone."""
    if state.stage is Stage.FINISHED:
        return True
    return viewer is not None and viewer in (state.procurator, sanctioned)


# --- COMM-APPT-6: the commissar draws, sealed in a notary record ----------------------


def offer_commissar(p: Progress, c: cmd.OfferCommissar) -> None:
    """COMM-APPT-6 (AMB-39): each draw and its pool are sealed at once; they open at game end."""
    city = p.state.cities.get(c.city)
    pool = [u for u in p.state.living(c.city) if u not in city.offers_made] if city else []
    before = len(p.events)
    commissar.offer(p, c)
    offered = next(e for e in p.events[before:] if isinstance(e, ev.CommissarOffered))
    content = (
        ("city", offered.city), ("attempt", str(offered.attempt)), ("draw", str(c.draw)),
        ("pool", ",".join(pool)), ("candidate", offered.candidate),
        ("offered_at", p.now.isoformat()),
    )
    seal(p, "commissar_draw", content, host=c.actor, rule="COMM-APPT-6",
         audience=only(p.state.procurator), opens_at_game_end=True)


def open_sealed_at_game_end(p: Progress) -> None:
    """§9.4, AMB-39: the COMM-APPT-6 records open to everyone when the game ends."""
    for record in p.state.records.sealed:
        if record.opens_at_game_end and not record.opened:
            open_record(p, record.number, "platform")


def open_record(p: Progress, number: int, by: str) -> None:
    """A sealed record made public (``decisions.sealed_records``), checkable by its digest."""
    record = p.state.records.sealed[number - 1]
    fields: dict[str, Any] = {"record": number, "kind": record.kind, "digest": record.digest,
                              "content": record.content, "sealed_at": record.sealed_at}
    p.emit(hev.RecordOpened, PUBLIC, opened_by=by, **fields)
