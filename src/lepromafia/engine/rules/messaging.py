"""Posting and inbox management (INBOX-GEN, INBOX-SECRET, EXEC-13, HOST-CONS-6)."""

from __future__ import annotations

import re

from .. import commands as cmd
from .. import events as ev
from ..audience import only
from ..errors import ErrorCode, check
from ..inboxes import POLICY, Access, Kind, access, author_label, can_read, readers
from ..keywords import parse_keyword
from ..progress import Progress
from ..state import GameState, Stage
from .common import archive_inbox, open_inbox, renew_inbox

MAX_SECRET_MEMBERS = 200
_HEX_KEY = re.compile(r"[0-9a-f]{16,32}")


def post_message(p: Progress, c: cmd.PostMessage) -> None:
    s = p.state
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    level = access(s, c.inbox, c.actor, now=p.now)  # Arbiter's bans expire (HOST-ARB-3)
    # An inbox one cannot read does not exist for him: same code either way (§9.1 p.3).
    check(level is not Access.NONE, ErrorCode.UNKNOWN_INBOX)
    inbox = s.inboxes[c.inbox]
    check(not inbox.archived, ErrorCode.INBOX_CLOSED, "INBOX-GEN-3")
    check(level is Access.WRITE, ErrorCode.INBOX_READ_ONLY, "INBOX-GEN-1")
    text = c.text.strip()
    check(bool(text), ErrorCode.MESSAGE_EMPTY)
    limit = s.settings.message_max_length
    check(len(text) <= limit, ErrorCode.MESSAGE_TOO_LONG, limit=limit)
    policy = POLICY[Kind(inbox.kind)]
    if policy.ballot is not None:
        keyword = parse_keyword(text)
        check(keyword in policy.keywords, ErrorCode.NOT_A_KEYWORD, "EXEC-13",
              keywords=" / ".join(policy.keywords))
        assert keyword is not None
        policy.ballot(p, c.inbox, c.actor, keyword)
        return
    p.emit(ev.MessagePosted, only(readers(s, c.inbox)), inbox=c.inbox,
           author=author_label(s, inbox, c.actor), text=text)


def _invitable(s: GameState) -> set[str]:
    """Residents and the public hosts. The Consigliere is never invitable (HOST-CONS-6),
    and he is rejected exactly like any outsider, so probing cannot find him (SEC-5)."""
    public_hosts = {s.procurator, *s.tribunes(), *([s.arbiter] if s.arbiter else [])}
    return (set(s.residents) | public_hosts) - ({s.consigliere} if s.consigliere else set())


def create_secret_inbox(p: Progress, c: cmd.CreateSecretInbox) -> None:
    """INBOX-SECRET-1: anyone but the Consigliere, with anyone but the Consigliere."""
    s = p.state
    check(s.stage not in (Stage.RECRUITING, Stage.FINISHED), ErrorCode.WRONG_STAGE,
          stage=s.stage.value)
    invitable = _invitable(s)
    check(c.actor in invitable, ErrorCode.NOT_A_PARTICIPANT, "INBOX-SECRET-1", user=c.actor)
    members = set(c.members) | {c.actor}
    for user in members:
        check(user in invitable, ErrorCode.NOT_A_PARTICIPANT, "INBOX-SECRET-1", user=user)
    check(1 < len(members) <= MAX_SECRET_MEMBERS, ErrorCode.MEMBERS_INVALID, "INBOX-SECRET-1")
    check(0 < len(c.title.strip()) <= 200, ErrorCode.MESSAGE_EMPTY)
    check(_HEX_KEY.fullmatch(c.key) is not None
          and not any(i.startswith(f"{Kind.SECRET}:{c.key}:") for i in s.inboxes),
          ErrorCode.INBOX_KEY_INVALID, "INBOX-SECRET-1")
    open_inbox(p, Kind.SECRET, c.key, subject=c.actor, members=frozenset(members),
               title=c.title.strip())


def close_secret_inbox(p: Progress, c: cmd.CloseSecretInbox) -> None:
    """INBOX-SECRET-2: its organizer may close it; members keep read access."""
    s = p.state
    inbox = s.inboxes.get(c.inbox)
    check(inbox is not None and can_read(s, c.inbox, c.actor),
          ErrorCode.UNKNOWN_INBOX)
    assert inbox is not None
    check(inbox.kind == Kind.SECRET and inbox.subject == c.actor, ErrorCode.NOT_ORGANIZER,
          "INBOX-SECRET-2")
    check(not inbox.archived, ErrorCode.INBOX_CLOSED)
    archive_inbox(p, c.inbox)


def renew(p: Progress, c: cmd.RenewInbox) -> None:
    """INBOX-GEN-2: the organizer replaces a heavy inbox; the old one is read-only."""
    s = p.state
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    inbox = s.inboxes.get(c.inbox)
    check(inbox is not None and can_read(s, c.inbox, c.actor),
          ErrorCode.UNKNOWN_INBOX)
    assert inbox is not None
    policy = POLICY[Kind(inbox.kind)]
    check(c.actor in policy.organizer(s, inbox), ErrorCode.NOT_ORGANIZER, "INBOX-GEN-4")
    check(policy.renewable and not inbox.archived, ErrorCode.INBOX_NOT_RENEWABLE, "INBOX-GEN-2")
    renew_inbox(p, c.inbox)
