"""Recorded [HOST] decisions: sanctions and sealed notary records (OMERTA-2, COMM-APPT-6), and
the helpers the decisions declared in ``engine/decisions`` share.

Each decision is a command by the host who decides, validated where the rules allow it,
and recorded as a ``HostDecision`` event: one line of the audit log (§9.1 p.4).
"""

from __future__ import annotations

import hashlib
from typing import Any

from .. import commands as cmd
from .. import commands_host as hc
from .. import events as ev
from .. import events_host as hev
from ..audience import PUBLIC, Audience, only
from ..calendar import MOSCOW
from ..errors import N_, ErrorCode, check
from ..progress import Progress
from ..state import GameState, Stage
from . import commissar
from .common import (
    require_procurator,
)

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


# --- HOST-2, HOST-PROC-5, HOST-TRIB-2, AMBUSH-6, GODFATHER-2, MAFIA-KILL-5: declared in
# engine/decisions (combination, contests, delegation, mafia_rules) with @host_decision.


# --- OMERTA-2, IMPEACH-5, PLAYER-7: sanctions -------------------------------------------


def sanction_visible(state: GameState, sanctioned: str, viewer: str | None) -> bool:
    """OMERTA-2 (D8): a sanction tied to a running game names a mafioso, so until the game
    ends only the Procurator and the sanctioned player may know it; afterwards everyone."""
    if state.stage is Stage.FINISHED:
        return True
    return viewer is not None and viewer in (state.procurator, sanctioned)


def record_sanction(p: Progress, c: hc.RecordSanction) -> None:
    """The engine records the decision; the community registry enforces it at sign-up.

    No faction check: an omertà sanction on an honest resident would otherwise be rejected,
    and the rejection would tell the Procurator a faction (HOST-PROC-7).
    """
    s = p.state
    require_procurator(s, c.actor)
    check(c.user in s.residents or c.user in s.signups, ErrorCode.NOT_A_PARTICIPANT, "PLAYER-7",
          user=c.user)
    check(c.rule in SANCTION_RULES, ErrorCode.SANCTION_INVALID, "PLAYER-7",
          detail=N_("choose one of the offered grounds"))
    today = p.now.astimezone(MOSCOW).date()
    check(c.until is None or c.until > today, ErrorCode.SANCTION_INVALID, "PLAYER-7",
          detail=N_("a period must end in the future (or be for life)"))
    # The sanction's reason may concern the mafia: the sanctioned player and the Procurator only.
    p.emit(hev.SanctionRecorded, only(s.procurator, c.user), host=c.actor, rule=c.rule,
           reason=reason_of(s, c.reason), sanction=len(s.records.sanctions) + 1, user=c.user,
           until=c.until)


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
            _open(p, record.number, "platform")


def reveal_sealed_record(p: Progress, c: hc.RevealSealedRecord) -> None:
    """IMPEACH-3: reasons may be disclosed no earlier than the end of the game."""
    s = p.state
    require_procurator(s, c.actor)
    record = next((r for r in s.records.sealed if r.number == c.record), None)
    check(record is not None, ErrorCode.UNKNOWN_RECORD)
    assert record is not None
    check(s.stage is Stage.FINISHED, ErrorCode.RECORD_STILL_SEALED, "IMPEACH-3")
    check(not record.opened, ErrorCode.ALREADY_DECIDED)
    _open(p, record.number, c.actor)


def _open(p: Progress, number: int, by: str) -> None:
    record = p.state.records.sealed[number - 1]
    fields: dict[str, Any] = {"record": number, "kind": record.kind, "digest": record.digest,
                              "content": record.content, "sealed_at": record.sealed_at}
    p.emit(hev.RecordOpened, PUBLIC, opened_by=by, **fields)
