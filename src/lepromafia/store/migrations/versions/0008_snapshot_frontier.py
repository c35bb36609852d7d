"""Snapshots keep the verifiable log's frontier at their seq (issue 17, session 13).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05

A lane that takes a game on its first command after a start rebuilt the game's tree from
every leaf it ever logged (O(events): 140–190 ms for a game of 30,000 events, inside the
batch; ``bench/log_load.py``). With the frontier stored beside each state snapshot
it reads only the leaves after the latest one. Older snapshots have none (NULL): those
games rebuild from every leaf, once, as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("snapshots", sa.Column("frontier", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("snapshots") as batch:
        batch.drop_column("frontier")
