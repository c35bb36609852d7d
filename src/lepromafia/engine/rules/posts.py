"""Editing a message (INBOX-GEN-1, EXEC-13): a new version, never a rewrite.

The author edits while he may still post in the inbox (``inboxes.access``); every version
stays in the log and on the page. A vote is no message: keyword inboxes refuse edits, as
do pseudonymous ones (the name is an office's, and its next holder is someone else).
"""

from __future__ import annotations

from .. import commands as cmd
from .. import events as ev
from ..audience import only
from ..errors import ErrorCode, check
from ..inboxes import POLICY, Access, Kind, access, readers
from ..progress import Progress
from ..state import Stage
from .messaging import checked_text


def edit_message(p: Progress, c: cmd.EditMessage) -> None:
    s = p.state
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    level = access(s, c.inbox, c.actor, now=p.now)
    check(level is not Access.NONE, ErrorCode.UNKNOWN_INBOX)  # as for posting (§9.1 p.3)
    inbox = s.inboxes[c.inbox]
    policy = POLICY[Kind(inbox.kind)]
    check(not policy.keywords_only, ErrorCode.KEYWORD_NOT_EDITABLE, "EXEC-13")
    check(not inbox.archived, ErrorCode.INBOX_CLOSED, "INBOX-GEN-3")
    check(level is Access.WRITE, ErrorCode.INBOX_READ_ONLY, "INBOX-GEN-1")
    authors = s.authors.get(c.inbox, ())
    check(1 <= c.number <= len(authors), ErrorCode.UNKNOWN_MESSAGE)
    check(not policy.pseudonymous, ErrorCode.PSEUDONYM_NOT_EDITABLE, "COMM-APPT-5")
    check(authors[c.number - 1] == c.actor, ErrorCode.NOT_YOUR_MESSAGE)
    p.emit(ev.MessageEdited, only(readers(s, c.inbox)), inbox=c.inbox, number=c.number,
           author=c.actor, text=checked_text(s, c.text))
