"""The community seed systems: public discussion under the posts (POST-1, POST-2) and
notary inboxes anyone may organize (INBOX-NOTARY-1..3, AMB-39, §9.4).

Who may comment is ``comment_refusal``: the whole community ("весь лепрозорий"), not only
players. The community registry ban is checked by the caller (the web, like sign-up);
a sanction recorded in this game is checked here.
"""

from __future__ import annotations

from datetime import datetime

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..calendar import MOSCOW
from ..errors import ErrorCode, RuleViolation, check
from ..inboxes import Kind
from ..progress import Progress
from ..seeds import MAX_COMMENT, MIN_SALT, RECRUITMENT_POST, day_post, notary_digest
from ..state import GameState, PhaseKind, Stage
from .common import open_inbox

MAX_NOTARIES_PER_USER = 20
MAX_NOTARY_TITLE = 200


# --- public discussion (POST-1, POST-2) -------------------------------------------------


def posts(s: GameState) -> list[str]:
    """The posts that exist now: the Recruitment Post, then one Day Post per started day
    (POST-3). During Night N the state's day is N, so Day N's post stays open."""
    started = s.day if s.stage in (Stage.RUNNING, Stage.FINISHED) and s.phase is not PhaseKind.PREGAME else 0
    return [RECRUITMENT_POST, *(day_post(n) for n in range(1, started + 1))]


def sanction_in_force(s: GameState, user: str, now: datetime) -> str | None:
    """PLAYER-7: the rule of a sanction recorded in this game that binds ``user`` today."""
    today = now.astimezone(MOSCOW).date()
    for sanction in s.records.sanctions:
        if sanction.user == user and (sanction.until is None or sanction.until > today):
            return sanction.rule
    return None


def comment_refusal(s: GameState, user: str, now: datetime) -> RuleViolation | None:
    """Why ``user`` may not comment now (None: he may). Anyone in the community may,
    except while the game runs the dead (their city inbox bans them, INBOX-CITY-1,
    ROLE-DEAD-3) and the Consigliere (his name is secret, HOST-CONS-5); and nobody
    under a sanction (PLAYER-7)."""
    rule = sanction_in_force(s, user, now)
    if rule is not None:
        return RuleViolation(ErrorCode.SANCTIONED, "PLAYER-7", sanction=rule)
    if s.stage is Stage.FINISHED:
        return None
    if user == s.consigliere:
        return RuleViolation(ErrorCode.CONSIGLIERE_CANNOT_COMMENT, "HOST-CONS-5")
    resident = s.residents.get(user)
    if resident is not None and not resident.alive:
        return RuleViolation(ErrorCode.DEAD_CANNOT_COMMENT, "ROLE-DEAD-3")
    return None


def may_comment(s: GameState, user: str | None, now: datetime) -> bool:
    return user is not None and comment_refusal(s, user, now) is None


def post_comment(p: Progress, c: cmd.PostComment) -> None:
    s = p.state
    check(c.post in posts(s), ErrorCode.UNKNOWN_POST, "POST-2")
    refusal = comment_refusal(s, c.actor, p.now)
    if refusal is not None:
        raise refusal
    text = c.text.strip()
    check(bool(text), ErrorCode.MESSAGE_EMPTY)
    check(len(text) <= MAX_COMMENT, ErrorCode.MESSAGE_TOO_LONG, limit=MAX_COMMENT)
    p.emit(ev.CommentPosted, PUBLIC, comment=s.discussion.comments + 1, post=c.post,
           author=c.actor, text=text)


# --- notary inboxes for anyone (INBOX-NOTARY-1..3) ---------------------------------------


def _participants(s: GameState) -> set[str]:
    return set(s.residents) | set(s.signups) | s.hosts()


def _grantable(s: GameState) -> set[str]:
    """Who may be let in: any participant. While the game runs the Consigliere is refused
    exactly like an outsider, so a grant cannot find him (HOST-CONS-5, SEC-5)."""
    found = _participants(s)
    if s.stage is not Stage.FINISHED and s.consigliere:
        found.discard(s.consigliere)
    return found


def create_notary(p: Progress, c: cmd.CreateNotaryInbox) -> None:
    """INBOX-NOTARY-1/2: anyone, player or host, seals a secret; the digest is public."""
    s = p.state
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    check(c.actor in _participants(s), ErrorCode.NOT_A_PARTICIPANT, "INBOX-NOTARY-1", user=c.actor)
    title = c.title.strip()
    check(0 < len(title) <= MAX_NOTARY_TITLE, ErrorCode.MESSAGE_EMPTY if not title
          else ErrorCode.MESSAGE_TOO_LONG, limit=MAX_NOTARY_TITLE)
    content = c.content.strip()
    check(bool(content), ErrorCode.MESSAGE_EMPTY)
    check(len(content) <= s.settings.message_max_length, ErrorCode.MESSAGE_TOO_LONG,
          limit=s.settings.message_max_length)
    check(len(c.salt) >= MIN_SALT, ErrorCode.NOTARY_SALT_WEAK, "INBOX-NOTARY-2", min=MIN_SALT)
    own = sum(1 for n in s.notaries.values() if n.organizer == c.actor)
    check(own < MAX_NOTARIES_PER_USER, ErrorCode.NOTARY_LIMIT, limit=MAX_NOTARIES_PER_USER)
    # The id and the inbox name nobody: a grantee must not learn who certified (HOST-CONS-5).
    inbox = open_inbox(p, Kind.CERTIFICATE, str(len(s.notaries) + 1), members=frozenset({c.actor}),
                       title=title)
    p.emit(ev.NotaryContentRecorded, only(c.actor), inbox=inbox, content=content, salt=c.salt)
    p.emit(ev.MessagePosted, only(c.actor), inbox=inbox, author="notary", text=content)
    p.emit(ev.NotarySealed, PUBLIC, inbox=inbox, title=title, digest=notary_digest(content, c.salt))


def _own_notary(s: GameState, actor: str, inbox: str) -> None:
    notary = s.notaries.get(inbox)
    # Someone else's notary inbox does not exist for him (§9.1 p.3): one code either way.
    check(notary is not None and actor in (notary.organizer, *notary.granted), ErrorCode.UNKNOWN_INBOX)
    assert notary is not None
    check(notary.organizer == actor, ErrorCode.NOT_ORGANIZER, "INBOX-NOTARY-3")


def grant_notary(p: Progress, c: cmd.GrantNotaryAccess) -> None:
    """INBOX-NOTARY-3: the organizer lets whoever must verify read it."""
    s = p.state
    _own_notary(s, c.actor, c.inbox)
    notary = s.notaries[c.inbox]
    check(c.user in _grantable(s), ErrorCode.NOT_A_PARTICIPANT, "INBOX-NOTARY-3", user=c.user)
    check(c.user != c.actor and c.user not in notary.granted, ErrorCode.ALREADY_GRANTED,
          "INBOX-NOTARY-3", user=c.user)
    p.emit(ev.NotaryAccessGranted, only(c.actor, c.user), inbox=c.inbox, user=c.user,
           content=notary.content, salt=notary.salt, digest=notary.digest)


def publish_notary(p: Progress, c: cmd.PublishNotaryInbox) -> None:
    """§9.4, AMB-39: after the game, at the organizer's discretion, to everyone."""
    s = p.state
    _own_notary(s, c.actor, c.inbox)
    check(s.stage is Stage.FINISHED, ErrorCode.NOTARY_NOT_YET_PUBLIC, "§9.4")
    notary = s.notaries[c.inbox]
    check(not notary.published, ErrorCode.ALREADY_DECIDED)
    p.emit(ev.NotaryPublished, PUBLIC, inbox=c.inbox, title=notary.title, content=notary.content,
           salt=notary.salt, digest=notary.digest, sealed_at=notary.sealed_at)
