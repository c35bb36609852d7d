"""Public discussion under the posts (POST-1, POST-2): the whole community comments,
the Procurator hides with a logged reason (review D19)."""

from lepromafia.engine import commands_host as hc
from lepromafia.engine import events as ev
from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import HideComment, Nominate, PostComment
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.rules.seeds import may_comment, posts
from lepromafia.engine.visibility import visible_to

from .cast import CONSIGLIERE, PROCURATOR, Game, when

TOWN = "Лепроград"


def test_post1_anyone_in_the_community_comments_on_the_recruitment_post_before_sign_up():
    """POST-1: «Участники: Весь лепрозорий» — vera, who never signs up, comments under the
    Recruitment Post; so does alice, a player. Comments are public and numbered."""
    g = Game({TOWN: "alice bob carol dave erin"}).create()
    g.act(PostComment(actor="vera", post="recruitment", text="Удачи всем!"))
    g.act(PostComment(actor="alice", post="recruitment", text="  Записываюсь  "))
    posted = g.events_of(ev.CommentPosted)
    assert [(c.comment, c.author, c.text) for c in posted] == [
        (1, "vera", "Удачи всем!"), (2, "alice", "Записываюсь")]
    assert all(visible_to(c, None) for c in posted)


def test_post2_day_posts_open_for_comments_as_each_day_starts():
    """POST-2, POST-3: Day 1's post exists from Day 1's start and stays open at night;
    Day 2's post does not exist before Day 2 starts."""
    g = Game({TOWN: "alice bob carol dave erin"}, mafia={TOWN: "alice"}).start()
    assert posts(g.state) == ["recruitment", "day:1"]
    g.do(PostComment(actor="bob", post="day:1", text="Кто такой alice?"), 1, "11:00")
    g.reject(PostComment(actor="bob", post="day:2", text="рано"), when(1, "11:05"),
             ErrorCode.UNKNOWN_POST)
    g.to(2, "10:00")
    g.do(PostComment(actor="vera", post="day:2", text="Пресса: интервью"), 2, "10:30")
    g.do(PostComment(actor="vera", post="day:1", text="ещё про первый день"), 2, "10:31")
    assert [c.post for c in g.events_of(ev.CommentPosted)] == ["day:1", "day:2", "day:1"]


def test_rejections_change_nothing_empty_long_unknown_post():
    """POST-2: an empty or over-long comment and an unknown post are refused with a code."""
    g = Game({TOWN: "alice bob carol dave erin"}).create()
    g.reject(PostComment(actor="vera", post="recruitment", text="   "), g.pregame, ErrorCode.MESSAGE_EMPTY)
    g.reject(PostComment(actor="vera", post="recruitment", text="x" * 4001), g.pregame,
             ErrorCode.MESSAGE_TOO_LONG)
    g.reject(PostComment(actor="vera", post="day:7", text="?"), g.pregame, ErrorCode.UNKNOWN_POST)


def test_sanctioned_player_cannot_comment_while_the_ban_runs_player7():
    """PLAYER-7, OMERTA-2: the Procurator records a lifetime ban on bob; bob's comment is
    refused (and only he learns why); carol still comments."""
    g = Game({TOWN: "alice bob carol dave erin"}, mafia={TOWN: "alice"}).start()
    g.do(hc.RecordSanction(actor=PROCURATOR, user="bob", rule="OMERTA-2", reason="слил состав",
                           until=None), 1, "11:00")
    refused = g.reject(PostComment(actor="bob", post="day:1", text="я не виноват"), when(1, "11:10"),
                       ErrorCode.SANCTIONED)
    assert "OMERTA-2" in refused.message()
    assert not may_comment(g.state, "bob", when(1, "11:10"))
    g.do(PostComment(actor="carol", post="day:1", text="так ему и надо"), 1, "11:11")


def test_the_dead_and_the_consigliere_do_not_comment_while_the_game_runs():
    """ROLE-DEAD-3 (the city inbox bans the dead, INBOX-CITY-1) and HOST-CONS-5: executed
    alice may not comment during the game, nor may the Consigliere kostya; after the end
    both may, as posts are permanent."""
    g = Game({TOWN: "alice bob carol dave erin"}, mafia={TOWN: "alice"}).start()
    g.reject(PostComment(actor=CONSIGLIERE, post="day:1", text="привет"), when(1, "11:00"),
             ErrorCode.CONSIGLIERE_CANNOT_COMMENT)
    g.to(2, "10:00")
    g.do(Nominate(actor="bob", candidate="alice"), 2, "12:00")
    g.to(2, "23:30")
    assert g.events_of(ev.GameEnded)
    g.do(PostComment(actor="alice", post="day:2", text="хорошая игра"), 3, "09:00")
    g.do(PostComment(actor=CONSIGLIERE, post="day:2", text="я консильери"), 3, "09:01")


def test_dead_resident_refused_mid_game():
    """ROLE-DEAD-3: carol, executed on Day 2 while the game goes on, cannot comment on
    Day 2's post that night; dave, alive, can."""
    g = Game({TOWN: "alice bob carol dave erin frank gina hugo"}, mafia={TOWN: "alice bob"}).start()
    g.to(2, "10:00")
    g.do(Nominate(actor="dave", candidate="carol"), 2, "12:00")
    g.to(2, "23:30")
    assert not g.alive("carol") and not g.events_of(ev.GameEnded)
    g.reject(PostComment(actor="carol", post="day:2", text="я жив"), when(2, "23:40"),
             ErrorCode.DEAD_CANNOT_COMMENT)
    g.do(PostComment(actor="dave", post="day:2", text="покойся с миром"), 2, "23:41")


def test_procurator_hides_a_comment_with_a_public_logged_reason():
    """POST-2, §9.1 p.4: pavel hides vera's insult; the reason is public and in the audit
    log; hiding twice, hiding an unknown comment or without a reason, or by another host,
    is refused."""
    g = Game({TOWN: "alice bob carol dave erin"}).create()
    g.act(PostComment(actor="vera", post="recruitment", text="вы все дураки"))
    g.reject(HideComment(actor="alice", comment=1, reason="оскорбление"), g.pregame,
             ErrorCode.NOT_PROCURATOR)
    g.reject(HideComment(actor=PROCURATOR, comment=1, reason="  "), g.pregame, ErrorCode.REASON_REQUIRED)
    g.reject(HideComment(actor=PROCURATOR, comment=2, reason="нет"), g.pregame, ErrorCode.UNKNOWN_COMMENT)
    g.act(HideComment(actor=PROCURATOR, comment=1, reason="оскорбление (PLAYER-5)"))
    hidden = g.events_of(hev.CommentHidden)[0]
    assert visible_to(hidden, None) and hidden.reason == "оскорбление (PLAYER-5)"
    assert g.state.discussion.hidden == frozenset({1})
    assert g.state.records.audit[-1].action == "CommentHidden"
    g.reject(HideComment(actor=PROCURATOR, comment=1, reason="ещё раз"), g.pregame,
             ErrorCode.COMMENT_ALREADY_HIDDEN)
