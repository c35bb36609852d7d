"""The inter-city mafia relay through the Consigliere (MAFIA-COMM-1, MAFIA-COMM-2, MAFIA-COMM-3, SEC-5).

A gift or a fish answers a tour: «Мафия, довольная (недовольная) работой на гастролях мафии
другого города» — only the mafia of a city the receiving city's mafia toured may send one.
"""

from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import DeclareKill, VoteGodfather
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


def after_a_tour():
    """Лепроград tours first (TOUR-2): on Night 2 alice's mafia kills gina of Лепросицилия;
    Day 3 morning."""
    g = with_godfathers()
    g.to_night(2, "01:00")
    assert g.state.touring_city == TOWN
    g.at_night(DeclareKill(actor="alice", target="gina", tour=True), 2, "01:00")
    g.to(3, "10:00")
    assert not g.state.residents["gina"].alive
    return g


def test_a_gift_travels_only_through_the_consigliere_who_reviews_it():
    """MAFIA-COMM-1, MAFIA-COMM-2, SEC-5: fred's mafia thanks Лепроград's for its tour; no
    direct channel; the Godfather sees no names."""
    g = after_a_tour()
    g.do(SendMafiaRelay(actor="fred", to_city=TOWN, kind="gift", text="за гастроли"), 3, "11:00")
    sent = g.events_of(hev.MafiaRelaySubmitted)[-1]
    assert sent.audience.users == {"fred", CONSIGLIERE}  # not alice, not the Procurator
    assert g.events_of(hev.MafiaRelayDelivered) == []
    g.reject(ReviewMafiaRelay(actor=PROCURATOR, relay=1, approve=True), when(3, "11:30"),
             ErrorCode.NOT_CONSIGLIERE)
    g.do(ReviewMafiaRelay(actor=CONSIGLIERE, relay=1, approve=True), 3, "11:30")
    reviewed = decision(g, hev.MafiaRelayReviewed)
    assert reviewed.approved and reviewed.audience.users == {"fred", CONSIGLIERE}
    (delivered,) = g.events_of(hev.MafiaRelayDelivered)
    assert delivered.audience.users == {"alice", CONSIGLIERE}
    assert (delivered.from_city, delivered.kind) == (OTHER, "gift")
    assert "fred" not in repr(delivered)
    g.reject(ReviewMafiaRelay(actor=CONSIGLIERE, relay=1, approve=False, reason="x"),
             when(3, "11:35"), ErrorCode.ALREADY_DECIDED)


def test_a_gift_or_a_fish_needs_a_tour_into_the_sender_s_city_MAFIA_COMM_2_MAFIA_COMM_3():
    """MAFIA-COMM-2, MAFIA-COMM-3: before any tour, and from the touring mafia itself (nobody
    toured into Лепроград), a gift or a fish is relay_invalid and nothing is submitted; a
    message needs no tour; after the tour fred's fish goes through."""
    g = with_godfathers()
    for kind in ("gift", "fish"):
        g.reject(SendMafiaRelay(actor="fred", to_city=TOWN, kind=kind), when(2, "11:00"),
                 ErrorCode.RELAY_INVALID)
    g.do(SendMafiaRelay(actor="fred", to_city=TOWN, kind="message", text="привет"), 2, "11:00")
    g = after_a_tour()
    g.reject(SendMafiaRelay(actor="alice", to_city=OTHER, kind="gift"), when(3, "11:00"),
             ErrorCode.RELAY_INVALID)
    assert g.state.records.relays == ()
    g.do(SendMafiaRelay(actor="fred", to_city=TOWN, kind="fish"), 3, "11:00")
    assert g.state.records.relays[-1].kind == "fish"


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
    g.do(SendMafiaRelay(actor="alice", to_city=OTHER, kind="message", text="мир"), 2, "11:20")
    g.do(ReviewMafiaRelay(actor=CONSIGLIERE, relay=2, approve=True), 2, "11:25")
    assert g.events_of(hev.MafiaRelayDelivered)[-1].kind == "message"


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
    g.do(SendMafiaRelay(actor="alice", to_city=OTHER, kind="message", text="привет"), 1, "12:00")
    g.reject(ReviewMafiaRelay(actor=CONSIGLIERE, relay=1, approve=True), when(1, "12:05"),
             ErrorCode.NO_GODFATHER_TO_RECEIVE)  # Day 1: no Godfather elected yet
    g.reject(ReviewMafiaRelay(actor=CONSIGLIERE, relay=9, approve=True), when(1, "12:05"),
             ErrorCode.UNKNOWN_RECORD)
