"""Notary inboxes for anyone (INBOX-NOTARY-1..3, AMB-39, §9.4; review D20): a participant
seals a secret under a published salted SHA-256 digest, lets whoever must verify read it,
and after the game may open it to everyone."""

import hashlib

from lepromafia.engine import events as ev
from lepromafia.engine.archive import ArchiveStatus, status
from lepromafia.engine.commands import (
    CreateNotaryInbox,
    GrantNotaryAccess,
    Nominate,
    PostMessage,
    PublishNotaryInbox,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import can_read, member_list
from lepromafia.engine.visibility import visible_to

from .cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game, when

TOWN = "Лепроград"
SALT = "0123456789abcdef0123"
SECRET = "Ночью 2 я проверил carol: честная"


def sealed(actor: str = "bob") -> tuple[Game, str]:
    g = Game({TOWN: "alice bob carol dave erin"}, mafia={TOWN: "alice"}).start()
    g.do(CreateNotaryInbox(actor=actor, title="Проверка", content=SECRET, salt=SALT), 1, "11:00")
    return g, g.events_of(ev.NotarySealed)[0].inbox


def test_notary1_2_any_player_seals_a_secret_and_only_the_digest_is_public():
    """INBOX-NOTARY-1/2: bob certifies a secret; everyone sees the digest — SHA-256 of the
    salt, a NUL and the content — but neither the content nor who certified it."""
    g, box = sealed()
    seal = g.events_of(ev.NotarySealed)[0]
    assert visible_to(seal, None)
    assert seal.digest == hashlib.sha256(f"{SALT}\x00{SECRET}".encode()).hexdigest()
    assert "bob" not in (seal.inbox, seal.title, seal.digest)
    content = g.events_of(ev.NotaryContentRecorded)[0]
    assert content.audience.users == frozenset({"bob"})
    assert can_read(g.state, box, "bob") and not can_read(g.state, box, "carol")
    assert not can_read(g.state, box, PROCURATOR)
    # Immutable once sealed: not even its organizer can add to it.
    g.reject(PostMessage(actor="bob", inbox=box, text="дополнение"), when(1, "11:05"),
             ErrorCode.INBOX_READ_ONLY)


def test_notary1_hosts_and_the_consigliere_may_organize_but_outsiders_may_not():
    """INBOX-NOTARY-1: "кто угодно" in the game — a Tribune, the Consigliere; a stranger is refused."""
    g, _ = sealed(TRIBUNES[0])
    g.do(CreateNotaryInbox(actor=CONSIGLIERE, title="Порядок", content="план", salt=SALT), 1, "11:01")
    g.reject(CreateNotaryInbox(actor="stranger", title="x", content="y", salt=SALT), when(1, "11:02"),
             ErrorCode.NOT_A_PARTICIPANT)
    g.reject(CreateNotaryInbox(actor="bob", title="x", content="y", salt="short"), when(1, "11:02"),
             ErrorCode.NOTARY_SALT_WEAK)
    g.reject(CreateNotaryInbox(actor="bob", title="x", content="  ", salt=SALT), when(1, "11:02"),
             ErrorCode.MESSAGE_EMPTY)


def test_notary3_the_organizer_grants_access_to_whoever_must_verify():
    """INBOX-NOTARY-3: bob lets the Arbiter check; artur gets content and salt and can
    recompute the published digest; carol still cannot read; the member list is hidden."""
    g, box = sealed()
    g.do(GrantNotaryAccess(actor="bob", inbox=box, user=ARBITER), 1, "12:00")
    grant = g.events_of(ev.NotaryAccessGranted)[0]
    assert grant.audience.users == frozenset({"bob", ARBITER})
    digest = hashlib.sha256(f"{grant.salt}\x00{grant.content}".encode()).hexdigest()
    assert digest == g.events_of(ev.NotarySealed)[0].digest
    assert can_read(g.state, box, ARBITER) and not can_read(g.state, box, "carol")
    assert member_list(g.state, box, ARBITER) is None
    g.reject(GrantNotaryAccess(actor="bob", inbox=box, user=ARBITER), when(1, "12:01"),
             ErrorCode.ALREADY_GRANTED)
    # Only the organizer grants; to anyone else the inbox does not exist.
    g.reject(GrantNotaryAccess(actor=ARBITER, inbox=box, user="carol"), when(1, "12:02"),
             ErrorCode.NOT_ORGANIZER)
    g.reject(GrantNotaryAccess(actor="carol", inbox=box, user="carol"), when(1, "12:02"),
             ErrorCode.UNKNOWN_INBOX)


def test_notary3_a_grant_cannot_find_the_consigliere():
    """HOST-CONS-5, SEC-5: granting to the Consigliere is refused exactly like granting to
    an outsider, so bob cannot learn who he is by probing."""
    g, box = sealed()
    outsider = g.reject(GrantNotaryAccess(actor="bob", inbox=box, user="nobody"), when(1, "12:00"),
                        ErrorCode.NOT_A_PARTICIPANT)
    consigliere = g.reject(GrantNotaryAccess(actor="bob", inbox=box, user=CONSIGLIERE),
                           when(1, "12:00"), ErrorCode.NOT_A_PARTICIPANT)
    assert outsider.message().replace("nobody", "?") == consigliere.message().replace(CONSIGLIERE, "?")


def test_section_9_4_other_notaries_open_at_the_organizers_discretion_after_the_game():
    """§9.4 «Other notary inboxes: at the organizer's discretion», AMB-39: closed to
    strangers after the game until bob opens it; opening during the game is refused."""
    g, box = sealed()
    g.reject(PublishNotaryInbox(actor="bob", inbox=box), when(1, "12:00"), ErrorCode.NOTARY_NOT_YET_PUBLIC)
    g.to(2, "10:00")
    g.do(Nominate(actor="bob", candidate="alice"), 2, "12:00")
    g.to(2, "23:30")
    assert g.events_of(ev.GameEnded)
    assert status(g.state, box, "stranger") is ArchiveStatus.CLOSED
    assert status(g.state, box, "bob") is ArchiveStatus.MEMBER
    g.reject(PublishNotaryInbox(actor="carol", inbox=box), when(3, "09:00"), ErrorCode.UNKNOWN_INBOX)
    g.do(PublishNotaryInbox(actor="bob", inbox=box), 3, "09:00")
    opened = g.events_of(ev.NotaryPublished)[0]
    assert visible_to(opened, None) and opened.content == SECRET and opened.salt == SALT
    assert status(g.state, box, "stranger") is ArchiveStatus.OPEN
    g.reject(PublishNotaryInbox(actor="bob", inbox=box), when(3, "09:01"), ErrorCode.ALREADY_DECIDED)
