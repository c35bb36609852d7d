"""The Sound Library: requests a requester can follow, hosts' decisions, published entries."""

from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import Nominate
from lepromafia.engine.commands_host import (
    AnswerSoundRequest,
    ForwardSoundRequest,
    PublishSoundEntry,
    RequestSound,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.records import RequestState

from ..cast import PROCURATOR, TRIBUNES, when
from .helpers import OTHER, TOWN, decision, execute, two_towns

TANYA, TOLYA = TRIBUNES[0], TRIBUNES[1]


def day_two(**settings):
    g = two_towns(**settings)
    g.to(2, "10:00")
    return g


def request_state(g, number):
    return g.state.records.sound_requests[number - 1].state


def test_a_confrontation_goes_citizen_tribune_procurator_and_is_published():
    """ROLE-CIT-5, SOUND-CONF-1, SOUND-CONF-3, HOST-PROC-4, SOUND-1, SOUND-2 (AMB-29)."""
    g = day_two()
    g.do(RequestSound(actor="bob", kind="confrontation", target="carol"), 2, "11:00")
    (asked,) = g.events_of(hev.SoundRequested)
    assert asked.audience.users == {"bob", TANYA} and asked.handler == "tribune"
    assert request_state(g, 1) is RequestState.SUBMITTED
    g.reject(ForwardSoundRequest(actor="bob", request=1), when(2, "11:05"), ErrorCode.NOT_HANDLER)
    g.do(ForwardSoundRequest(actor=TANYA, request=1), 2, "11:05")
    assert decision(g, hev.SoundRequestForwarded).audience.users == {"bob", TANYA, PROCURATOR}
    assert request_state(g, 1) is RequestState.FORWARDED
    g.reject(AnswerSoundRequest(actor=TANYA, request=1, accept=True), when(2, "11:10"),
             ErrorCode.NOT_HANDLER)
    g.do(AnswerSoundRequest(actor=PROCURATOR, request=1, accept=True,
                            scheduled_for=when(2, "15:00")), 2, "11:10")
    answered = decision(g, hev.SoundRequestAnswered)
    assert answered.audience.users == {"bob", "carol", TANYA, PROCURATOR}  # step 2: both citizens
    g.reject(PublishSoundEntry(actor=TANYA, kind="confrontation", media="m1", duration_seconds=90,
                               request=1), when(2, "15:05"), ErrorCode.NOT_HANDLER)
    g.do(PublishSoundEntry(actor=PROCURATOR, kind="confrontation", media="m1",
                           duration_seconds=90, request=1), 2, "15:05")
    entry = decision(g, hev.SoundEntryPublished)
    assert entry.audience.public and entry.city == TOWN
    assert (entry.participants, entry.requester, entry.host) == (("bob", "carol"), "bob", PROCURATOR)
    assert request_state(g, 1) is RequestState.DONE


def test_a_confrontation_lasts_at_most_three_minutes():
    """SOUND-CONF-4: 180 seconds is allowed, 181 is not (confrontation_max_minutes).

    SOUND-3: a recording names its media (stored unedited elsewhere) and its length.
    """
    g = day_two()
    g.do(RequestSound(actor="bob", kind="confrontation", target="carol"), 2, "11:00")
    g.do(AnswerSoundRequest(actor=TANYA, request=1, accept=True), 2, "11:05")
    g.reject(PublishSoundEntry(actor=TANYA, kind="confrontation", media=" ", duration_seconds=60,
                               request=1), when(2, "12:00"), ErrorCode.SOUND_REQUEST_INVALID)
    g.reject(PublishSoundEntry(actor=TANYA, kind="confrontation", media="m", duration_seconds=0,
                               request=1), when(2, "12:00"), ErrorCode.SOUND_REQUEST_INVALID)
    g.reject(PublishSoundEntry(actor=TANYA, kind="confrontation", media="m", duration_seconds=181,
                               request=1), when(2, "12:00"), ErrorCode.SOUND_TOO_LONG)
    g.do(PublishSoundEntry(actor=TANYA, kind="confrontation", media="m", duration_seconds=180,
                           request=1), 2, "12:00")
    assert decision(g, hev.SoundEntryPublished).host == TANYA  # SOUND-CONF-2: the Tribune ran it


def test_confronting_a_citizen_of_another_city_goes_to_that_citys_tribune_and_library():
    """SOUND-CONF-6, SOUND-CONF-2, AMB-28: tolya brokers it; Лепросицилия's library has it."""
    g = day_two()
    g.do(RequestSound(actor="bob", kind="confrontation", target="gina"), 2, "11:00")
    asked = g.events_of(hev.SoundRequested)[-1]
    assert asked.audience.users == {"bob", TOLYA} and asked.city == OTHER
    g.reject(AnswerSoundRequest(actor=TANYA, request=1, accept=True), when(2, "11:05"),
             ErrorCode.NOT_HANDLER)
    g.do(AnswerSoundRequest(actor=TOLYA, request=1, accept=True), 2, "11:05")
    g.do(PublishSoundEntry(actor=TOLYA, kind="confrontation", media="m", duration_seconds=60,
                           request=1, notes="platform call, no numbers exchanged"), 2, "13:00")
    entry = decision(g, hev.SoundEntryPublished)
    assert entry.city == OTHER and entry.participants == ("bob", "gina")
    # SOUND-CONF-7: the technical procedure is the hosts' own; the engine keeps their notes.
    assert entry.notes == "platform call, no numbers exchanged"


def test_a_refused_or_missed_confrontation_is_published_as_such():
    """SOUND-CONF-3 (AMB-28): the target is expected; a refusal is published, without media."""
    g = day_two()
    g.do(RequestSound(actor="bob", kind="confrontation", target="carol"), 2, "11:00")
    g.do(AnswerSoundRequest(actor=TANYA, request=1, accept=True), 2, "11:05")
    g.reject(PublishSoundEntry(actor=TANYA, kind="confrontation", media="m", duration_seconds=0,
                               request=1, outcome="refused"), when(2, "12:00"),
             ErrorCode.SOUND_REQUEST_INVALID)
    g.do(PublishSoundEntry(actor=TANYA, kind="confrontation", media="", duration_seconds=0,
                           request=1, outcome="refused"), 2, "12:00")
    assert decision(g, hev.SoundEntryPublished).outcome == "refused"


def test_bad_confrontation_requests_are_rejected():
    """ROLE-DEAD-3, SOUND-CONF-1, SOUND-CONF-3: living citizens, another living party, a request."""
    g = day_two()
    at = when(2, "11:00")
    g.reject(RequestSound(actor="bob", kind="confrontation", target="bob"), at,
             ErrorCode.SOUND_REQUEST_INVALID)
    g.reject(RequestSound(actor="bob", kind="karaoke", target="carol"), at,
             ErrorCode.SOUND_REQUEST_INVALID)
    g.reject(RequestSound(actor=TANYA, kind="confrontation", target="carol"), at,
             ErrorCode.NOT_RESIDENT)
    g.reject(PublishSoundEntry(actor=TANYA, kind="confrontation", media="m", duration_seconds=60,
                               participants=("bob", "carol")), at, ErrorCode.SOUND_REQUEST_INVALID)
    g.reject(AnswerSoundRequest(actor=TANYA, request=4, accept=True), at, ErrorCode.UNKNOWN_RECORD)
    execute(g, "carol")
    g.reject(RequestSound(actor="carol", kind="confrontation", target="bob"), when(3, "11:00"),
             ErrorCode.NOT_ALIVE)
    g.reject(RequestSound(actor="bob", kind="confrontation", target="carol"), when(3, "11:00"),
             ErrorCode.SOUND_REQUEST_INVALID)


def test_interrogations_are_the_hosts_to_start_or_to_grant():
    """SOUND-INT-1, SOUND-INT-2, SOUND-INT-3, HOST-PROC-4."""
    g = day_two()
    g.do(PublishSoundEntry(actor=TANYA, kind="interrogation", media="i1", duration_seconds=600,
                           participants=("dave",)), 2, "11:00")
    entry = decision(g, hev.SoundEntryPublished)
    assert (entry.city, entry.requester, entry.rule) == (TOWN, None, "SOUND-INT-1")
    g.reject(PublishSoundEntry(actor=TOLYA, kind="interrogation", media="i2", duration_seconds=60,
                               participants=("dave",)), when(2, "11:05"), ErrorCode.NOT_HANDLER)
    g.do(RequestSound(actor="bob", kind="interrogation", target="dave", to_procurator=True,
                      note="he hides something"), 2, "11:10")
    assert g.events_of(hev.SoundRequested)[-1].audience.users == {"bob", PROCURATOR}
    g.reject(AnswerSoundRequest(actor=PROCURATOR, request=1, accept=False), when(2, "11:20"),
             ErrorCode.REASON_REQUIRED)
    g.do(AnswerSoundRequest(actor=PROCURATOR, request=1, accept=False, reason="already done"),
         2, "11:20")
    declined = decision(g, hev.SoundRequestAnswered)
    assert not declined.accepted and declined.audience.users == {"bob", PROCURATOR}
    assert request_state(g, 1) is RequestState.DECLINED
    g.reject(AnswerSoundRequest(actor=PROCURATOR, request=1, accept=True), when(2, "11:25"),
             ErrorCode.NOT_HANDLER)


def test_the_last_word_is_inalienable_while_the_voting_inbox_lives():
    """SOUND-LW-1, SOUND-LW-2, SOUND-LW-4, SOUND-LW-5, EXEC-12."""
    g = day_two()
    g.reject(RequestSound(actor="carol", kind="last_word"), when(2, "11:00"),
             ErrorCode.SOUND_REQUEST_INVALID)  # not nominated
    g.do(Nominate(actor="bob", candidate="carol"), 2, "11:30")
    g.do(RequestSound(actor="carol", kind="last_word"), 2, "12:00")
    assert not g.events_of(hev.SoundRequested)[-1].inalienable  # the voting inbox is not open yet
    g.do(AnswerSoundRequest(actor=TANYA, request=1, accept=False, reason="ask again at 20:00"),
         2, "12:05")
    g.to(2, "20:00")
    g.do(RequestSound(actor="carol", kind="last_word"), 2, "20:10")
    assert g.events_of(hev.SoundRequested)[-1].inalienable
    g.reject(AnswerSoundRequest(actor=TANYA, request=2, accept=False, reason="busy"),
             when(2, "20:15"), ErrorCode.LAST_WORD_INALIENABLE)
    g.do(AnswerSoundRequest(actor=TANYA, request=2, accept=True), 2, "20:15")
    g.reject(PublishSoundEntry(actor=TANYA, kind="last_word", media="lw", duration_seconds=181,
                               request=2), when(2, "20:30"), ErrorCode.SOUND_TOO_LONG)
    g.do(PublishSoundEntry(actor=TANYA, kind="last_word", media="lw", duration_seconds=180,
                           request=2), 2, "20:30")
    entry = decision(g, hev.SoundEntryPublished)
    assert (entry.kind, entry.rule, entry.participants) == ("last_word", "SOUND-LW-2", ("carol",))


def test_a_candidate_may_always_record_his_last_word_himself():
    """SOUND-LW-3, SOUND-LW-5: no host needed; it is his act, not a host's decision."""
    g = day_two()
    g.reject(PublishSoundEntry(actor="carol", kind="last_word", media="self", duration_seconds=60),
             when(2, "20:10"), ErrorCode.SOUND_REQUEST_INVALID)
    g.do(Nominate(actor="bob", candidate="carol"), 2, "11:30")
    g.to(2, "20:00")
    audit_before = len(g.state.records.audit)
    g.do(PublishSoundEntry(actor="carol", kind="last_word", media="self", duration_seconds=175),
         2, "20:10")
    entry = g.events_of(hev.SoundEntryPublished)[-1]
    assert (entry.host, entry.rule, entry.requester) == ("carol", "SOUND-LW-3", "carol")
    assert len(g.state.records.audit) == audit_before


def test_a_seance_is_asked_of_the_procurator_by_the_cemetery_and_published_in_its_city():
    """ROLE-DEAD-2, SOUND-SEANCE-1, SOUND-SEANCE-2, SOUND-SEANCE-3, HOST-PROC-6."""
    g = day_two()
    execute(g, "carol")
    at = when(3, "11:00")
    g.reject(RequestSound(actor="bob", kind="seance", form="acoustic"), at, ErrorCode.NOT_IN_CEMETERY)
    g.reject(RequestSound(actor="carol", kind="seance", form="smell"), at,
             ErrorCode.SOUND_REQUEST_INVALID)
    g.do(RequestSound(actor="carol", kind="seance", form="visual"), 3, "11:00")
    asked = g.events_of(hev.SoundRequested)[-1]
    assert asked.audience.users == {"carol", PROCURATOR} and asked.handler == "procurator"
    g.reject(ForwardSoundRequest(actor=TANYA, request=1), at, ErrorCode.NOT_HANDLER)
    g.do(AnswerSoundRequest(actor=PROCURATOR, request=1, accept=True), 3, "11:05")
    assert decision(g, hev.SoundRequestAnswered).rule == "SOUND-SEANCE-1"
    g.do(PublishSoundEntry(actor=PROCURATOR, kind="seance", media="video-1", duration_seconds=42,
                           request=1), 3, "12:00")
    entry = decision(g, hev.SoundEntryPublished)
    assert entry.city == TOWN and entry.participants == ("carol",)


def test_the_procurator_may_hold_a_seance_on_his_own_initiative():
    """HOST-PROC-4, SOUND-SEANCE-2: an acoustic séance is the Procurator's."""
    g = day_two()
    execute(g, "carol")
    g.reject(PublishSoundEntry(actor=TANYA, kind="seance", media="a", duration_seconds=30,
                               participants=("carol",)), when(3, "11:00"), ErrorCode.NOT_PROCURATOR)
    g.reject(PublishSoundEntry(actor=PROCURATOR, kind="seance", media="a", duration_seconds=30,
                               participants=("bob",)), when(3, "11:00"), ErrorCode.NOT_IN_CEMETERY)
    g.do(PublishSoundEntry(actor=PROCURATOR, kind="seance", media="a", duration_seconds=30,
                           participants=("carol",)), 3, "11:00")
    assert decision(g, hev.SoundEntryPublished).rule == "HOST-PROC-4"


def test_a_city_only_library_is_heard_by_its_residents_and_the_hosts():
    """SOUND-2 (AMB-29): sound_library_visibility = city_only."""
    g = day_two(sound_library_visibility="city_only")
    g.do(PublishSoundEntry(actor=TANYA, kind="interrogation", media="i", duration_seconds=60,
                           participants=("dave",)), 2, "11:00")
    entry = decision(g, hev.SoundEntryPublished)
    assert not entry.audience.public
    assert {"alice", "bob", "carol", "dave", "erin", TANYA, TOLYA, PROCURATOR} <= entry.audience.users
    assert "gina" not in entry.audience.users
