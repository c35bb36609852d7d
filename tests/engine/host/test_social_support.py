"""Conduct rules the platform supports rather than enforces: the tools that answer a breach.

A Tribune's neutrality (HOST-TRIB-3) and a civil confrontation (SOUND-CONF-5) are norms no
program can judge; what the platform owes is that a breach, once it happens, can be shown
to the host who rules on it, and that his ruling has its effect.
"""

from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import PostMessage
from lepromafia.engine.commands_host import (
    AnswerSoundRequest,
    DecideImpeachment,
    DecidePrivateCase,
    FilePrivateCase,
    ForwardSoundRequest,
    LinkEvidence,
    PublishSoundEntry,
    RequestSound,
    SignImpeachment,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access
from lepromafia.engine.records import MessageRef

from ..cast import ARBITER, PROCURATOR, TRIBUNES, Game, when
from .helpers import TOWN, decision, town

TANYA, NEW = TRIBUNES[0], TRIBUNES[1]
TEN = "alice bob carol dave erin frank gina hugo ivan jane"


def test_a_tribune_who_takes_sides_is_impeached_on_his_own_words():
    """HOST-TRIB-3, HOST-TRIB-4, IMPEACH-2: Tanya campaigns against erin in the city inbox;
    three citizens sign, link her message, and the Procurator replaces her on the record."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).start()
    g.to(2, "10:00")
    city_box = g.inbox("city", TOWN)
    g.do(PostMessage(actor=TANYA, inbox=city_box, text="Я бы на вашем месте казнил erin"), 2, "10:30")
    campaign = MessageRef(inbox=city_box, seq=len(g.table.events) - 1)
    for signer, at in (("carol", "11:00"), ("dave", "11:05"), ("erin", "11:10")):
        g.do(SignImpeachment(actor=signer, grievance="the Tribune takes sides"), 2, at)
    g.do(LinkEvidence(actor="erin", case="impeachment:1", messages=(campaign,)), 2, "11:20")
    assert g.state.records.granted(PROCURATOR, campaign)  # he sees exactly what she wrote
    g.do(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="replace", new_tribune=NEW,
                           reason="a Tribune told the city whom to execute"), 2, "12:00")
    decided = decision(g, hev.ImpeachmentDecided)
    assert decided.reason == "a Tribune told the city whom to execute"
    assert g.state.cities[TOWN].tribune == NEW
    assert access(g.state, g.inbox("city", TOWN), TANYA, now=g.now) is Access.NONE


def test_an_insult_in_a_confrontation_is_judged_by_the_arbiter_from_the_recording():
    """SOUND-CONF-5, SOUND-CONF-1, HOST-ARB-3, PLAYER-5: dave insults bob during their
    confrontation; bob files a case pointing at the published recording and the Arbiter bans
    dave from the city inbox; the recording stays published for everyone."""
    g = town()
    g.to(2, "10:00")
    g.do(RequestSound(actor="bob", kind="confrontation", target="dave"), 2, "10:10")
    g.do(ForwardSoundRequest(actor=TANYA, request=1), 2, "10:15")
    g.do(AnswerSoundRequest(actor=PROCURATOR, request=1, accept=True,
                            scheduled_for=when(2, "15:00")), 2, "10:20")
    g.do(PublishSoundEntry(actor=PROCURATOR, kind="confrontation", media="m1",
                           duration_seconds=170, request=1), 2, "15:05")
    entry = decision(g, hev.SoundEntryPublished)
    assert entry.audience.public and entry.participants == ("bob", "dave")
    city_box = g.inbox("city", TOWN)
    g.do(PostMessage(actor="bob", inbox=city_box, text="Запись очной ставки №1: dave меня оскорбил"),
         2, "15:10")
    pointer = MessageRef(inbox=city_box, seq=len(g.table.events) - 1)
    g.do(FilePrivateCase(actor="bob", accused="dave", charge="insult",
                         text="at 1:40 of the confrontation recording", evidence=(pointer,)),
         2, "15:15")
    assert g.events_of(hev.PrivateCaseFiled)[-1].audience.users == {ARBITER, "bob", "dave"}
    g.do(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(city_box,),
                           until=when(3, "15:00"), reason="an insult during a confrontation"),
         2, "16:00")
    assert decision(g, hev.PrivateCaseDecided).reason == "an insult during a confrontation"
    g.reject(PostMessage(actor="dave", inbox=city_box, text="он первый начал"), when(2, "16:30"),
             ErrorCode.INBOX_READ_ONLY)
    assert g.events_of(hev.SoundEntryPublished)[-1] == entry  # the ruling removes no recording
