"""Impeachment of a Tribune and no-confidence in the Arbiter or the Consigliere."""

from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import PostMessage
from lepromafia.engine.commands_host import (
    DecideImpeachment,
    DecideNoConfidence,
    ExpressNoConfidence,
    LinkEvidence,
    RevealSealedRecord,
    SignImpeachment,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access
from lepromafia.engine.records import MessageRef
from lepromafia.engine.rules.cases import needed_signatures
from lepromafia.engine.state import Stage

from ..cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game, when
from .helpers import TOWN, decision, execute, town

TANYA, NEW = TRIBUNES[0], TRIBUNES[1]
TEN = "alice bob carol dave erin frank gina hugo ivan jane"


def test_the_threshold_is_thirty_percent_of_the_living_rounded_up():
    """IMPEACH-1 (AMB-37), EX-42: 17 living → 6 citizens; 10 living → 3."""
    seventeen = " ".join(f"r{i}" for i in range(17))
    assert needed_signatures(Game({TOWN: seventeen}).form().state, TOWN) == 6
    assert needed_signatures(Game({TOWN: TEN}).form().state, TOWN) == 3


def impeached(**settings):
    """Лепроград of ten (alice, bob mafia); bob, carol and alice sign on Day 2."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}, settings=settings).start()
    g.to(2, "10:00")
    g.do(SignImpeachment(actor="carol", grievance="tanya nudges votes"), 2, "11:00")
    g.do(SignImpeachment(actor="dave"), 2, "11:05")
    g.do(SignImpeachment(actor="alice"), 2, "11:10")  # a mafioso counts as a citizen
    return g


def test_signatures_reach_the_procurator_and_at_the_threshold_the_inbox_opens():
    """IMPEACH-1, IMPEACH-4, HOST-TRIB-4, HOST-PROC-6: initiators write, all others read."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).start()
    g.to(2, "10:00")
    g.do(SignImpeachment(actor="carol", grievance="tanya nudges votes"), 2, "11:00")
    first = g.events_of(hev.ImpeachmentSigned)[-1]
    assert first.audience.users == {PROCURATOR, "carol"} and (first.signatures, first.needed) == (1, 3)
    g.reject(SignImpeachment(actor="carol"), when(2, "11:01"), ErrorCode.ALREADY_SIGNED)
    g.reject(SignImpeachment(actor=TANYA), when(2, "11:01"), ErrorCode.NOT_RESIDENT)
    g.do(SignImpeachment(actor="dave"), 2, "11:05")
    assert g.events_of(hev.ImpeachmentDemanded) == []
    g.do(SignImpeachment(actor="alice"), 2, "11:10")
    (demand,) = g.events_of(hev.ImpeachmentDemanded)
    assert demand.initiators == ("carol", "dave", "alice") and demand.tribune == TANYA
    assert demand.audience.users == set(TEN.split()) | {PROCURATOR, TANYA}
    box = g.inbox("impeachment", TOWN)
    assert access(g.state, box, "carol", now=g.now) is Access.WRITE
    assert access(g.state, box, "erin", now=g.now) is Access.READ
    assert access(g.state, box, PROCURATOR, now=g.now) is Access.WRITE
    assert access(g.state, box, TANYA, now=g.now) is Access.NONE
    g.reject(SignImpeachment(actor="erin"), when(2, "11:15"), ErrorCode.IMPEACHMENT_OPEN)


def test_the_dead_cannot_sign():
    """IMPEACH-1 (AMB-37): signers must be alive."""
    g = town()
    execute(g, "carol")
    g.reject(SignImpeachment(actor="carol"), when(3, "11:00"), ErrorCode.NOT_ALIVE)


def test_evidence_is_links_to_single_messages_shown_to_the_procurator_only():
    """IMPEACH-2, SEC-12: read access to exactly the linked messages, nothing else."""
    g = impeached()
    city_box = g.inbox("city", TOWN)
    g.do(PostMessage(actor=TANYA, inbox=city_box, text="Голосуйте против erin"), 2, "11:20")
    seq = len(g.table.events) - 1
    ref = MessageRef(inbox=city_box, seq=seq)
    g.reject(LinkEvidence(actor="erin", case="impeachment:1", messages=(ref,)), when(2, "11:30"),
             ErrorCode.UNKNOWN_RECORD)  # not an initiator
    mafia_box = g.inbox("mafia", TOWN)
    g.reject(LinkEvidence(actor="carol", case="impeachment:1",
                          messages=(MessageRef(inbox=mafia_box, seq=seq),)),
             when(2, "11:30"), ErrorCode.EVIDENCE_INVALID)  # carol cannot read it
    g.reject(LinkEvidence(actor="carol", case="impeachment:1",
                          messages=(MessageRef(inbox=city_box, seq=-1),)),
             when(2, "11:30"), ErrorCode.EVIDENCE_INVALID)  # no such position (the service checks
    # that a link names a message of that inbox: the engine keeps no message log)
    g.reject(LinkEvidence(actor="carol", case="impeachment:1", messages=()), when(2, "11:30"),
             ErrorCode.EVIDENCE_INVALID)
    g.do(LinkEvidence(actor="carol", case="impeachment:1", messages=(ref,)), 2, "11:30")
    linked = g.events_of(hev.EvidenceLinked)[-1]
    assert linked.audience.users == {"carol", PROCURATOR}
    assert g.state.records.granted(PROCURATOR, ref)
    assert not g.state.records.granted(PROCURATOR, MessageRef(inbox=city_box, seq=seq - 1))
    assert not g.state.records.granted("erin", ref)


def test_the_procurator_replaces_the_tribune_who_takes_over_every_city_inbox():
    """IMPEACH-2, IMPEACH-6, HOST-TRIB-1: decided on the record; the new Tribune organizes."""
    g = impeached()
    at = when(2, "13:00")
    g.reject(DecideImpeachment(actor=TANYA, impeachment=1, outcome="unfounded", reason="x"), at,
             ErrorCode.NOT_PROCURATOR)
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="exile", reason="x"), at,
             ErrorCode.DECISION_INVALID)
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="replace", reason="x"), at,
             ErrorCode.DECISION_INVALID)  # no new Tribune named
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="replace", reason="x",
                               new_tribune="erin"), at, ErrorCode.HOST_CANNOT_PLAY)
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="replace", reason="x",
                               new_tribune=CONSIGLIERE), at, ErrorCode.DECISION_INVALID)
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="replace", reason="",
                               new_tribune=NEW), at, ErrorCode.REASON_REQUIRED)
    g.do(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="replace", new_tribune=NEW,
                           reason="the explanation in the Office did not convince"), 2, "13:00")
    decided = decision(g, hev.ImpeachmentDecided)
    assert decided.audience.users == set(TEN.split()) | {PROCURATOR, TANYA}
    replaced = decision(g, hev.TribuneReplaced)
    assert replaced.audience.public and (replaced.old, replaced.new) == (TANYA, NEW)
    assert g.state.cities[TOWN].tribune == NEW
    for box in (g.inbox("city", TOWN), g.inbox("personal", "erin")):
        assert access(g.state, box, NEW, now=g.now) is Access.WRITE
        assert access(g.state, box, TANYA, now=g.now) is Access.NONE
    assert access(g.state, g.inbox("office"), TANYA, now=g.now) is Access.NONE
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="unfounded", reason="x"),
             when(2, "13:05"), ErrorCode.ALREADY_DECIDED)
    g.do(SignImpeachment(actor="erin"), 2, "14:00")  # a new demand may follow
    assert g.events_of(hev.ImpeachmentSigned)[-1].audience.users == {PROCURATOR, "erin"}


def test_a_bonus_names_the_bonus_and_unfounded_complaints_are_recorded_too():
    """IMPEACH-2 (AMB-37): a bonus is free text decided by the Procurator."""
    g = impeached()
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="bonus", reason="x"),
             when(2, "13:00"), ErrorCode.DECISION_INVALID)
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="unfounded", reason="x",
                               bonus="a cake"), when(2, "13:00"), ErrorCode.DECISION_INVALID)
    g.do(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="bonus", bonus="one proxy vote",
                           reason="the Tribune was careless, not partial"), 2, "13:00")
    assert decision(g, hev.ImpeachmentDecided).bonus == "one proxy vote"
    g.reject(DecideImpeachment(actor=PROCURATOR, impeachment=5, outcome="unfounded", reason="x"),
             when(2, "13:05"), ErrorCode.UNKNOWN_RECORD)


def test_insignificance_reasons_are_sealed_until_the_procurator_discloses_them_after_the_game():
    """IMPEACH-3, §9.2, §9.4: the consulted Consigliere and the Procurator know the reasons."""
    g = town()
    g.to(2, "10:00")
    g.do(SignImpeachment(actor="bob"), 2, "11:00")
    g.do(SignImpeachment(actor="carol"), 2, "11:05")  # 5 living → 2 needed
    g.do(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="insignificant",
                           reason="a typo in the schedule, fixed at once"), 2, "11:30")
    sealed = decision(g, hev.RecordSealed)
    assert sealed.audience.users == {PROCURATOR, CONSIGLIERE} and sealed.rule == "IMPEACH-3"
    decided = decision(g, hev.ImpeachmentDecided)
    assert "typo" not in decided.reason and decided.sealed_record == sealed.record
    g.reject(RevealSealedRecord(actor=PROCURATOR, record=sealed.record), when(2, "12:00"),
             ErrorCode.RECORD_STILL_SEALED)
    execute(g, "alice")
    assert g.state.stage is Stage.FINISHED
    assert all(e.kind != "impeachment_reasons" for e in g.events_of(hev.RecordOpened))
    at = when(3, "12:00")
    g.reject(RevealSealedRecord(actor=TRIBUNES[0], record=sealed.record), at, ErrorCode.NOT_PROCURATOR)
    g.reject(RevealSealedRecord(actor=PROCURATOR, record=9), at, ErrorCode.UNKNOWN_RECORD)
    g.do(RevealSealedRecord(actor=PROCURATOR, record=sealed.record), 3, "12:00")
    opened = g.events_of(hev.RecordOpened)[-1]
    assert opened.audience.public and dict(opened.content)["reason"].startswith("a typo")
    g.reject(RevealSealedRecord(actor=PROCURATOR, record=sealed.record), at, ErrorCode.ALREADY_DECIDED)


# --- NOCONF ----------------------------------------------------------------------


def test_citizens_may_express_no_confidence_in_the_arbiter():
    """NOCONF-1, HOST-ARB-4: to the Procurator; a justified complaint may bring bonuses."""
    g = town()
    g.to(2, "10:00")
    g.reject(ExpressNoConfidence(actor="bob", target="tribune", text="x"), when(2, "11:00"),
             ErrorCode.DECISION_INVALID)
    g.do(ExpressNoConfidence(actor="bob", target="arbiter", text="the Court post was late"),
         2, "11:00")
    filed = g.events_of(hev.NoConfidenceExpressed)[-1]
    assert filed.audience.users == {PROCURATOR, "bob"} and filed.complainant == "bob"
    g.reject(DecideNoConfidence(actor=ARBITER, complaint=1, justified=False, reason="x"),
             when(2, "12:00"), ErrorCode.NOT_PROCURATOR)
    g.reject(DecideNoConfidence(actor=PROCURATOR, complaint=1, justified=False, reason="x",
                                bonus="cake"), when(2, "12:00"), ErrorCode.DECISION_INVALID)
    g.do(DecideNoConfidence(actor=PROCURATOR, complaint=1, justified=True, bonus="a free proxy",
                            reason="the post was two hours late"), 2, "12:00")
    decided = decision(g, hev.NoConfidenceDecided)
    assert decided.audience.users == {PROCURATOR, "bob"} and decided.rule == "NOCONF-1"
    g.reject(DecideNoConfidence(actor=PROCURATOR, complaint=1, justified=True, reason="x"),
             when(2, "12:05"), ErrorCode.ALREADY_DECIDED)
    g.reject(DecideNoConfidence(actor=PROCURATOR, complaint=4, justified=True, reason="x"),
             when(2, "12:05"), ErrorCode.UNKNOWN_RECORD)


def test_the_mafias_complaint_about_the_consigliere_names_only_its_city():
    """NOCONF-2, HOST-CONS-8, HOST-PROC-7: the Procurator never learns the sender."""
    g = town()
    g.to(2, "10:00")
    g.reject(ExpressNoConfidence(actor="bob", target="consigliere", text="x"), when(2, "11:00"),
             ErrorCode.NOT_MAFIOSO)
    g.do(ExpressNoConfidence(actor="alice", target="consigliere", text="slow answers"), 2, "11:00")
    filed = g.events_of(hev.NoConfidenceExpressed)[-1]
    assert filed.audience.users == {PROCURATOR} and filed.complainant is None
    assert filed.city == TOWN and "alice" not in repr(filed)
    (receipt,) = g.events_of(hev.NoConfidenceReceipt)
    assert receipt.audience.users == {"alice"}
    g.do(DecideNoConfidence(actor=PROCURATOR, complaint=1, justified=False,
                            reason="the Consigliere answered within the hour"), 2, "12:00")
    decided = decision(g, hev.NoConfidenceDecided)
    assert decided.audience.users == {PROCURATOR} and decided.rule == "NOCONF-2"
    (answer,) = g.events_of(hev.NoConfidenceAnswered)
    assert answer.audience.users == {"alice", CONSIGLIERE}

