"""The event store and its read models.

Revision ID: 0001
Revises:
Create Date: 2026-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.String(120)


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("time_scale", sa.Float, nullable=False),
        sa.Column("clock_epoch", sa.Float, nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("command_id", ID, nullable=False),
    )
    op.create_table(
        "snapshots",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("payload", sa.Text, nullable=False),
    )
    op.create_table(
        "commands",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("command_id", ID, primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("first_seq", sa.Integer, nullable=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("accepted_real", sa.Float, nullable=False),
    )
    op.create_table(
        "messages",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("inbox", sa.String(200), nullable=False),
        sa.Column("author", sa.String(120), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
    )
    op.create_index("ix_messages_inbox", "messages", ["game_id", "inbox", "seq"])
    op.create_table(
        "inboxes",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("inbox", sa.String(200), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("city", sa.String(120)),
        sa.Column("subject", sa.String(120)),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("archived", sa.Boolean, nullable=False),
    )
    op.create_table(
        "inbox_members",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("inbox", sa.String(200), primary_key=True),
        sa.Column("user_id", sa.String(120), primary_key=True),
        sa.Column("access", sa.String(8), nullable=False),
    )
    op.create_index("ix_inbox_members_user", "inbox_members", ["game_id", "user_id"])
    op.create_table(
        "tallies",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("city", sa.String(120), primary_key=True),
        sa.Column("day", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("candidate", sa.String(120), primary_key=True),
        sa.Column("votes", sa.Integer, nullable=False),
        sa.Column("voters", sa.Text, nullable=False),
        sa.Column("closed", sa.Boolean, nullable=False),
    )
    op.create_table(
        "deadlines",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("due_at", sa.String(40), nullable=False),
        sa.Column("due_real", sa.Float, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("fired_at", sa.String(40)),
        sa.Column("fired_seq", sa.Integer),
        sa.Column("lease_until", sa.Float),
    )
    op.create_index("ix_deadlines_due", "deadlines", ["status", "due_real"])
    op.create_table(
        "audit_log",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("actor", sa.String(120), nullable=False),
        sa.Column("command_type", sa.String(64), nullable=False),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    for table in ("audit_log", "deadlines", "tallies", "inbox_members", "inboxes", "messages",
                  "commands", "snapshots", "events", "games"):
        op.drop_table(table)
