"""When a recurring act will next be possible (``engine.upcoming``): what the today panel
and the role card say instead of offering a form that would be refused (review M5, M11).

Cast: Лепроград of ten — alice and bob the mafia, carol the commissar from Day 1, dave an
honest resident (``test_commissar.commissar_night``). Rules: START-1/EXEC-3 (nominations from
Day 2), START-2 (kills from Night 2), COMM-4 (checks from Night 2, once they open).
"""

from __future__ import annotations

from lepromafia.engine.commands import Nominate
from lepromafia.engine.duties import DutyKind, duties
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.upcoming import Soon, upcoming

from .cast import night_time, when
from .test_commissar import commissar_night


def soon(g, user, at):
    return {u.kind: u for u in upcoming(g.state, user, at)}


def test_night_one_names_day_two_for_nominations_and_night_two_for_the_check_and_kill():
    """START-1, START-2, COMM-4: on Night 1 nobody may nominate, kill or check; each seat is
    told the day or night it may: dave Day 2; carol Day 2 and Night 2; alice Night 2."""
    g = commissar_night()
    at = night_time(1, "02:00")
    assert soon(g, "dave", at)[Soon.NOMINATE].day == 2
    assert Soon.CHECK not in soon(g, "dave", at) and Soon.STRIKE not in soon(g, "dave", at)
    assert soon(g, "carol", at)[Soon.CHECK].day == 2 and soon(g, "carol", at)[Soon.CHECK].night
    assert soon(g, "alice", at)[Soon.STRIKE].day == 2
    g.reject(Nominate(actor="dave", candidate="erin"), at, ErrorCode.WRONG_PHASE)


def test_an_act_possible_now_is_a_duty_and_never_listed_as_upcoming():
    """EXEC-3: on Day 2 the nomination is a duty, so it is not "upcoming"; once dave has
    nominated it stays a duty (replaceable) until the vote opens; then Day 3 is named."""
    g = commissar_night()
    g.to(day=2, hhmm="10:00")
    at = when(2, "10:05")
    assert DutyKind.NOMINATE in {d.kind for d in duties(g.state, "dave", at)}
    assert Soon.NOMINATE not in soon(g, "dave", at)
    assert soon(g, "dave", at)[Soon.VOTE].at == g.state.cities["Лепроград"].vote_opens_at
    g.do(Nominate(actor="dave", candidate="erin"), 2, "10:10")
    g.to(day=2, hhmm="20:01")
    assert soon(g, "dave", when(2, "20:01"))[Soon.NOMINATE].day == 3
    assert Soon.VOTE not in soon(g, "dave", when(2, "20:01"))


def test_the_dead_and_the_outsiders_are_told_nothing():
    """A host or a stranger has no nomination, kill or check to wait for."""
    g = commissar_night()
    at = night_time(1, "02:00")
    assert upcoming(g.state, "pavel", at) == () and upcoming(g.state, "stranger", at) == ()
    assert upcoming(g.state, None, at) == ()
