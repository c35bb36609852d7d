"""Editing a message keeps the evidence: a new version, never a rewrite (INBOX-GEN-1, EXEC-13).

Cast: Лепроград's ten, alice and bob the mafia; carol talks in the city inbox.
"""

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    AnswerCommissarOffer,
    EditMessage,
    Nominate,
    OfferCommissar,
    PostMessage,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import readers

from .cast import CONSIGLIERE, PROCURATOR, Game, when

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"


def started() -> Game:
    return Game({TOWN: TEN, "Глюкоград": "g1 g2 g3 g4 g5"},
                mafia={TOWN: "alice bob", "Глюкоград": "g1"}).start()


def test_carol_edits_her_own_message_and_the_edit_reaches_exactly_the_message_s_readers():
    """INBOX-GEN-1: the author edits while he may post; the audience is the message's."""
    g = started()
    city = g.inbox("city", TOWN)
    g.do(PostMessage(actor="dave", inbox=city, text="Доброе утро"), 1, "11:00")
    posted = g.do(PostMessage(actor="carol", inbox=city, text="Голосую за боба"), 1, "11:01")[0]
    [edited] = g.do(EditMessage(actor="carol", inbox=city, number=2, text="  Голосую за алису  "),
                    1, "11:05")
    assert isinstance(edited, ev.MessageEdited)
    assert (edited.inbox, edited.number, edited.author, edited.text) == \
        (city, 2, "carol", "Голосую за алису")
    assert edited.audience == posted.audience
    assert edited.audience.users == readers(g.state, city)
    g.do(EditMessage(actor="carol", inbox=city, number=2, text="Голосую за боба и алису"), 1, "11:06")
    assert len(g.events_of(ev.MessageEdited)) == 2  # every version stays in the log


def test_dave_cannot_edit_carol_s_message_nor_a_message_that_does_not_exist():
    """INBOX-GEN-1: only the author edits; an unknown number is refused, nothing changes."""
    g = started()
    city = g.inbox("city", TOWN)
    g.do(PostMessage(actor="carol", inbox=city, text="Я мирная"), 1, "11:00")
    g.reject(EditMessage(actor="dave", inbox=city, number=1, text="Я мафия"), when(1, "11:01"),
             ErrorCode.NOT_YOUR_MESSAGE)
    for number in (0, 2, -1):
        g.reject(EditMessage(actor="carol", inbox=city, number=number, text="x"), when(1, "11:01"),
                 ErrorCode.UNKNOWN_MESSAGE)
    g.reject(EditMessage(actor="carol", inbox=city, number=1, text="   "), when(1, "11:01"),
             ErrorCode.MESSAGE_EMPTY)
    g.reject(EditMessage(actor="carol", inbox=city, number=1, text="я" * 20_001), when(1, "11:01"),
             ErrorCode.MESSAGE_TOO_LONG)
    g.do(EditMessage(actor="carol", inbox=city, number=1, text="я" * 20_000), 1, "11:02")


def test_an_outsider_learns_nothing_and_a_message_cannot_be_edited_after_the_renewal():
    """§9.1 p.3 (an inbox one cannot read does not exist for him), INBOX-GEN-3, INBOX-CITY-4."""
    g = started()
    mafia = g.inbox("mafia", TOWN)
    g.do(PostMessage(actor="alice", inbox=mafia, text="Убьём кэрол"), 1, "11:00")
    g.reject(EditMessage(actor="carol", inbox=mafia, number=1, text="x"), when(1, "11:01"),
             ErrorCode.UNKNOWN_INBOX)
    g.reject(EditMessage(actor="carol", inbox="city:nowhere:0", number=1, text="x"),
             when(1, "11:01"), ErrorCode.UNKNOWN_INBOX)
    city = g.inbox("city", TOWN)
    g.do(PostMessage(actor="carol", inbox=city, text="Вчерашнее"), 1, "12:00")
    g.to(2, "10:00")  # the morning renewal archives yesterday's city inbox
    g.reject(EditMessage(actor="carol", inbox=city, number=1, text="Переписано"), when(2, "10:01"),
             ErrorCode.INBOX_CLOSED)
    assert city not in g.state.authors  # an archived inbox keeps no authors to edit


def test_the_dead_cannot_edit_what_they_wrote_alive():
    """INBOX-CITY-1, ROLE-DEAD-1: the author edits only while he may still post there."""
    g = started()
    g.to(2, "10:00")
    city = g.inbox("city", TOWN)
    g.do(PostMessage(actor="dave", inbox=city, text="Я не мафия"), 2, "11:00")
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "23:30")
    assert not g.alive("dave")
    g.reject(EditMessage(actor="dave", inbox=city, number=1, text="Я мафия"), when(2, "23:40"),
             ErrorCode.INBOX_READ_ONLY)


def test_a_vote_in_a_voting_inbox_is_not_a_message_to_edit():
    """EXEC-13, EXEC-8: «казнить» is changed by «не казнить», never by an edit."""
    g = started()
    g.to(2, "10:00")
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "20:00")
    g.vote("erin", "dave", "казнить", 2, "20:01")
    voting = g.voting_inbox(TOWN, "dave")
    g.reject(EditMessage(actor="erin", inbox=voting, number=1, text="не казнить"), when(2, "20:02"),
             ErrorCode.KEYWORD_NOT_EDITABLE)


def test_the_commissar_cannot_edit_under_his_line_s_pseudonym_but_the_consigliere_edits_his_own():
    """COMM-APPT-5, SEC-5: the line's name is an office's; its next holder is not the author,
    so nobody edits there. The Consigliere edits his own words in the mafia inbox."""
    g = started()
    g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")  # carol
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    line = g.state.cities[TOWN].commissar_line
    g.do(PostMessage(actor="carol", inbox=line, text="Проверю алису"), 1, "10:20")
    g.reject(EditMessage(actor="carol", inbox=line, number=1, text="Проверю боба"),
             when(1, "10:21"), ErrorCode.PSEUDONYM_NOT_EDITABLE)
    mafia = g.inbox("mafia", TOWN)
    g.do(PostMessage(actor=CONSIGLIERE, inbox=mafia, text="Тихо сегодня"), 1, "11:00")
    g.do(EditMessage(actor=CONSIGLIERE, inbox=mafia, number=1, text="Тихо, господа"), 1, "11:01")


def test_in_a_long_day_s_chat_each_message_is_edited_by_its_own_author_alone():
    """INBOX-GEN-1: carol and dave take turns through 300 messages, past the blocks in which
    the state keeps their authors (``state.Authors``): each edits his own, never the other's."""
    g = started()
    city = g.inbox("city", TOWN)
    for n in range(1, 301):
        g.do(PostMessage(actor="carol" if n % 2 else "dave", inbox=city, text=f"№{n}"), 1, "11:00")
    assert len(g.state.authors[city]) == 300
    for number in (1, 127, 128, 129, 255, 256, 257, 299, 300):
        own, other = ("carol", "dave") if number % 2 else ("dave", "carol")
        g.reject(EditMessage(actor=other, inbox=city, number=number, text="чужое"), when(1, "11:01"),
                 ErrorCode.NOT_YOUR_MESSAGE)
        [edited] = g.do(EditMessage(actor=own, inbox=city, number=number, text="моё"), 1, "11:01")
        assert (edited.number, edited.author) == (number, own)
    for number in (0, 301):
        g.reject(EditMessage(actor="carol", inbox=city, number=number, text="x"), when(1, "11:01"),
                 ErrorCode.UNKNOWN_MESSAGE)
