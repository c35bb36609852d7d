"""Sub-state of the community seed systems: public discussion under the posts (POST-1,
POST-2) and notary inboxes anyone may organize (INBOX-NOTARY-1..3, AMB-39).

``GameState.discussion`` and ``GameState.notaries`` hold them; only ``evolve_seeds``
builds them. Pure read helpers answer the rule questions the pages ask.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

RECRUITMENT_POST = "recruitment"
"""POST-1: the Recruitment Post, open for comments from the game's creation."""

MAX_COMMENT = 4000
MIN_SALT = 16


def day_post(day: int) -> str:
    """POST-2: the id of Day ``day``'s post."""
    return f"day:{day}"


@dataclass(frozen=True, slots=True)
class Discussion:
    """POST-1, POST-2: how many comments were made, and which the Procurator hid."""

    comments: int = 0
    hidden: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Notary:
    """INBOX-NOTARY-1..3: one certified secret, sealed with a salted SHA-256 digest."""

    inbox: str
    organizer: str
    title: str
    content: str
    salt: str
    digest: str
    sealed_at: datetime
    granted: frozenset[str] = frozenset()
    published: bool = False
    """§9.4 ("other notary inboxes: at the organizer's discretion"): opened after the game."""


def notary_digest(content: str, salt: str) -> str:
    """The published commitment: SHA-256 of the salt, a NUL, and the content (UTF-8)."""
    return hashlib.sha256(f"{salt}\x00{content}".encode()).hexdigest()

