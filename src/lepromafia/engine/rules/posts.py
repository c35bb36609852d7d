"""Editing a message (INBOX-GEN-1, EXEC-13): a new version, never a rewrite.

The author edits while he may still post in the inbox (``inboxes.access``); every version
stays in the log and on the page. A vote is no message: keyword inboxes refuse edits, as
do pseudonymous ones (the name is an office's, and its next holder is someone else).
"""

from __future__ import annotations

from datetime import datetime

from .. import commands as cmd
from .. import events as ev
from ..audience import only
from ..errors import ErrorCode, RuleViolation, check
from ..inboxes import POLICY, Access, Kind, access, readers
from ..progress import Progress
from ..state import GameState, Stage
from .messaging import checked_text


def edit_refusal(s: GameState, inbox_id: str, number: int, user: str,
                 now: datetime) -> RuleViolation | None:
    """Why ``user`` may not edit message ``number`` of the inbox now (None: he may)."""
    try:
        _check_edit(s, inbox_id, number, user, now)
    except RuleViolation as refusal:
        return refusal
    return None


def _check_edit(s: GameState, inbox_id: str, number: int, user: str, now: datetime) -> None:
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    level = access(s, inbox_id, user, now=now)
    check(level is not Access.NONE, ErrorCode.UNKNOWN_INBOX)  # as for posting (§9.1 p.3)
    inbox = s.inboxes[inbox_id]
    policy = POLICY[Kind(inbox.kind)]
    check(not policy.keywords_only, ErrorCode.KEYWORD_NOT_EDITABLE, "EXEC-13")
    check(not inbox.archived, ErrorCode.INBOX_CLOSED, "INBOX-GEN-3")
    check(level is Access.WRITE, ErrorCode.INBOX_READ_ONLY, "INBOX-GEN-1")
    author = s.authors[inbox_id].of(number) if inbox_id in s.authors else None
    check(author is not None, ErrorCode.UNKNOWN_MESSAGE)
    check(not policy.pseudonymous, ErrorCode.PSEUDONYM_NOT_EDITABLE, "COMM-APPT-5")
    check(author == user, ErrorCode.NOT_YOUR_MESSAGE)


def edit_message(p: Progress, c: cmd.EditMessage) -> None:
    s = p.state
    _check_edit(s, c.inbox, c.number, c.actor, p.now)
    p.emit(ev.MessageEdited, only(readers(s, c.inbox)), inbox=c.inbox, number=c.number,
           author=c.actor, text=checked_text(s, c.text))
