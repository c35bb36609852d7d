"""The archives after the game (§9.4, RANDOM-5, INBOX-MAFIA-4, INBOX-PERS-3, INBOX-SECRET-3,
INBOX-OFFICE-3, INBOX-BAR-3, INBOX-REMOVAL-3, AMB-33)."""

from lepromafia.engine import events as ev
from lepromafia.engine.archive import ArchiveStatus, can_open, status
from lepromafia.engine.commands import CreateSecretInbox, GiveArchiveConsent, Nominate, RequestArchive
from lepromafia.engine.errors import ErrorCode

from .cast import PROCURATOR, TRIBUNES, Game, when

TOWN = "Лепроград"


def finished():
    """alice, the only mafioso of five, is executed on Day 2: the honest win."""
    g = Game({TOWN: "alice bob carol dave erin"}, mafia={TOWN: "alice"}).start()
    g.do(CreateSecretInbox(actor="bob", title="Заговор", members=("carol",), key="0000000000000001"), 1, "12:00")
    g.to(2, "10:00")
    g.reject(GiveArchiveConsent(actor="bob", inbox=g.inbox("personal", "bob"), consent=True),
             when(2, "11:00"), ErrorCode.WRONG_STAGE)
    g.do(Nominate(actor="bob", candidate="alice"), 2, "12:00")
    g.to(2, "23:30")
    assert g.events_of(ev.GameEnded)
    return g


def test_mafia_inboxes_office_and_bar_open_to_everyone():
    """INBOX-MAFIA-4, INBOX-OFFICE-3, INBOX-BAR-3: open to anyone, anonymous visitors too."""
    g = finished()
    for box in (g.inbox("mafia", TOWN), g.inbox("office"), g.inbox("bar")):
        assert status(g.state, box, "stranger") is ArchiveStatus.OPEN
        assert can_open(g.state, box, None)


def test_city_inboxes_open_on_request_to_whoever_asks():
    """AMB-33: the city inbox, Cemetery, Police Station… open to whoever asks; the ask is logged."""
    g = finished()
    city = next(i.id for i in g.state.inboxes.values() if i.kind == "city")
    assert status(g.state, city, "stranger") is ArchiveStatus.ON_REQUEST
    assert not can_open(g.state, city, None)
    (opened,) = g.do(RequestArchive(actor="stranger", inbox=city), 3, "12:00")
    assert opened.audience.users == {"stranger"}
    assert can_open(g.state, city, "stranger") and not can_open(g.state, city, "other")
    g.reject(RequestArchive(actor="stranger", inbox=g.inbox("mafia", TOWN)), when(3, "12:01"),
             ErrorCode.ARCHIVE_CLOSED)  # nothing to ask for: it is open


def test_a_personal_inbox_opens_only_with_the_resident_s_consent():
    """INBOX-PERS-3: consent opens it, refusal keeps it closed; its members keep reading."""
    g = finished()
    box = g.inbox("personal", "bob")
    assert status(g.state, box, "bob") is ArchiveStatus.MEMBER
    assert status(g.state, box, TRIBUNES[0]) is ArchiveStatus.MEMBER
    assert status(g.state, box, "stranger") is ArchiveStatus.AWAITING_CONSENT
    g.reject(RequestArchive(actor="stranger", inbox=box), when(3, "12:00"), ErrorCode.ARCHIVE_CLOSED)
    g.reject(GiveArchiveConsent(actor="carol", inbox=box, consent=True), when(3, "12:00"),
             ErrorCode.NOT_A_MEMBER)
    g.do(GiveArchiveConsent(actor="bob", inbox=box, consent=True), 3, "12:00")
    assert can_open(g.state, box, "stranger")
    other = g.inbox("personal", "carol")
    g.do(GiveArchiveConsent(actor="carol", inbox=other, consent=False), 3, "12:01")
    assert status(g.state, other, "stranger") is ArchiveStatus.CLOSED


def test_a_secret_inbox_needs_every_member():
    """INBOX-SECRET-3: one refusal keeps it closed."""
    g = finished()
    box = next(i.id for i in g.state.inboxes.values() if i.kind == "secret")
    g.do(GiveArchiveConsent(actor="bob", inbox=box, consent=True), 3, "12:00")
    assert status(g.state, box, PROCURATOR) is ArchiveStatus.AWAITING_CONSENT
    g.do(GiveArchiveConsent(actor="carol", inbox=box, consent=True), 3, "12:01")
    assert can_open(g.state, box, PROCURATOR)


def test_the_deal_s_notary_opens_and_voting_inboxes_are_gone():
    """RANDOM-5, INBOX-GEN-3: the notary of the deal is open; voting inboxes stay closed
    to outsiders, their logs being in the published results."""
    g = finished()
    notary = next(i.id for i in g.state.inboxes.values() if i.kind == "notary")
    assert can_open(g.state, notary, None)
    voting = next(i.id for i in g.state.inboxes.values() if i.kind == "voting")
    assert status(g.state, voting, "stranger") is ArchiveStatus.CLOSED
    assert status(g.state, voting, "bob") is ArchiveStatus.MEMBER
