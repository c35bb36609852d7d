"""Notifications, session 4 (issue 13): who follows which inbox.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

(Numbered 0007: 0006 belongs to another branch of this session; whoever merges both
sets ``down_revision`` to the later of the two.)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notify_follows",
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("game_id", sa.String(120), primary_key=True),
        sa.Column("inbox_id", sa.String(120), primary_key=True),
        sa.Column("created_real", sa.Float, nullable=False),
    )
    op.create_index("ix_notify_follows_inbox", "notify_follows", ["game_id", "inbox_id"])


def downgrade() -> None:
    op.drop_table("notify_follows")
