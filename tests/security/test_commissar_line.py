"""F2-1 (COMM-1, COMM-2, COMM-5): the commissar and the Consigliere talk through the
Commissar Line; once the commissar has left office, he and the Consigliere only read it.

Cast (the engine tests' ten of Лепроград): alice and bob are the mafia, carol accepts the
badge; the Consigliere writes back; carol is killed on Night 3.
"""

from __future__ import annotations

from lepromafia.engine.commands import AnswerCommissarOffer, DeclareKill, PostMessage, VoteGodfather
from lepromafia.engine.inboxes import Access, access

from ..engine.cast import CONSIGLIERE
from ..engine.test_commissar import TOWN, day_one, offer


def test_the_commissar_and_the_consigliere_write_in_the_line_and_nobody_else() -> None:
    g = day_one()
    offer(g, draw=2)
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    g.to(1, "11:00")
    line = g.state.cities[TOWN].commissar_line
    assert line is not None
    g.do(PostMessage(actor="carol", inbox=line, text="Комиссар Лепрограда на связи"), 1, "11:00")
    g.do(PostMessage(actor=CONSIGLIERE, inbox=line, text="Принято"), 1, "11:01")
    assert access(g.state, line, "dave", now=g.now) is Access.NONE
    assert access(g.state, line, g.state.procurator, now=g.now) is Access.NONE
    g.to_night(1, "01:00")
    for m in ("alice", "bob"):
        g.at_night(VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
    g.to_night(3, "01:00")
    g.at_night(DeclareKill(actor="alice", target="carol"), 3, "01:00")
    g.to(4, "10:00")
    assert access(g.state, line, "carol", now=g.now) is Access.READ
    assert access(g.state, line, CONSIGLIERE, now=g.now) is Access.READ
