"""Who is who: citizens, mafiosi, commissars and hosts, and the inboxes of their offices
(ROLE-*, HOST-*, DIST-4, POST-1, INBOX-*-2, COMM-1..6)."""

from lepromafia.bots.simulate import play
from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    AnswerCommissarOffer,
    CheckResident,
    ConfirmPetition,
    DeclareKill,
    FilePetition,
    Nominate,
    OfferCommissar,
    PostMessage,
    ProposeJudge,
    VoteGodfather,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access, author_label
from lepromafia.engine.state import Faction
from lepromafia.engine.visibility import visible_to

from .cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game, night_time, when

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"


def with_commissar():
    """alice and bob are the mafia (alice Godfather); carol the commissar."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).start()
    g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    g.to_night(1, "01:00")
    for m in ("alice", "bob"):
        g.at_night(VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
    return g


def test_the_procurator_determines_commissars_only_after_the_deal():
    """DIST-4, HOST-PROC-2: offers by lot, by the Procurator, once the game has started."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).deal()
    g.reject(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=0), g.pregame, ErrorCode.WRONG_STAGE)


def test_mafiosi_and_the_commissar_are_citizens_by_day():
    """ROLE-CIT-1, ROLE-CIT-3, ROLE-CIT-4, ROLE-MAFIA-2, ROLE-COMM-2, START-4: all nominate
    once a day and vote on any or all candidates."""
    g = with_commissar()
    g.to(2, "10:00")
    g.nominate_all([("alice", "dave"), ("carol", "erin"), ("frank", "gina")], 2)
    g.to(2, "20:00")
    for voter in ("alice", "carol"):
        for candidate in ("dave", "erin", "gina"):
            g.vote(voter, candidate, "казнить", 2, "20:10")
    counted = {e.voter for e in g.events_of(ev.VoteCast)}
    assert counted == {"alice", "carol"}


def test_citizens_sleep_at_night_and_only_offices_act():
    """ROLE-CIT-2, ROLE-MAFIA-1, ROLE-COMM-1: the honest have no night action."""
    g = with_commissar()
    g.to_night(2, "01:00")
    g.reject(DeclareKill(actor="dave", target="erin"), night_time(2, "01:00"), ErrorCode.NOT_MAFIOSO)
    g.reject(CheckResident(actor="dave", target="alice"), night_time(2, "01:00"), ErrorCode.NOT_COMMISSAR)
    g.at_night(PostMessage(actor="bob", inbox=g.inbox("mafia", TOWN), text="Кого сегодня?"), 2, "01:00")
    g.at_night(CheckResident(actor="carol", target="bob"), 2, "01:05")  # his own city only


def test_no_negative_votes_exist():
    """EXEC-6: there is no vote against execution, only the withdrawal of one's own."""
    g = with_commissar()
    g.to(2, "10:00")
    g.do(Nominate(actor="dave", candidate="erin"), 2, "12:00")
    g.to(2, "20:00")
    for text in ("против", "не казнить его", "нет"):
        g.reject(PostMessage(actor="frank", inbox=g.voting_inbox(TOWN, "erin"), text=text),
                 when(2, "20:05"), ErrorCode.NOT_A_KEYWORD)
    g.reject(PostMessage(actor="frank", inbox=g.voting_inbox(TOWN, "erin"), text="не казнить"),
             when(2, "20:05"), ErrorCode.NO_ACTIVE_VOTE)


def test_the_commissar_line_is_pseudonymous_and_structured():
    """COMM-1, COMM-2, COMM-3, COMM-5, COMM-APPT-4, COMM-APPT-5: opened automatically; the
    Consigliere sees 'Commissar of <city>'; both write in it (F2-1) and keep the log."""
    g = with_commissar()
    line = g.state.cities[TOWN].commissar_line
    assert line is not None
    inbox = g.state.inboxes[line]
    assert author_label(g.state, inbox, "carol") == f"commissar:{TOWN}"
    assert author_label(g.state, inbox, CONSIGLIERE) == "consigliere"
    assert access(g.state, line, "carol", now=g.now) is Access.WRITE
    assert access(g.state, line, CONSIGLIERE, now=g.now) is Access.WRITE
    g.do(PostMessage(actor="carol", inbox=line, text="Я думаю, это Боб"), 1, "12:00")
    g.to_night(2, "01:00")
    (answer, *_) = g.at_night(CheckResident(actor="carol", target="bob"), 2, "01:05")
    assert visible_to(answer, "carol") and visible_to(answer, CONSIGLIERE)


def test_no_data_about_checks_reaches_the_mafia():
    """HOST-CONS-7, COMM-6: checks are seen by the commissar and the Consigliere only."""
    report = play(seed=5, cities=5)
    s = report.table.state
    checks = [e for e in report.table.events if isinstance(e, ev.CheckAnswered)]
    assert checks
    mafiosi = {u for u, r in s.residents.items() if r.faction is Faction.MAFIA}
    for check in checks:
        assert not (check.audience.users & mafiosi)


def test_only_the_consigliere_knows_every_mafioso():
    """HOST-CONS-1, HOST-CONS-4: one Consigliere; nobody else sees all the mafia."""
    report = play(seed=6, cities=5)
    s = report.table.state
    events = report.table.events
    dealt = [e for e in events if isinstance(e, ev.MafiaDealt)]
    everyone = {u for e in dealt for u in e.mafiosi}
    viewers = set(s.residents) | s.hosts()
    knows_all = {v for v in viewers if everyone <= {u for e in dealt if visible_to(e, v) for u in e.mafiosi}}
    assert knows_all == {s.consigliere}


def test_the_recruitment_post_is_public():
    """POST-1, CITY-3: sign-ups and the city lists are published to the community."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).form()
    assert all(e.audience.public for e in g.events_of(ev.PlayerSignedUp))
    assert g.events_of(ev.CitiesFormed)[0].audience.public


def test_host_inboxes_carry_host_business():
    """INBOX-OFFICE-2, INBOX-BAR-2, INBOX-POLICE-3, INBOX-CEM-2, HOST-ARB-1."""
    g = with_commissar()
    g.do(PostMessage(actor=TRIBUNES[0], inbox=g.inbox("office"), text="Голосование в 20:00"), 1, "11:00")
    g.do(PostMessage(actor=ARBITER, inbox=g.inbox("office"), text="Принято"), 1, "11:01")
    g.do(PostMessage(actor=CONSIGLIERE, inbox=g.inbox("bar"), text="Мафия готова"), 1, "11:02")
    g.do(PostMessage(actor="carol", inbox=g.inbox("police"), text="Есть кто?"), 1, "11:03")
    g.reject(PostMessage(actor=CONSIGLIERE, inbox=g.inbox("office"), text="x"), when(1, "11:04"),
             ErrorCode.UNKNOWN_INBOX)


def test_the_results_are_announced_to_the_city_inbox():
    """INBOX-CITY-2, INBOX-VOTE-2: every member of the city inbox sees the vote's result."""
    g = with_commissar()
    g.to(2, "10:00")
    g.do(Nominate(actor="dave", candidate="erin"), 2, "12:00")
    g.to(2, "23:30")
    closed = g.events_of(ev.VotingClosed)[-1]
    for member in (*TEN.split(), TRIBUNES[0]):
        assert visible_to(closed, member)


def test_the_deal_s_notary_inbox_has_only_its_organizer_until_the_end():
    """INBOX-NOTARY-1, INBOX-NOTARY-2, INBOX-NOTARY-3, RANDOM-2: sealed, organizer only."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).deal()
    notary = next(i.id for i in g.state.inboxes.values() if i.kind == "notary")
    assert access(g.state, notary, CONSIGLIERE, now=g.now) is Access.READ  # sealed: immutable
    for other in (PROCURATOR, TRIBUNES[0], ARBITER, "alice"):
        assert access(g.state, notary, other, now=g.now) is Access.NONE


def four_cities_with_judges():
    cities = {c: " ".join(f"{c.lower()}{i}" for i in range(1, 6)) for c in "ABCD"}
    g = Game(cities, mafia={c: f"{c.lower()}1" for c in "ABCD"}).start()
    for c in "ABCD":
        g.do(ProposeJudge(actor=f"{c.lower()}2", candidate=f"{c.lower()}5"), 1, "11:00")
    g.to(1, "16:00")
    for c in "ABCD":
        box = g.state.current[f"polling:{c}/{c.lower()}5"]
        g.do(PostMessage(actor=f"{c.lower()}3", inbox=box, text="Он — Ганди!"), 1, "16:05")
    g.to(2, "10:00")
    return g


def test_the_arbiter_puts_results_before_the_court_and_does_not_vote():
    """COURT-2, INBOX-COURT-2, HOST-ARB-1, HOST-ARB-2, COURT-6, INBOX-POLL-2, INBOX-POLL-3."""
    g = four_cities_with_judges()
    old_polls = [i for i in g.state.inboxes.values() if i.kind == "polling"]
    assert old_polls and all(i.archived for i in old_polls)  # killed once published
    court = g.inbox("court")
    assert g.state.inboxes[court].members == frozenset({"a5", "b5", "c5", "d5"})
    assert access(g.state, court, ARBITER, now=g.now) is Access.WRITE  # the organizer
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    g.to(2, "23:30")
    window = g.events_of(ev.PardonWindowOpened)[0]
    for judge in ("a5", "b5", "c5", "d5"):
        assert visible_to(window, judge)


def test_a_city_without_a_judge_elects_one():
    """JUDGE-3: a failed or vacant seat leads to a new election."""
    g = four_cities_with_judges()
    assert all(g.state.cities[c].judge for c in "ABCD")
    cities = {c: " ".join(f"{c.lower()}{i}" for i in range(1, 6)) for c in "ABCD"}
    bare = Game(cities, mafia={c: f"{c.lower()}1" for c in "ABCD"}).start()
    bare.to(2, "10:00")  # nobody stood on Day 1
    scheduled = [e for e in bare.events_of(ev.JudgeElectionScheduled) if e.city == "A"]
    assert len(scheduled) == 2 and scheduled[1].at == when(2, "10:00")


def test_a_petition_lapses_with_its_day():
    """JUDGE-REMOVE-9 (AMB-12): confirmations count only on the day of filing."""
    g = four_cities_with_judges()
    g.do(FilePetition(actor="a2"), 2, "11:00")
    g.to(3, "10:00")
    g.reject(ConfirmPetition(actor="a3"), when(3, "11:00"), ErrorCode.NO_PETITION)
    assert g.state.cities["A"].judge == "a5"


def test_candidates_campaign_outside_the_polling_station():
    """JUDGE-ELECT-10, JUDGE-ELECT-11 (AMB-35): speeches in the city inbox, not in the station."""
    cities = {c: " ".join(f"{c.lower()}{i}" for i in range(1, 6)) for c in "ABCD"}
    g = Game(cities, mafia={c: f"{c.lower()}1" for c in "ABCD"}).start()
    g.do(ProposeJudge(actor="a2", candidate="a5"), 1, "11:00")
    g.to(1, "16:00")
    g.do(PostMessage(actor="a5", inbox=g.inbox("city", "A"), text="Голосуйте за меня!"), 1, "16:10")
    g.reject(PostMessage(actor="a5", inbox=g.state.current["polling:A/a5"], text="Голосуйте за меня!"),
             when(1, "16:11"), ErrorCode.NOT_A_KEYWORD)
