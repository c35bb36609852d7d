"""The verifiable export of a game (``lepromafia game export``), read by ``verify/verify.py``.

One canonical JSON document (compact, keys in a fixed order, one trailing newline): the
server's key set (every key with its validity period), every signed tree head with an
RFC 9162 consistency proof from the head before it, and one entry per event in seq
order. An event that §9.4 opens (``revealed``) is given with its salt, its stored payload
and its inclusion proof in the last head; a closed one only as its opaque leaf.
docs/verification.md is the reference.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ..engine import events as ev
from ..engine.archive import ArchiveStatus, status
from ..engine.events import Event
from ..engine.evolve import evolve
from ..engine.state import GameState, Stage
from ..store import codec, merkle, schema
from ..store.event_store import EventStore
from ..store.projection import Row
from .transparency import LogKey, load_log
from .transparency_keys import KeyRing

FORMAT = "lepromafia-verifiable-game"
VERSION = 2
"""2: ``keys``, the key set with validity periods (key rotation); 1 had one ``key``."""

ALWAYS_OPENED: tuple[type[Event], ...] = (
    # INBOX-VOTE: the voting inboxes' full log is published with the results.
    ev.VoteCast, ev.JudgeVoteCast,
    # RANDOM-5: the deal opens with the game's end.
    ev.DealListsRecorded, ev.MafiaNumbersNamed, ev.MafiaDealt,
    # §9.4: every faction opens, so do the restorations' new deals.
    ev.RestorationListRecorded, ev.CityRedealt,
    # INBOX-MAFIA-4: the mafia inbox opens to everyone; the decisions made in it.
    ev.KillDeclared, ev.NightDecisionFixed, ev.KillReported, ev.GodfatherVoteCast,
    ev.GodfatherElected, ev.GodfatherElectionFailed, ev.GodfatherReelectionDemanded,
    # The Court inbox opens to anyone who asks (AMB-33): the judges' pardon votes.
    ev.PardonVoteCast,
)
OPEN_TO_ANYONE = (ArchiveStatus.OPEN, ArchiveStatus.ON_REQUEST)


class ExportError(Exception):
    pass


def revealed(state: GameState, event: Event) -> bool:
    """Whether the export opens this event (§9.4); only public events while the game runs."""
    if event.audience.public:
        return True
    if state.stage is not Stage.FINISHED:
        return False
    if isinstance(event, ALWAYS_OPENED) or type(event).__name__.startswith("DealEntropy"):
        return True
    inbox = getattr(event, "inbox", None)
    if isinstance(inbox, str) and inbox in state.inboxes:
        return status(state, inbox, None) in OPEN_TO_ANYONE
    return False


async def export_game(store: EventStore, game_id: str, key: LogKey | KeyRing,
                      now: datetime | None = None) -> dict[str, Any]:
    """The export document. A finished game's export covers the whole log, signing (and
    recording) a head over it if none does; a running game's stops at its last published
    head (a Day Post's), so reading it signs nothing."""
    async with store.transaction() as tx:
        meta = await tx.meta(game_id)
        if meta is None:
            raise ExportError(f"no game {game_id}")
        rows = await tx.event_rows(game_id)
        log = await load_log(tx, game_id, meta.version)
        if log.frontier.size != len(rows):
            raise ExportError(f"game {game_id}: {len(rows)} events but {log.frontier.size} leaves")
        ring = KeyRing.coerce(key)
        foreign = {h["key_id"] for h in await tx.head_rows(game_id)} - {k.key_id for k in ring.keys}
        if foreign:
            raise ExportError(f"game {game_id}: its heads were signed by key {sorted(foreign)[0]}, "
                              f"which is not in this server's key set (LEPROMAFIA_LOG_KEY_FILE)")
        if meta.stage == Stage.FINISHED.value:
            head = log.sign(ring, now or datetime.now(UTC), "export")
            if head is not None:
                await tx.insert_rows(schema.log_heads, [head])
        leaves = await tx.leaf_rows(game_id)
        heads = await tx.head_rows(game_id)
    if not heads:
        raise ExportError(f"game {game_id} has no signed head yet (the first comes with Day 1's post)")
    size = heads[-1]["size"]
    return build(game_id, rows[:size], leaves[:size], heads, ring)


def build(game_id: str, rows: list[Row], leaves: list[Row], heads: list[Row],
          ring: KeyRing) -> dict[str, Any]:
    events = [codec.decode_event(codec.loads(r["payload"])) for r in rows]
    state: GameState | None = None
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ExportError(f"game {game_id} has no events")
    entries = [bytes.fromhex(r["leaf"]) for r in leaves]
    opened = [i for i, event in enumerate(events) if revealed(state, event)]
    proofs = merkle.inclusion_proofs(entries, opened)
    log: list[dict[str, Any]] = []
    for i, (row, leaf) in enumerate(zip(rows, leaves, strict=True)):
        if i in proofs:
            log.append({"seq": row["seq"], "salt": leaf["salt"], "event": row["payload"],
                        "proof": [h.hex() for h in proofs[i]]})
        else:
            log.append({"seq": row["seq"], "leaf": leaf["leaf"]})
    published = []
    previous = 0
    for head in heads:
        proof = merkle.consistency_proof(entries[:head["size"]], previous) if previous else []
        published.append({"size": head["size"], "root": head["root"], "signed_at": head["signed_at"],
                          "reason": head["reason"], "key_id": head["key_id"],
                          "signature": head["signature"], "consistency": [h.hex() for h in proof]})
        previous = head["size"]
    return {"format": FORMAT, "version": VERSION, "game_id": game_id,
            "keys": [k.as_json() for k in ring.keys],
            "heads": published, "log": log}


def dumps(document: dict[str, Any]) -> str:
    """The canonical text: the verifier refuses any other spelling of the same document."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"
