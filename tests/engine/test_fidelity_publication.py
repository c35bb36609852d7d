"""Rules fidelity II (issue 10): what is published, and when (D13, D14, D17, D18).

«Создаёт пост дня, в котором публикует: сведения об убитых ночью, результаты предыдущих
дней, результаты голосований и казнённых»; «Трибун … в посте дня публикует результаты
голосования и вердикт Верховного суда»; «По окончании игры все мафиозные инбоксы раскрываются».
"""

from dataclasses import replace

from lepromafia.engine import events as ev
from lepromafia.engine.archive import readable
from lepromafia.engine.commands import (
    AnswerCommissarOffer,
    CheckResident,
    DeclareKill,
    DeclareSuicide,
    OfferCommissar,
    PostMessage,
    ProposeJudge,
    VoteGodfather,
    VotePardon,
)
from lepromafia.engine.state import DeathCause

from .cast import PROCURATOR, Game, when

FOUR = {c: " ".join(f"{c.lower()}{i}" for i in range(1, 6)) for c in "ABCD"}
FOUR_MAFIA = {c: f"{c.lower()}1" for c in "ABCD"}


def test_the_day_post_carries_votes_verdicts_suicides_and_judge_elections():
    """HOST-PROC-3, EXEC-16, COURT-7, POST-3, JUDGE-ELECT-15 (D17)."""
    g = Game(FOUR, mafia=FOUR_MAFIA).start()
    for city in "ABCD":
        g.do(ProposeJudge(actor=f"{city.lower()}2", candidate=f"{city.lower()}5"), 1, "11:00")
    g.to(1, "16:00")
    for city in "ABCD":
        box = g.state.current[f"polling:{city}/{city.lower()}5"]
        g.do(PostMessage(actor=f"{city.lower()}3", inbox=box, text="Он — Ганди!"), 1, "16:05")
    g.to(2, "10:00")
    day2 = next(p for p in g.events_of(ev.DayPostPublished) if p.day == 2)
    assert {(j.city, j.elected) for j in day2.judge_elections} == {
        ("A", "a5"), ("B", "b5"), ("C", "c5"), ("D", "d5")}
    g.nominate_all([("a2", "a3"), ("a3", "a4")], 2)
    g.do(DeclareSuicide(actor="b2"), 2, "12:30")
    g.to(2, "20:00")
    g.vote("a2", "a3", "казнить", 2, "20:05")
    g.vote("a1", "a3", "казнить", 2, "20:06")
    g.vote("a5", "a4", "казнить", 2, "20:07")
    g.vote("a4", "a3", "казнить", 2, "20:08")
    g.vote("a4", "a3", "не казнить", 2, "20:09")
    g.to(2, "23:30")
    for judge in ("a5", "b5", "c5"):
        g.do(VotePardon(actor=judge, city="A", pardon=True), 2, "23:35")
    assert not g.alive("a4") and not g.alive("b2")
    g.to(3, "10:00")
    post = next(p for p in g.events_of(ev.DayPostPublished) if p.day == 3)
    (votes_a,) = [v for v in post.votes if v.city == "A"]
    tally = {t.candidate: t for t in votes_a.tallies}
    assert tally["a3"].voters == ("a2", "a1") and tally["a3"].changed_minds == ("a4",)
    assert tally["a4"].voters == ("a5",)
    (verdict,) = post.verdicts
    assert (verdict.city, verdict.candidate, verdict.pardoned, verdict.pardon_votes) == ("A", "a3", True, 3)
    assert [d.user for d in post.executions] == ["a4"]
    assert [(d.user, d.faction) for d in post.suicides] == [("b2", "honest")]
    assert post.judge_elections == ()  # each result is published once, in the next Day Post


ONE = "alice bob carol dave erin"


def game_ending_at_dawn():
    """Лепроград alone: alice the mafia, carol the commissar. On Night 2 carol checks alice and
    alice kills carol; by then bob, dave and erin are dead. The game ends on Day 3 at 10:00."""
    g = Game({"Лепроград": ONE}, mafia={"Лепроград": "alice"}).start()
    pool = [u for u in g.state.living("Лепроград")]
    g.do(OfferCommissar(actor=PROCURATOR, city="Лепроград", draw=pool.index("carol")), 1, "10:05")
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 1, "01:00")
    g.to_night(2, "01:30")
    g.at_night(DeclareKill(actor="alice", target="carol"), 2, "01:30")
    g.at_night(CheckResident(actor="carol", target="alice"), 2, "01:31")
    residents = dict(g.state.residents)
    for user in ("bob", "dave", "erin"):
        residents[user] = replace(residents[user], alive=False, cause=DeathCause.EXECUTION,
                                  died_at=when(2, "23:30"), died_in="day 2")
    g.table.state = replace(g.state, residents=residents)
    g.to(3, "10:00")
    return g


def test_there_is_a_day_post_on_the_morning_the_game_ends():
    """HOST-PROC-3, POST-3 (D18): «сведения об убитых ночью» — also on the last morning."""
    g = game_ending_at_dawn()
    (ended,) = g.events_of(ev.GameEnded)
    post = next(p for p in g.events_of(ev.DayPostPublished) if p.day == 3)
    assert [d.user for d in post.night_deaths] == ["carol"]
    assert post.decided == (("Лепроград", "mafia"),)
    assert post.touring_city is None
    assert g.table.events.index(post) < g.table.events.index(ended)


def test_every_commissar_who_held_office_is_revealed():
    """§9.4, COMM-9 (D13): carol, killed in office, is in the reveal."""
    g = game_ending_at_dawn()
    (ended,) = g.events_of(ev.GameEnded)
    assert ended.commissars == (("Лепроград", "carol"),)


def test_the_mafia_s_decisions_and_the_check_log_open_with_the_game_s_end():
    """INBOX-MAFIA-4, §9.4 (D14): night orders, Godfather votes and checks, readable by all
    once the game is over, as the open mafia inbox would have shown them — not before."""
    g = Game({"Лепроград": ONE}, mafia={"Лепроград": "alice"}).start()
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 1, "01:00")
    vote = g.events_of(ev.GodfatherVoteCast)[-1]
    assert not readable(g.state, vote, None) and not readable(g.state, vote, "bob")
    g2 = game_ending_at_dawn()
    s = g2.state
    kinds = (ev.GodfatherVoteCast, ev.KillDeclared, ev.NightDecisionFixed, ev.CheckAnswered,
             ev.MafiaDealt, ev.GodfatherElected)
    for kind in kinds:
        (e, *_) = g2.events_of(kind)
        assert readable(s, e, None) and readable(s, e, "bob"), kind.__name__
    secret = g2.events_of(ev.CommissarOffered)[0]  # §9.2: the offer stays the Procurator's
    assert not readable(s, secret, None)
