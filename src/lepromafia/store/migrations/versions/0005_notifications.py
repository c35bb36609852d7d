"""Notifications (issue 13): the transactional outbox, the in-app list, one delivery row
per external channel, preferences, each person's notification profile, push subscriptions.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

ID = sa.String(120)
LOGIN = sa.String(32)
KEY = sa.String(400)


def upgrade() -> None:
    op.create_table(
        "notify_outbox",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", KEY, nullable=False, unique=True),
        sa.Column("game_id", ID, nullable=False),
        sa.Column("user_id", LOGIN),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("seq", sa.Integer),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("due_real", sa.Float, nullable=False),
        sa.Column("expires_real", sa.Float),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("claimed_until", sa.Float),
        sa.Column("claimed_by", sa.String(40)),
    )
    op.create_index("ix_notify_outbox_due", "notify_outbox", ["status", "due_real"])
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", KEY, nullable=False, unique=True),
        sa.Column("game_id", ID, nullable=False),
        sa.Column("user_id", LOGIN, nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("secret", sa.Boolean, nullable=False),
        sa.Column("created_real", sa.Float, nullable=False),
        sa.Column("read_real", sa.Float),
    )
    op.create_index("ix_notifications_user", "notifications", ["user_id", "id"])
    op.create_table(
        "notify_deliveries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", KEY, nullable=False, unique=True),
        sa.Column("notification_id", sa.Integer),
        sa.Column("game_id", ID, nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("user_id", LOGIN, nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("address", sa.Text),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_real", sa.Float, nullable=False),
        sa.Column("expires_real", sa.Float),
        sa.Column("claimed_until", sa.Float),
        sa.Column("claimed_by", sa.String(40)),
        sa.Column("sent_real", sa.Float),
        sa.Column("last_error", sa.Text),
    )
    op.create_index("ix_notify_deliveries_due", "notify_deliveries", ["status", "next_real"])
    op.create_table(
        "notify_prefs",
        sa.Column("user_id", LOGIN, primary_key=True),
        sa.Column("game_id", ID, primary_key=True),
        sa.Column("kind", sa.String(40), primary_key=True),
        sa.Column("channel", sa.String(16), primary_key=True),
        sa.Column("enabled", sa.Boolean, nullable=False),
    )
    op.create_table(
        "notify_profiles",
        sa.Column("user_id", LOGIN, primary_key=True),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("time_zone", sa.String(64), nullable=False),
        sa.Column("quiet_start", sa.String(5)),
        sa.Column("quiet_end", sa.String(5)),
        sa.Column("digest", sa.String(8), nullable=False),
        sa.Column("email", sa.Text),
        sa.Column("email_verified", sa.Boolean, nullable=False),
        sa.Column("email_token", sa.String(64)),
        sa.Column("unsubscribe_token", sa.String(64), nullable=False, unique=True),
        sa.Column("telegram_chat", sa.String(64)),
        sa.Column("telegram_token", sa.String(64)),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("endpoint", sa.String(1000), primary_key=True),
        sa.Column("user_id", LOGIN, nullable=False),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(100), nullable=False),
        sa.Column("created_real", sa.Float, nullable=False),
    )
    op.create_index("ix_push_user", "push_subscriptions", ["user_id"])


def downgrade() -> None:
    for table in ("push_subscriptions", "notify_profiles", "notify_prefs", "notify_deliveries",
                  "notifications", "notify_outbox"):
        op.drop_table(table)
