"""The inter-city mafia relay through the Consigliere (MAFIA-COMM-1, MAFIA-COMM-2, MAFIA-COMM-3, SEC-5)."""

from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import VoteGodfather
from lepromafia.engine.commands_host import ReviewMafiaRelay, SendMafiaRelay
from lepromafia.engine.errors import ErrorCode

from ..cast import CONSIGLIERE, PROCURATOR, when
from .helpers import OTHER, TOWN, decision, two_towns


def with_godfathers():
    """alice and fred elect themselves on Night 1; Day 2 morning."""
    g = two_towns()
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 1, "01:00")
    g.at_night(VoteGodfather(actor="fred", candidate="fred"), 1, "01:00")
    g.to(2, "10:00")
    assert g.state.cities[OTHER].godfather == "fred"
    return g


def test_a_gift_travels_only_through_the_consigliere_who_reviews_it():
    """MAFIA-COMM-1, MAFIA-COMM-2, SEC-5: no direct channel; the Godfather sees no names."""
    g = with_godfathers()
    g.do(SendMafiaRelay(actor="alice", to_city=OTHER, kind="gift", text="за гастроли"), 2, "11:00")
    sent = g.events_of(hev.MafiaRelaySubmitted)[-1]
    assert sent.audience.users == {"alice", CONSIGLIERE}  # not fred, not the Procurator
    assert g.events_of(hev.MafiaRelayDelivered) == []
    g.reject(ReviewMafiaRelay(actor=PROCURATOR, relay=1, approve=True), when(2, "11:30"),
             ErrorCode.NOT_CONSIGLIERE)
    g.do(ReviewMafiaRelay(actor=CONSIGLIERE, relay=1, approve=True), 2, "11:30")
    reviewed = decision(g, hev.MafiaRelayReviewed)
    assert reviewed.approved and reviewed.audience.users == {"alice", CONSIGLIERE}
    (delivered,) = g.events_of(hev.MafiaRelayDelivered)
    assert delivered.audience.users == {"fred", CONSIGLIERE}
    assert (delivered.from_city, delivered.kind) == (TOWN, "gift")
    assert "alice" not in repr(delivered)
    g.reject(ReviewMafiaRelay(actor=CONSIGLIERE, relay=1, approve=False, reason="x"),
             when(2, "11:35"), ErrorCode.ALREADY_DECIDED)


def test_the_consigliere_may_reject_a_message_that_hints_at_statuses():
    """MAFIA-COMM-1, MAFIA-COMM-3: filtering is the Consigliere's judgement, on the record."""
    g = with_godfathers()
    g.do(SendMafiaRelay(actor="alice", to_city=OTHER, kind="message",
                        text="наш комиссар — bob"), 2, "11:00")
    g.reject(ReviewMafiaRelay(actor=CONSIGLIERE, relay=1, approve=False), when(2, "11:10"),
             ErrorCode.REASON_REQUIRED)
    g.do(ReviewMafiaRelay(actor=CONSIGLIERE, relay=1, approve=False,
                          reason="names a resident's status"), 2, "11:10")
    assert not decision(g, hev.MafiaRelayReviewed).approved
    assert g.events_of(hev.MafiaRelayDelivered) == []
    g.do(SendMafiaRelay(actor="alice", to_city=OTHER, kind="fish"), 2, "11:20")
    g.do(ReviewMafiaRelay(actor=CONSIGLIERE, relay=2, approve=True), 2, "11:25")
    assert g.events_of(hev.MafiaRelayDelivered)[-1].kind == "fish"


def test_bad_relays_are_rejected():
    """MAFIA-COMM-1: a living mafioso, another city, a known kind; a Godfather to receive."""
    g = two_towns()
    at = when(1, "12:00")
    g.reject(SendMafiaRelay(actor="bob", to_city=OTHER, kind="gift"), at, ErrorCode.NOT_MAFIOSO)
    g.reject(SendMafiaRelay(actor="alice", to_city=TOWN, kind="gift"), at, ErrorCode.RELAY_INVALID)
    g.reject(SendMafiaRelay(actor="alice", to_city=OTHER, kind="bomb"), at, ErrorCode.RELAY_INVALID)
    g.reject(SendMafiaRelay(actor="alice", to_city="Атлантида", kind="gift"), at,
             ErrorCode.UNKNOWN_CITY)
    g.reject(SendMafiaRelay(actor="alice", to_city=OTHER, kind="message", text=" "), at,
             ErrorCode.MESSAGE_EMPTY)
    g.do(SendMafiaRelay(actor="alice", to_city=OTHER, kind="gift"), 1, "12:00")
    g.reject(ReviewMafiaRelay(actor=CONSIGLIERE, relay=1, approve=True), when(1, "12:05"),
             ErrorCode.NO_GODFATHER_TO_RECEIVE)  # Day 1: no Godfather elected yet
    g.reject(ReviewMafiaRelay(actor=CONSIGLIERE, relay=9, approve=True), when(1, "12:05"),
             ErrorCode.UNKNOWN_RECORD)
