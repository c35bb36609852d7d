"""Accounts: users, sessions, login attempts, contacts and their access log, sanctions,
CSRF nonces, inbox read markers.

Revision ID: 0002
Revises: 0001
Create Date: 2026-01-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ID = sa.String(120)
LOGIN = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("user_id", LOGIN, primary_key=True),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("created_real", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", LOGIN, nullable=False),
        sa.Column("created_real", sa.Float, nullable=False),
        sa.Column("expires_real", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_user", "sessions", ["user_id"])
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("login", sa.String(64), nullable=False),
        sa.Column("ip", sa.String(64), nullable=False),
        sa.Column("at_real", sa.Float, nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
    )
    op.create_index("ix_login_attempts_key", "login_attempts", ["login", "ip", "at_real"])
    op.create_table(
        "contacts",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("user_id", LOGIN, primary_key=True),
        sa.Column("ciphertext", sa.Text, nullable=False),
        sa.Column("created_real", sa.Float, nullable=False),
    )
    op.create_table(
        "contact_access_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", ID, nullable=False),
        sa.Column("subject", LOGIN, nullable=False),
        sa.Column("viewer", LOGIN, nullable=False),
        sa.Column("granted", sa.Boolean, nullable=False),
        sa.Column("at_real", sa.Float, nullable=False),
    )
    op.create_index("ix_contact_access_game", "contact_access_log", ["game_id", "subject"])
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", LOGIN, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("rule", sa.String(32), nullable=False),
        sa.Column("starts_real", sa.Float, nullable=False),
        sa.Column("ends_real", sa.Float),
        sa.Column("issued_by", LOGIN, nullable=False),
        sa.Column("game_id", ID, nullable=False),
    )
    op.create_index("ix_sanctions_user", "sanctions", ["user_id"])
    op.create_table(
        "csrf_nonces",
        sa.Column("nonce", sa.String(64), primary_key=True),
        sa.Column("expires_real", sa.Float, nullable=False),
    )
    op.create_table(
        "inbox_reads",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("inbox", sa.String(200), primary_key=True),
        sa.Column("user_id", LOGIN, primary_key=True),
        sa.Column("last_seq", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    for table in ("inbox_reads", "csrf_nonces", "sanctions", "contact_access_log", "contacts",
                  "login_attempts", "sessions", "users"):
        op.drop_table(table)
