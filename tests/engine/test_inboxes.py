"""Inbox membership and bans from the one policy table (INBOX-*, §5)."""

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    CloseSecretInbox,
    CreateSecretInbox,
    DeclareKill,
    Nominate,
    PostMessage,
    RenewInbox,
    VoteGodfather,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import POLICY, Access, AfterGame, Kind, access, member_list

from .cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game, night_time, when

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"

KEY = "9f2c4e1ab07d5e38"
OTHER_KEY = "3b8d0f6c2a9e4d71"


def started():
    return Game({TOWN: TEN, "Глюкоград": "g1 g2 g3 g4 g5"},
                mafia={TOWN: "alice bob", "Глюкоград": "g1"}).start()


def test_every_inbox_kind_of_the_catalogue_has_a_policy_row():
    """§5: one declarative row per kind, each citing its rules."""
    assert set(POLICY) == set(Kind)
    assert all(p.rules for p in POLICY.values())
    assert POLICY[Kind.MAFIA].after_game is AfterGame.OPEN  # INBOX-MAFIA-4
    assert POLICY[Kind.PERSONAL].after_game is AfterGame.RESIDENT_CONSENT  # INBOX-PERS-3
    assert POLICY[Kind.SECRET].after_game is AfterGame.ALL_MEMBERS_CONSENT  # INBOX-SECRET-3
    assert POLICY[Kind.OFFICE].after_game is AfterGame.OPEN  # INBOX-OFFICE-3
    assert POLICY[Kind.BAR].after_game is AfterGame.OPEN  # INBOX-BAR-3
    assert POLICY[Kind.REMOVAL].after_game is AfterGame.OPEN  # INBOX-REMOVAL-3
    assert POLICY[Kind.VOTING].keywords_only and POLICY[Kind.POLLING].keywords_only


@pytest.mark.parametrize(
    ("kind", "scope", "writers", "nobody"),
    [
        ("city", TOWN, {"alice", "carol", TRIBUNES[0]}, {"g2", TRIBUNES[1], PROCURATOR, CONSIGLIERE}),
        ("personal", "carol", {"carol", TRIBUNES[0]}, {"dave", PROCURATOR, TRIBUNES[1], ARBITER}),
        ("mafia", TOWN, {"alice", "bob", CONSIGLIERE}, {"carol", PROCURATOR, TRIBUNES[0], "g1"}),
        ("office", "", {PROCURATOR, TRIBUNES[0], TRIBUNES[1], ARBITER}, {CONSIGLIERE, "alice"}),
        ("bar", "", {PROCURATOR, CONSIGLIERE}, {TRIBUNES[0], ARBITER, "alice"}),
        ("cemetery", TOWN, {PROCURATOR}, {"alice", TRIBUNES[0], CONSIGLIERE}),
    ],
)
def test_who_reads_and_writes_each_inbox(kind, scope, writers, nobody):
    """INBOX-GEN-1 (hosts read only their own inboxes), INBOX-CITY-1, INBOX-PERS-1,
    INBOX-MAFIA-1, INBOX-OFFICE-1, INBOX-BAR-1, INBOX-CEM-1, HOST-PROC-7."""
    g = started()
    box = g.inbox(kind, scope)
    for user in writers:
        assert access(g.state, box, user, now=g.now) is Access.WRITE, user
    for user in nobody:
        assert access(g.state, box, user, now=g.now) is Access.NONE, user


def test_the_city_inbox_is_renewed_every_morning_and_the_old_one_becomes_read_only():
    """INBOX-CITY-4, INBOX-GEN-2, INBOX-CITY-3."""
    g = started()
    first = g.inbox("city", TOWN)
    g.to(2, "10:00")
    second = g.inbox("city", TOWN)
    assert first != second
    assert access(g.state, first, "carol", now=g.now) is Access.READ
    assert access(g.state, second, "carol", now=g.now) is Access.WRITE
    g.reject(PostMessage(actor="carol", inbox=first, text="привет"), when(2, "11:00"),
             ErrorCode.INBOX_CLOSED)
    g.do(PostMessage(actor="carol", inbox=second, text="привет"), 2, "11:00")


def test_daily_renewal_can_be_switched_off():
    """INBOX-CITY-4: city_inbox_daily_renewal = false."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}, settings={"city_inbox_daily_renewal": False}).start()
    first = g.inbox("city", TOWN)
    g.to(3, "10:00")
    assert g.inbox("city", TOWN) == first


def test_the_dead_are_banned_in_the_city_inbox_and_their_personal_inbox():
    """INBOX-CITY-1, INBOX-PERS-4, CITY-5, ROLE-DEAD-1, INBOX-CEM-4, INBOX-MAFIA-3."""
    g = started()
    g.to(2, "10:00")
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "23:30")
    assert not g.alive("dave")
    g.reject(PostMessage(actor="dave", inbox=g.inbox("city", TOWN), text="я жив"), when(2, "23:40"),
             ErrorCode.INBOX_READ_ONLY)
    assert access(g.state, g.inbox("personal", "dave"), "dave", now=g.now) is Access.READ
    g.do(PostMessage(actor="dave", inbox=g.inbox("cemetery", TOWN), text="Тут тихо"), 2, "23:41")
    g.to(3, "10:00")
    assert access(g.state, g.inbox("city", TOWN), "dave", now=g.now) is Access.READ  # banned in renewals too


def test_a_dead_mafioso_still_writes_in_the_mafia_inbox_but_is_no_longer_living_mafia():
    """INBOX-MAFIA-3, MAFIA-KILL-6."""
    g = started()
    g.to(2, "10:00")
    g.do(Nominate(actor="carol", candidate="bob"), 2, "12:00")
    g.to_night(2, "00:30")
    assert not g.alive("bob")
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 2, "00:30")  # GODFATHER-5
    g.at_night(PostMessage(actor="bob", inbox=g.inbox("mafia", TOWN), text="Убейте Кэрол"), 2, "00:31")
    assert "bob" not in g.state.cities[TOWN].night.spoke
    assert g.state.living_mafia(TOWN) == ["alice"]


def test_members_see_the_member_list_except_in_the_police_station():
    """INBOX-GEN-5 (AMB-21)."""
    g = started()
    assert "carol" in member_list(g.state, g.inbox("city", TOWN), "carol")
    assert member_list(g.state, g.inbox("city", TOWN), "g2") is None
    assert member_list(g.state, g.inbox("police"), PROCURATOR) is not None
    assert member_list(g.state, g.inbox("mafia", TOWN), "alice") == sorted(["alice", "bob", CONSIGLIERE])


def test_secret_inboxes_are_open_to_anyone_but_the_consigliere():
    """INBOX-SECRET-1, HOST-CONS-6, SEC-5: the Consigliere is refused like any outsider."""
    g = started()
    events = g.do(CreateSecretInbox(actor="carol", title="Заговор", members=("dave", TRIBUNES[0]),
                                    key=KEY), 1, "12:00")
    opened = next(e for e in events if isinstance(e, ev.InboxOpened))
    assert opened.audience.users == {"carol", "dave", TRIBUNES[0]}
    outsider = g.reject(CreateSecretInbox(actor="carol", title="x", members=("stranger",), key=OTHER_KEY),
                        when(1, "12:01"), ErrorCode.NOT_A_PARTICIPANT)
    consigliere = g.reject(CreateSecretInbox(actor="carol", title="x", members=(CONSIGLIERE,), key=OTHER_KEY),
                           when(1, "12:01"), ErrorCode.NOT_A_PARTICIPANT)
    assert outsider.code == consigliere.code and outsider.rule == consigliere.rule
    g.reject(CreateSecretInbox(actor=CONSIGLIERE, title="x", members=("carol",), key=OTHER_KEY),
             when(1, "12:01"), ErrorCode.NOT_A_PARTICIPANT)


def test_a_secret_inbox_is_named_by_its_drawn_key_not_by_how_many_exist():
    """INBOX-SECRET-1, security review F3-6: the id is ``secret:<key>:0``, never a running
    number; a key that is short, not hexadecimal or already used is refused, changing nothing."""
    g = started()
    g.do(CreateSecretInbox(actor="carol", title="Заговор", members=("dave",), key=KEY), 1, "12:00")
    assert f"secret:{KEY}:0" in g.state.inboxes
    assert not any(i.startswith("secret:1:") for i in g.state.inboxes)
    for bad in (KEY, "1", "0123456789ABCDEF", "z" * 16, "0" * 33):
        g.reject(CreateSecretInbox(actor="erin", title="Своё", members=("frank",), key=bad),
                 when(1, "12:05"), ErrorCode.INBOX_KEY_INVALID)


def test_the_organizer_closes_a_secret_inbox_and_members_keep_reading():
    """INBOX-SECRET-2."""
    g = started()
    g.do(CreateSecretInbox(actor="carol", title="Заговор", members=("dave",), key=KEY), 1, "12:00")
    box = next(i.id for i in g.state.inboxes.values() if i.kind == "secret")
    g.do(PostMessage(actor="dave", inbox=box, text="тсс"), 1, "12:01")
    g.reject(CloseSecretInbox(actor="dave", inbox=box), when(1, "12:02"), ErrorCode.NOT_ORGANIZER)
    g.do(CloseSecretInbox(actor="carol", inbox=box), 1, "12:03")
    assert access(g.state, box, "dave", now=g.now) is Access.READ


def test_an_organizer_renews_a_heavy_inbox():
    """INBOX-GEN-2, INBOX-GEN-4, INBOX-CEM-3: same membership, the old one read-only."""
    g = started()
    office = g.inbox("office")
    g.reject(RenewInbox(actor=TRIBUNES[0], inbox=office), when(1, "12:00"), ErrorCode.NOT_ORGANIZER)
    g.do(RenewInbox(actor=PROCURATOR, inbox=office), 1, "12:00")
    fresh = g.inbox("office")
    assert fresh != office and access(g.state, fresh, TRIBUNES[1], now=g.now) is Access.WRITE
    assert access(g.state, office, TRIBUNES[1], now=g.now) is Access.READ


def test_a_message_reaches_exactly_the_inbox_readers():
    """SEC-11, INBOX-GEN-1: the audience of a message is the inbox's readers."""
    g = started()
    (posted,) = g.do(PostMessage(actor="alice", inbox=g.inbox("mafia", TOWN), text="Мы"), 1, "12:00")
    assert posted.audience.users == {"alice", "bob", CONSIGLIERE}
    g.reject(PostMessage(actor="alice", inbox=g.inbox("city", TOWN), text=" "), when(1, "12:01"),
             ErrorCode.MESSAGE_EMPTY)
    g.reject(PostMessage(actor="alice", inbox=g.inbox("city", TOWN), text="я" * 4001), when(1, "12:01"),
             ErrorCode.MESSAGE_TOO_LONG)


def test_the_kill_order_is_secret_to_the_mafia_and_the_consigliere():
    """INBOX-MAFIA-2, §9.2: night orders stay in the mafia inbox."""
    g = started()
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 1, "01:00")
    g.to_night(2, "01:00")
    (declared,) = g.at_night(DeclareKill(actor="alice", target="carol"), 2, "01:00")
    assert declared.audience.users == {"alice", "bob", CONSIGLIERE}
    assert night_time(2, "01:00") == declared.at
