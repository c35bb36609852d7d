"""Consents and requests after the game (§9.4, INBOX-PERS-3, INBOX-SECRET-3, AMB-33)."""

from __future__ import annotations

from .. import commands as cmd
from .. import events as ev
from ..archive import ArchiveStatus, members, status
from ..audience import PUBLIC, only
from ..errors import ErrorCode, check
from ..progress import Progress
from ..state import Stage


def give_consent(p: Progress, c: cmd.GiveArchiveConsent) -> None:
    """A resident opens his personal inbox; each member of a secret inbox gives his part."""
    s = p.state
    check(s.stage is Stage.FINISHED, ErrorCode.WRONG_STAGE, "INBOX-PERS-3", stage=s.stage.value)
    inbox = s.inboxes.get(c.inbox)
    check(inbox is not None and c.actor in members(s, inbox), ErrorCode.NOT_A_MEMBER, "INBOX-SECRET-3")
    p.emit(ev.ArchiveConsentGiven, PUBLIC, inbox=c.inbox, user=c.actor, consent=c.consent)


def request(p: Progress, c: cmd.RequestArchive) -> None:
    """AMB-33: an inbox open 'on request' opens to whoever asks; the request is logged."""
    s = p.state
    check(s.stage is Stage.FINISHED, ErrorCode.WRONG_STAGE, "INBOX-MAFIA-4", stage=s.stage.value)
    check(c.inbox in s.inboxes, ErrorCode.UNKNOWN_INBOX)
    check(status(s, c.inbox, c.actor) is ArchiveStatus.ON_REQUEST, ErrorCode.ARCHIVE_CLOSED, "AMB-33")
    p.emit(ev.ArchiveOpened, only(c.actor), inbox=c.inbox, user=c.actor)
