"""The verifiable log: one salted commitment per event, the signed tree heads.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

ID = sa.String(120)


def upgrade() -> None:
    op.create_table(
        "event_leaves",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("salt", sa.String(32), nullable=False),
        sa.Column("leaf", sa.String(64), nullable=False),
    )
    op.create_table(
        "log_heads",
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("size", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("root", sa.String(64), nullable=False),
        sa.Column("signed_at", sa.String(40), nullable=False),
        sa.Column("reason", sa.String(40), nullable=False),
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(100), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("log_heads")
    op.drop_table("event_leaves")
