"""Drop the ``tallies`` read model: nothing read it; every tally a page, the API or a
bot shows is the engine's live answer (``engine.votes.live_tallies``), so writing a row
on every vote was a statement per vote for nothing (issue 9, docs/performance.md).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table("tallies")


def downgrade() -> None:
    op.create_table(
        "tallies",
        sa.Column("game_id", sa.String(120), primary_key=True),
        sa.Column("city", sa.String(120), primary_key=True),
        sa.Column("day", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("candidate", sa.String(120), primary_key=True),
        sa.Column("votes", sa.Integer, nullable=False),
        sa.Column("voters", sa.Text, nullable=False),
        sa.Column("closed", sa.Boolean, nullable=False),
    )
