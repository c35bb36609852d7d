"""Private-prosecution cases and the Arbiter's inbox bans (HOST-ARB-3, AMB-34, INBOX-GEN-4)."""

from dataclasses import replace

from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import CreateSecretInbox, Nominate, PostMessage
from lepromafia.engine.commands_host import DecidePrivateCase, FilePrivateCase, LiftInboxBan
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, Kind, access, can_post
from lepromafia.engine.records import MessageRef
from lepromafia.engine.rules.cases import HOST_ORGANIZED, bannable_kinds
from lepromafia.engine.settings import GameSettings

from ..cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, when
from .helpers import TOWN, decision, town

TANYA = TRIBUNES[0]


def insulted():
    """Day 2: dave insults bob in the city inbox; bob files a case with the link."""
    g = town()
    g.to(2, "10:00")
    box = g.inbox("city", TOWN)
    g.do(PostMessage(actor="dave", inbox=box, text="bob — рыба безмозглая"), 2, "11:00")
    ref = MessageRef(inbox=box, seq=len(g.table.events) - 1)
    g.do(FilePrivateCase(actor="bob", accused="dave", charge="insult", text="see the link",
                         evidence=(ref,)), 2, "11:10")
    return g, ref


def test_a_case_file_is_read_by_the_arbiter_and_the_parties_only():
    """HOST-ARB-3, PLAYER-5, §9.2: an insult becomes a case; the Arbiter sees the linked message."""
    g, ref = insulted()
    filed = g.events_of(hev.PrivateCaseFiled)[-1]
    assert filed.audience.users == {ARBITER, "bob", "dave"}
    assert g.state.records.granted(ARBITER, ref)
    at = when(2, "11:20")
    g.reject(FilePrivateCase(actor=CONSIGLIERE, accused="dave", charge="insult", text="x"), at,
             ErrorCode.NOT_A_PARTICIPANT)  # HOST-CONS-5: he is an outsider like any other
    g.reject(FilePrivateCase(actor="bob", accused="bob", charge="insult", text="x"), at,
             ErrorCode.NOT_A_PARTICIPANT)
    g.reject(FilePrivateCase(actor="bob", accused="dave", charge="rudeness", text="x"), at,
             ErrorCode.DECISION_INVALID)
    g.reject(FilePrivateCase(actor="bob", accused="dave", charge="slander", text="x",
                             evidence=(MessageRef(inbox=g.inbox("mafia", TOWN), seq=1),)), at,
             ErrorCode.EVIDENCE_INVALID)


def test_the_arbiter_bans_the_offender_in_the_city_inbox_for_a_set_time_renewals_included():
    """HOST-ARB-3, INBOX-GEN-4, INBOX-CITY-4: read-only until the end, then writing again."""
    g, _ = insulted()
    box = g.inbox("city", TOWN)
    g.do(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(box,),
                           until=when(3, "12:00"), reason="a plain insult"), 2, "12:00")
    decided = decision(g, hev.PrivateCaseDecided)
    assert decided.audience.users == {ARBITER, "bob", "dave", TANYA}
    ban = decision(g, hev.InboxBanImposed)
    assert ban.organizer == TANYA and ban.audience.users == {ARBITER, "bob", "dave", TANYA}
    assert access(g.state, box, "dave", now=when(2, "12:01")) is Access.READ
    g.reject(PostMessage(actor="dave", inbox=box, text="sorry"), when(2, "12:30"),
             ErrorCode.INBOX_READ_ONLY)
    g.do(Nominate(actor="dave", candidate="carol"), 2, "12:30")  # votes and nominations untouched
    g.to(3, "11:59")
    renewed = g.inbox("city", TOWN)
    assert renewed != box  # the ban follows the renewal
    g.reject(PostMessage(actor="dave", inbox=renewed, text="sorry"), when(3, "11:59"),
             ErrorCode.INBOX_READ_ONLY)
    g.do(PostMessage(actor="dave", inbox=renewed, text="sorry"), 3, "12:00")
    assert can_post(g.state, renewed, "dave", now=when(3, "12:00"))


def test_a_ban_can_be_lifted_early():
    """HOST-ARB-3: lifting is a recorded decision too."""
    g, _ = insulted()
    box = g.inbox("city", TOWN)
    g.reject(LiftInboxBan(actor=ARBITER, case=1, reason="x"), when(2, "11:30"),
             ErrorCode.ALREADY_DECIDED)  # nothing to lift yet
    g.do(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(box,),
                           until=when(4, "12:00"), reason="insult"), 2, "12:00")
    g.reject(LiftInboxBan(actor=PROCURATOR, case=1, reason="x"), when(2, "13:00"),
             ErrorCode.NOT_ARBITER)
    g.do(LiftInboxBan(actor=ARBITER, case=1, reason="bob forgave him"), 2, "13:00")
    assert decision(g, hev.InboxBanLifted).audience.users == {ARBITER, "bob", "dave", TANYA}
    g.do(PostMessage(actor="dave", inbox=box, text="thanks"), 2, "13:05")


def test_a_ban_may_cover_any_inbox_a_tribune_or_the_procurator_organizes_never_a_secret_one():
    """HOST-ARB-3 (D24): «бан в одном или нескольких инбоксах, который исполняет Трибун или
    Прокуратор (в зависимости от организатора инбокса)» — the personal inbox included."""
    g, _ = insulted()
    g.do(CreateSecretInbox(actor="dave", title="tea", members=("erin",), key="0000000000000001"), 2, "11:30")
    secret = next(i for i in g.state.inboxes if i.startswith("secret:"))
    g.reject(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(secret,),
                               until=when(3, "12:00"), reason="x"), when(2, "12:00"),
             ErrorCode.BAN_NOT_ALLOWED)
    personal = g.inbox("personal", "dave")
    g.do(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(personal,),
                           until=when(3, "12:00"), reason="insults the Tribune"), 2, "12:00")
    assert decision(g, hev.InboxBanImposed).organizer == TANYA
    assert access(g.state, personal, "dave", now=when(2, "12:01")) is Access.READ


def test_the_narrow_scope_keeps_bans_out_of_voting_and_personal_inboxes():
    """HOST-ARB-3 (AMB-34 option): arbiter_ban_scope = city_inbox_cemetery."""
    g = town(arbiter_ban_scope="city_inbox_cemetery")
    g.to(2, "10:00")
    g.do(FilePrivateCase(actor="bob", accused="dave", charge="insult", text="x"), 2, "11:00")
    g.reject(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(g.inbox("personal", "dave"),),
                               until=when(3, "12:00"), reason="x"), when(2, "12:00"),
             ErrorCode.BAN_NOT_ALLOWED)
    assert access(g.state, g.inbox("personal", "dave"), "dave", now=g.now) is Access.WRITE


def test_the_ban_scope_settings():
    """HOST-ARB-3 (AMB-34): the options add the Police Station and impeachment, or vote inboxes."""
    base = GameSettings()
    g, _ = insulted()
    state = g.state
    assert bannable_kinds(state) == set(HOST_ORGANIZED)
    assert Kind.SECRET not in bannable_kinds(state) and Kind.COURT not in bannable_kinds(state)
    narrow = replace(state, settings=replace(base, arbiter_ban_scope="city_inbox_cemetery"))
    assert bannable_kinds(narrow) == {Kind.CITY, Kind.CEMETERY}
    base = narrow.settings
    wider = replace(state, settings=replace(base, arbiter_ban_scope="plus_police_impeachment"))
    assert bannable_kinds(wider) == {Kind.CITY, Kind.CEMETERY, Kind.POLICE, Kind.IMPEACHMENT}
    voting = replace(state, settings=replace(base, arbiter_bans_in_voting=True))
    assert {Kind.VOTING, Kind.POLLING, Kind.COURT, Kind.PERSONAL} <= bannable_kinds(voting)
    assert Kind.SECRET not in bannable_kinds(voting)


def test_with_bans_in_voting_allowed_the_arbiter_may_ban_in_a_voting_inbox():
    """HOST-ARB-3: arbiter_bans_in_voting = true (a house rule)."""
    g = town(arbiter_bans_in_voting=True)
    g.to(2, "10:00")
    g.do(FilePrivateCase(actor="bob", accused="dave", charge="insult", text="x"), 2, "11:00")
    g.do(Nominate(actor="bob", candidate="carol"), 2, "11:30")
    g.to(2, "20:00")
    voting = g.voting_inbox(TOWN, "carol")
    g.do(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(voting,),
                           until=when(2, "23:00"), reason="flood with insults"), 2, "20:10")
    g.reject(PostMessage(actor="dave", inbox=voting, text="казнить"), when(2, "20:20"),
             ErrorCode.INBOX_READ_ONLY)


def test_bad_decisions_are_rejected():
    """HOST-ARB-3: only the Arbiter decides, once, with reasons; only the guilty are banned."""
    g, _ = insulted()
    box = g.inbox("city", TOWN)
    at = when(2, "12:00")
    g.reject(DecidePrivateCase(actor=TANYA, case=1, guilty=False, reason="x"), at,
             ErrorCode.NOT_ARBITER)
    g.reject(DecidePrivateCase(actor=ARBITER, case=1, guilty=False, reason=""), at,
             ErrorCode.REASON_REQUIRED)
    g.reject(DecidePrivateCase(actor=ARBITER, case=1, guilty=False, inboxes=(box,),
                               until=when(3, "12:00"), reason="x"), at, ErrorCode.DECISION_INVALID)
    g.reject(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, inboxes=(box,),
                               until=when(2, "11:00"), reason="x"), at, ErrorCode.DECISION_INVALID)
    g.reject(DecidePrivateCase(actor=ARBITER, case=3, guilty=True, reason="x"), at,
             ErrorCode.UNKNOWN_RECORD)
    g.do(DecidePrivateCase(actor=ARBITER, case=1, guilty=False, reason="banter, not insult"),
         2, "12:00")
    assert decision(g, hev.PrivateCaseDecided).audience.users == {ARBITER, "bob", "dave"}
    g.reject(DecidePrivateCase(actor=ARBITER, case=1, guilty=True, reason="x"), at,
             ErrorCode.ALREADY_DECIDED)
