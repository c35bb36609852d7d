"""Indexes for the abuse limits (issue 16, F4-3): the per-address counts of failed logins
and registrations read ``login_attempts`` by ``ip`` and time (the key index starts with
the login, so a per-address count scanned the table); the one-time CSRF nonces are
pruned by expiry on every form post.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_login_attempts_ip", "login_attempts", ["ip", "at_real"])
    op.create_index("ix_csrf_nonces_expires", "csrf_nonces", ["expires_real"])


def downgrade() -> None:
    op.drop_index("ix_csrf_nonces_expires", table_name="csrf_nonces")
    op.drop_index("ix_login_attempts_ip", table_name="login_attempts")
