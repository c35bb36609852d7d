"""Tables of the event store and its read models (SQLAlchemy Core).

``events`` is the source of truth: append-only, ``(game_id, seq)`` unique. Every
other table except ``snapshots`` and ``commands`` is a read model rebuilt exactly
by replaying the events (``lepromafia game replay`` checks this).
Times shown to people are ISO strings; ``*_real`` columns are Unix seconds of the
real clock, used for ordering and for the scheduler.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

ID = String(120)

games = Table(
    "games",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("title", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("stage", String(16), nullable=False),
    Column("version", Integer, nullable=False),
    Column("time_scale", Float, nullable=False, default=1.0),
    Column("clock_epoch", Float, nullable=False),
    # Real Unix time at which game time and real time coincide (see service.clock).
)

events = Table(
    "events",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("type", String(64), nullable=False),
    Column("at", String(40), nullable=False),
    Column("payload", Text, nullable=False),
    Column("command_id", ID, nullable=False),
)

snapshots = Table(
    "snapshots",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("payload", Text, nullable=False),
    Column("frontier", Text, nullable=True),
    # The verifiable log's frontier at ``seq`` (``merkle.Frontier.dumps``), if it was kept.
)

commands = Table(
    "commands",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("command_id", ID, primary_key=True),
    Column("fingerprint", String(64), nullable=False),
    Column("command", Text, nullable=False),
    Column("first_seq", Integer, nullable=False),
    Column("last_seq", Integer, nullable=False),
    # Events ``first_seq..last_seq`` (empty when last < first: a stale deadline).
    Column("accepted_real", Float, nullable=False),
)

messages = Table(
    "messages",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("inbox", String(200), nullable=False),
    Column("author", String(120), nullable=False),
    Column("text", Text, nullable=False),
    Column("at", String(40), nullable=False),
    Index("ix_messages_inbox", "game_id", "inbox", "seq"),
)

inboxes = Table(
    "inboxes",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("inbox", String(200), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("city", String(120)),
    Column("subject", String(120)),
    Column("title", Text, nullable=False),
    Column("archived", Boolean, nullable=False),
)

inbox_members = Table(
    "inbox_members",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("inbox", String(200), primary_key=True),
    Column("user_id", String(120), primary_key=True),
    Column("access", String(8), nullable=False),
    # 'write' for members, 'read' for banned or former members (INBOX-GEN-1).
    Index("ix_inbox_members_user", "game_id", "user_id"),
)

deadlines = Table(
    "deadlines",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("key", String(200), primary_key=True),
    Column("due_at", String(40), nullable=False),
    Column("due_real", Float, nullable=False),
    Column("status", String(12), nullable=False),
    # 'pending' or 'fired' (a cancelled deadline is fired early by the engine).
    Column("fired_at", String(40)),
    Column("fired_seq", Integer),
    Column("lease_until", Float),
    # Scheduler bookkeeping, not part of the read model: a worker's claim.
    Index("ix_deadlines_due", "status", "due_real"),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("actor", String(120), nullable=False),
    Column("command_type", String(64), nullable=False),
    Column("command", Text, nullable=False),
    Column("at", String(40), nullable=False),
)

inbox_reads = Table(
    # A reader's marker per inbox: personal, not part of the log, not rebuilt by replay.
    "inbox_reads",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("inbox", String(200), primary_key=True),
    Column("user_id", String(32), primary_key=True),
    Column("last_seq", Integer, nullable=False),
)

follows = Table(
    "notify_follows",
    metadata,
    Column("user_id", String(32), primary_key=True),
    Column("game_id", ID, primary_key=True),
    Column("inbox_id", ID, primary_key=True),
    Column("created_real", Float, nullable=False),
    Index("ix_notify_follows_inbox", "game_id", "inbox_id"),
)
"""Who follows which inbox ("a new message in any inbox you follow"; store.notify). Here,
beside ``games``, because a writer's lock statement asks whether a game has any: the outbox
row of a message in an inbox nobody follows is not written (issue 17)."""

NOT_PROJECTED = {"lease_until"}
"""Columns that are scheduler state, not read model."""

# --- the verifiable log (docs/verification.md) ---------------------------------------

event_leaves = Table(
    "event_leaves",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("salt", String(32), nullable=False),
    # Hex of the 16 random bytes the service drew for this event; secret until revealed.
    Column("leaf", String(64), nullable=False),
    # Hex of SHA-256(domain ‖ salt ‖ payload): the Merkle tree's entry for this event.
)

log_heads = Table(
    "log_heads",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("size", Integer, primary_key=True, autoincrement=False),
    Column("root", String(64), nullable=False),
    Column("signed_at", String(40), nullable=False),
    Column("reason", String(40), nullable=False),
    # 'day_post:<day>', 'game_end' or 'export': what published the head.
    Column("key_id", String(64), nullable=False),
    Column("signature", String(100), nullable=False),
    # Base64 Ed25519 signature over the head (service.transparency.head_message).
)


def upsert_set(table: Table, columns: Iterable[str], excluded: Any) -> dict[str, Any]:
    """What an upsert of a read-model ``table`` updates on a conflict: the given columns, and
    a deadline's lease (a re-scheduled deadline is claimable again)."""
    return ({c: getattr(excluded, c) for c in columns}
            | ({"lease_until": None} if table.name == "deadlines" else {}))
