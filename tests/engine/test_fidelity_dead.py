"""Rules fidelity II (issue 10), D16: the dead have no rights (ROLE-DEAD-3), also in the
removal-petition and impeachment inboxes they signed (INBOX-REMOVAL-3, IMPEACH-4)."""

from lepromafia.engine.commands import DeclareSuicide, FilePetition, PostMessage, ProposeJudge
from lepromafia.engine.commands_host import SignImpeachment
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access

from .cast import Game, when

FOUR = {c: " ".join(f"{c.lower()}{i}" for i in range(1, 6)) for c in "ABCD"}
FOUR_MAFIA = {c: f"{c.lower()}1" for c in "ABCD"}


def test_a_dead_petitioner_can_no_longer_post_in_the_removal_inbox():
    """INBOX-REMOVAL-3, ROLE-DEAD-3 (D16): the co-signer who dies is banned (read-only)."""
    g = Game(FOUR, mafia=FOUR_MAFIA).start()
    for city in "ABCD":
        g.do(ProposeJudge(actor=f"{city.lower()}2", candidate=f"{city.lower()}5"), 1, "11:00")
    g.to(1, "16:00")
    for city in "ABCD":
        box = g.state.current[f"polling:{city}/{city.lower()}5"]
        g.do(PostMessage(actor=f"{city.lower()}3", inbox=box, text="Он — Ганди!"), 1, "16:05")
    g.to(2, "10:00")
    g.do(FilePetition(actor="a2"), 2, "12:00")
    box = next(i.id for i in g.state.inboxes.values() if i.kind == "removal")
    g.do(PostMessage(actor="a2", inbox=box, text="судья спит"), 2, "12:01")
    g.do(DeclareSuicide(actor="a2"), 2, "12:02")
    g.to(2, "20:30")  # the suicide takes effect at the vote start
    assert not g.alive("a2")
    assert access(g.state, box, "a2", now=g.now) is Access.READ
    g.reject(PostMessage(actor="a2", inbox=box, text="я ещё здесь"), when(2, "20:31"),
             ErrorCode.INBOX_READ_ONLY)


def test_a_dead_impeachment_initiator_can_no_longer_post():
    """IMPEACH-4, ROLE-DEAD-3 (D16): initiators write while they live; the dead read."""
    g = Game({"Лепроград": "alice bob carol dave erin frank gina hugo ivan jane"},
             mafia={"Лепроград": "alice bob"}).start()
    g.to(2, "10:00")
    for user, hhmm in (("carol", "11:00"), ("dave", "11:05"), ("erin", "11:10")):
        g.do(SignImpeachment(actor=user, grievance="the Tribune nudges votes"), 2, hhmm)
    box = g.inbox("impeachment", "Лепроград")
    g.do(PostMessage(actor="carol", inbox=box, text="вот ссылки"), 2, "11:20")
    g.do(DeclareSuicide(actor="carol"), 2, "11:30")
    g.to(2, "20:30")
    assert not g.alive("carol")
    assert access(g.state, box, "carol", now=g.now) is Access.READ
    g.reject(PostMessage(actor="carol", inbox=box, text="и ещё"), when(2, "20:31"),
             ErrorCode.INBOX_READ_ONLY)
    g.do(PostMessage(actor="dave", inbox=box, text="я жив"), 2, "20:32")
