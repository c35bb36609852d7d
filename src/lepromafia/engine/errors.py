
"""Typed rule violations: a stable code, its HTTP status and its English message, side by side.

Clients and tests branch on ``code``, never on the message text. The English template is the
gettext msgid: the engine never translates (it is standard library only); the web's catalogs
(``web/locale``) turn it into the reader's language, see ``web.i18n.error_message``.
Every coded error of every layer (``ServiceError``, ``AccountError``, ``MediaError``,
``ArchiveError``, ``WebError``) is a ``CodedError`` whose code enum is a ``CodeEnum``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any


def N_(message: str) -> str:
    """Marks an English message for the catalog (``pybabel extract -k N_``); returns it as is."""
    return message


class CodeEnum(StrEnum):
    """A stable error code (its value) declared with its HTTP ``status`` and its English
    message ``template`` (``str.format`` fields), like zulip's ``http_status_code``."""

    _value_: str
    status: int
    template: str

    def __new__(cls, value: str, status: int = 409, template: str = "") -> CodeEnum:
        member = str.__new__(cls, value)
        member._value_ = value
        member.status = status
        member.template = template
        return member


class CodedError(Exception):
    """A rejection with a stable code, the rule it cites (may be empty) and the fields of its
    message. Nothing changed. ``message(gettext)`` formats the template in a language."""

    headers: dict[str, str]
    """Extra HTTP headers for the response (a 416 names the size it could satisfy)."""

    def __init__(self, code: CodeEnum, rule: str = "", **fields: Any) -> None:
        self.code = code
        self.rule = rule
        self.fields = fields
        self.headers = {}
        super().__init__(f"{code}: {self.message()}")

    @property
    def status(self) -> int:
        return self.code.status

    def message(self, gettext: Callable[[str], str] | None = None) -> str:
        """The message: English, or translated by ``gettext`` (a catalog's lookup). A string
        ``detail`` field is an English phrase (marked ``N_``) and is translated the same way."""
        template = gettext(self.code.template) if gettext else self.code.template
        fields = dict(self.fields)
        if gettext and isinstance(fields.get("detail"), str):
            fields["detail"] = gettext(fields["detail"])
        try:
            return template.format(**fields)
        except (KeyError, IndexError, ValueError):
            return template


class ErrorCode(CodeEnum):
    """Every reason a command can be rejected. Values are stable API strings."""

    # settings and game creation
    INVALID_SETTINGS = "invalid_settings", 422, N_("Invalid game settings: {detail}")
    GAME_EXISTS = "game_exists", 409, N_("The game already exists")
    NO_GAME = "no_game", 404, N_("There is no such game")
    GAME_FINISHED = "game_finished", 409, N_("The game is over")
    # authority and identity
    NOT_PROCURATOR = "not_procurator", 403, N_("Only the Procurator can do this")
    NOT_CONSIGLIERE = "not_consigliere", 403, N_("Only the Consigliere can do this")
    NOT_TRIBUNE = "not_tribune", 403, N_("Only the city's Tribune can do this")
    NOT_RESIDENT = "not_resident", 403, N_("You are not a resident of this game")
    NOT_MAFIOSO = "not_mafioso", 403, N_("Only the mafia can do this")
    NOT_GODFATHER = "not_godfather", 403, N_("Only the Godfather decides this")
    NOT_COMMISSAR = "not_commissar", 403, N_("You are not a commissar")
    NOT_ALIVE = "not_alive", 403, N_("The dead cannot act")
    NOT_A_PARTICIPANT = "not_a_participant", 403, N_("{user} does not take part in this game")
    HOST_CANNOT_PLAY = "host_cannot_play", 403, N_("A host cannot be a resident")
    # recruitment and cities
    WRONG_STAGE = "wrong_stage", 409, N_("Not possible now (stage: {stage})")
    REQUIREMENTS_NOT_ACCEPTED = "requirements_not_accepted", 409, N_("You must accept every player requirement")
    CONTACT_REQUIRED = "contact_required", 409, N_("Give a phone number or Skype name")
    ALREADY_SIGNED_UP = "already_signed_up", 409, N_("You have already signed up")
    NOT_SIGNED_UP = "not_signed_up", 409, N_("{user} has not signed up")
    UNKNOWN_OFFICE = "unknown_office", 409, N_("Unknown office")
    OFFICE_TAKEN = "office_taken", 409, N_("This office is already held")
    CITY_COUNT_MISMATCH = "city_count_mismatch", 409, N_("Number of cities must be {expected}")
    CITY_NAME_INVALID = "city_name_invalid", 409, N_("Invalid city name")
    CITY_NAME_TAKEN = "city_name_taken", 409, N_("City '{city}' already exists")
    CITY_TOO_SMALL = "city_too_small", 409, N_("City '{city}' has too few residents")
    PLAYER_NOT_ASSIGNED = "player_not_assigned", 409, N_("{user} is not assigned to a city")
    PLAYER_ASSIGNED_TWICE = "player_assigned_twice", 409, N_("{user} is assigned twice")
    TRIBUNE_MISSING = "tribune_missing", 409, N_("City '{city}' has no Tribune")
    CONSIGLIERE_MISSING = "consigliere_missing", 409, N_("No Consigliere has been appointed")
    UNKNOWN_CITY = "unknown_city", 404, N_("There is no city '{city}'")
    # the deal
    DEAL_ALREADY_SEALED = "deal_already_sealed", 409, N_("The lists are already sealed")
    DEAL_NOT_SEALED = "deal_not_sealed", 409, N_("The lists are not sealed yet")
    DEAL_LIST_INVALID = "deal_list_invalid", 409, N_("The list of '{city}' is invalid")
    NUMBERS_ALREADY_NAMED = "numbers_already_named", 409, N_("Numbers for '{city}' were already named")
    NUMBERS_INVALID = "numbers_invalid", 409, N_("Name {count} distinct numbers from 1 to {population}")
    DEAL_INCOMPLETE = "deal_incomplete", 409, N_("The deal is not complete")
    DEAL_BY_DRAW = "deal_by_draw", 409, N_("In this game the mafia positions are drawn; no numbers are named")
    DEAL_BY_HAND = "deal_by_hand", 409, N_("In this game the Procurator names the numbers; there is no draw")
    ENTROPY_CLOSED = "entropy_commitments_closed", 409, N_("Commitments to the draw are closed")
    ENTROPY_ALREADY_COMMITTED = "entropy_already_committed", 409, N_("You have already committed to the draw")
    ENTROPY_DIGEST_INVALID = "entropy_digest_invalid", 422, N_("A commitment is a SHA-256: 64 hexadecimal digits")
    ENTROPY_NOT_A_PARTY = "entropy_not_a_party", 403, N_("You did not commit to the draw")
    ENTROPY_PARTIES_MISSING = "entropy_parties_missing", 409, N_("The Procurator and the Consigliere must commit first")
    ENTROPY_REVEALS_NOT_OPEN = "entropy_reveals_not_open", 409, N_("Values cannot be revealed yet: the commitments are still open")
    ENTROPY_ALREADY_REVEALED = "entropy_already_revealed", 409, N_("Your value is already revealed")
    ENTROPY_MISMATCH = "entropy_mismatch", 409, N_("This value does not match your commitment")
    ALREADY_ACKNOWLEDGED = "already_acknowledged", 409, N_("You have already acknowledged your role")
    MAFIA_NOT_ACKNOWLEDGED = "mafia_not_acknowledged", 409, N_(
        "The game can start once every mafioso has acknowledged his role: {count} city(ies) still waiting")
    # calendar
    WRONG_PHASE = "wrong_phase", 409, N_("Not possible in this phase")
    TOO_LATE = "too_late", 409, N_("Too late")
    TOO_EARLY = "too_early", 409, N_("Too early")
    SCHEDULE_INVALID = "schedule_invalid", 409, N_("Invalid schedule: {detail}")
    # nominations and votes
    CITY_DECIDED = "city_decided", 409, N_("The game in this city is decided")
    NO_EXECUTIONS_TODAY = "no_executions_today", 409, N_("There are no executions today")
    NOMINATIONS_CLOSED = "nominations_closed", 409, N_("Nominations are closed")
    CANDIDATE_NOT_ELIGIBLE = "candidate_not_eligible", 409, N_("This resident cannot be nominated")
    SELF_NOMINATION_FORBIDDEN = "self_nomination_forbidden", 409, N_("Self-nomination is not allowed")
    NOT_A_KEYWORD = "not_a_keyword", 409, N_("Only «{keywords}» may be posted here")
    VOTE_ALREADY_ACTIVE = "vote_already_active", 409, N_("Your «казнить» already counts")
    NO_ACTIVE_VOTE = "no_active_vote", 409, N_("«не казнить» needs an active «казнить»")
    VOTING_CLOSED = "voting_closed", 409, N_("Voting is closed")
    PROXY_TOO_LATE = "proxy_too_late", 409, N_("Proxy requests must come before voting opens")
    PROXY_INVALID = "proxy_invalid", 409, N_("Invalid proxy request")
    # inboxes
    UNKNOWN_INBOX = "unknown_inbox", 404, N_("No such inbox")
    INBOX_READ_ONLY = "inbox_read_only", 403, N_("You can only read this inbox")
    INBOX_CLOSED = "inbox_closed", 409, N_("The inbox is closed")
    MESSAGE_EMPTY = "message_empty", 422, N_("Empty message")
    MESSAGE_TOO_LONG = "message_too_long", 422, N_("Message longer than {limit} characters")
    NOT_ORGANIZER = "not_organizer", 403, N_("Only the inbox organizer can do this")
    INBOX_NOT_RENEWABLE = "inbox_not_renewable", 409, N_("This inbox cannot be renewed")
    MEMBERS_INVALID = "members_invalid", 409, N_("Invalid member list")
    INBOX_KEY_INVALID = "inbox_key_invalid", 422, N_("The inbox's key must be 16 to 32 hexadecimal digits, unused in this game")
    ALREADY_DECLARED = "already_declared", 409, N_("You have already declared this")
    NOT_DECLARED = "not_declared", 409, N_("You have not declared this")
    OBSERVER_INVALID = "observer_invalid", 409, N_("You may observe another city, once")
    # judges and the Court
    NOT_ARBITER = "not_arbiter", 403, N_("Only the Supreme Arbiter can do this")
    NOT_JUDGE = "not_judge", 403, N_("Only a sitting judge can do this")
    NO_PENDING_VERDICT = "no_pending_verdict", 409, N_("No verdict of this city is before the Court")
    VOTE_ALREADY_CAST = "vote_already_cast", 409, N_("You have already voted")
    NO_ELECTION_NEEDED = "no_election_needed", 409, N_("No judge election is needed")
    NO_ELECTION_OPEN = "no_election_open", 409, N_("Judge candidacies are closed")
    NOT_A_CANDIDATE = "not_a_candidate", 409, N_("You are not a candidate")
    NO_PETITIONS_TODAY = "no_petitions_today", 409, N_("No removal petitions today")
    NO_JUDGE = "no_judge", 409, N_("The city has no sitting judge")
    PETITION_EXISTS = "petition_exists", 409, N_("A removal petition is already open")
    NO_PETITION = "no_petition", 409, N_("There is no open removal petition")
    # commissar
    OFFER_NOT_ALLOWED = "offer_not_allowed", 409, N_("No commissar offer can be made now")
    NO_OPEN_OFFER = "no_open_offer", 409, N_("You have no open offer")
    MAFIOSO_MUST_REFUSE = "mafioso_must_refuse", 409, N_("A mafioso must refuse")
    CHECKS_NOT_OPEN = "checks_not_open", 409, N_("Checks are not open now")
    CHECK_ALREADY_USED = "check_already_used", 409, N_("Tonight's check is already used")
    CHECK_TARGET_INVALID = "check_target_invalid", 409, N_("Check a living resident of your city")
    # mafia
    NO_KILLS_TONIGHT = "no_kills_tonight", 409, N_("There are no kills tonight")
    KILL_TARGET_INVALID = "kill_target_invalid", 409, N_("Only a living honest resident of your city can be killed")
    NOT_TOURING = "not_touring", 409, N_("Your mafia is not touring tonight")
    TOUR_TARGET_INVALID = "tour_target_invalid", 409, N_("Invalid tour target")
    JUDGE_KILL_NEEDS_UNANIMITY = "judge_kill_needs_unanimity", 409, N_("Killing the judge needs unanimity")
    NO_GODFATHER_ELECTION = "no_godfather_election", 409, N_("No Godfather election is open")
    GODFATHER_CANDIDATE_INVALID = "godfather_candidate_invalid", 409, N_("The Godfather must be a living mafioso of the city")
    DECISIONS_CLOSED = "decisions_closed", 409, N_("Tonight's decisions are closed")
    NO_PENDING_CHECK = "no_pending_check", 409, N_("No check awaits an answer")
    CHECK_ANSWER_UNTRUE = "check_answer_untrue", 409, N_("The answer to a check must be true")
    NOT_A_MEMBER = "not_a_member", 409, N_("You are not a member of this inbox")
    ARCHIVE_CLOSED = "archive_closed", 409, N_("This archive does not open on request")
    CITY_RESTORING = "city_restoring", 409, N_("The city is being restored")
    NO_RESTORATION = "no_restoration", 409, N_("There is no restoration of this city")
    NOT_A_SIGNER = "not_a_signer", 409, N_("You do not sign this restoration")
    NO_AMBUSH_RIGHT = "no_ambush_right", 409, N_("No ambush can be placed now")
    AMBUSH_TARGET_INVALID = "ambush_target_invalid", 409, N_("Ambush a living resident of your city")
    AMBUSH_TARGET_TAKEN = "ambush_target_taken", 409, N_("This resident is already ambushed")
    TOO_MANY_AMBUSHES = "too_many_ambushes", 409, N_("At most living mafiosi minus one ambushes")
    AMBUSH_BLOCKED_BY_JUDGE_KILL = "ambush_blocked_by_judge_kill", 409, N_("No ambush while the order is to kill the judge")
    JUDGE_KILL_AFTER_AMBUSH = "judge_kill_after_ambush", 409, N_("The judge cannot be killed on an ambush night")
    REASON_REQUIRED = "reason_required", 409, N_("Give a reason")
    # host decisions (HOST, SOUND, IMPEACH, NOCONF, HOST-ARB-3, MAFIA-COMM)
    NO_ARBITER = "no_arbiter", 409, N_("No Supreme Arbiter has been appointed")
    NO_COMBINATION = "no_combination", 409, N_("{user} holds no combination of host offices")
    ALREADY_DECIDED = "already_decided", 409, N_("This has already been decided")
    UNKNOWN_RECORD = "unknown_record", 409, N_("No such record")
    DELEGATION_INVALID = "delegation_invalid", 409, N_("Invalid delegation: {detail}")
    AMBUSH_ORDER_INVALID = "ambush_order_invalid", 409, N_("The ambush order lists living mafiosi of the city, each once")
    SANCTION_INVALID = "sanction_invalid", 409, N_("Invalid sanction: {detail}")
    RECORD_STILL_SEALED = "record_still_sealed", 409, N_("The record may be disclosed only after the game")
    SOUND_REQUEST_INVALID = "sound_request_invalid", 409, N_("Invalid request: {detail}")
    NOT_HANDLER = "not_handler", 409, N_("This request is not in your hands")
    SOUND_TOO_LONG = "sound_too_long", 409, N_("The recording is longer than {limit} minutes")
    LAST_WORD_INALIENABLE = "last_word_inalienable", 409, N_("A Last Word cannot be refused")
    NOT_IN_CEMETERY = "not_in_cemetery", 409, N_("Only an inhabitant of the Cemetery may ask for a séance")
    ALREADY_SIGNED = "already_signed", 409, N_("You have already signed the demand")
    IMPEACHMENT_OPEN = "impeachment_open", 409, N_("An impeachment of this Tribune is already under way")
    EVIDENCE_INVALID = "evidence_invalid", 409, N_("Invalid evidence: {detail}")
    DECISION_INVALID = "decision_invalid", 409, N_("Invalid decision: {detail}")
    BAN_NOT_ALLOWED = "ban_not_allowed", 409, N_("The Arbiter cannot ban here: {detail}")
    RELAY_INVALID = "relay_invalid", 409, N_("Invalid relay: {detail}")
    NO_GODFATHER_TO_RECEIVE = "no_godfather_to_receive", 409, N_("Nobody in '{city}' can receive the relay")
    # community seed systems: public discussion, notary inboxes (engine/seeds.py)
    UNKNOWN_POST = "unknown_post", 404, N_("No such post")
    UNKNOWN_COMMENT = "unknown_comment", 404, N_("No such comment")
    COMMENT_ALREADY_HIDDEN = "comment_already_hidden", 409, N_("The comment is already hidden")
    DEAD_CANNOT_COMMENT = "dead_cannot_comment", 403, N_("The dead do not comment on the posts while the game runs")
    CONSIGLIERE_CANNOT_COMMENT = "consigliere_cannot_comment", 403, N_("The Consigliere does not comment on his game's posts while it runs")
    SANCTIONED = "sanctioned", 403, N_("You are under a sanction ({sanction}) and cannot comment")
    NOTARY_SALT_WEAK = "notary_salt_weak", 422, N_("The salt must be at least {min} characters long")
    NOTARY_LIMIT = "notary_limit", 409, N_("At most {limit} notary inboxes per participant")
    ALREADY_GRANTED = "already_granted", 409, N_("{user} already has access")
    NOTARY_NOT_YET_PUBLIC = "notary_not_yet_public", 409, N_("A notary inbox opens to everyone only after the game")
    # liveness: host commands that would leave a game with nothing to wait for
    DAY_END_BEFORE_START = "day_end_before_start", 409, N_("Day {day} must end after it starts ({start})")
    DAY_END_AFTER_MIDNIGHT = "day_end_after_midnight", 409, N_("Day {day} must end by 00:00 Moscow time")


class RuleViolation(CodedError):
    """A command broke a rule. Nothing changed; ``code`` says why."""

    code: ErrorCode

    def __init__(self, code: ErrorCode, rule: str = "", **fields: Any) -> None:
        super().__init__(code, rule, **fields)


def check(condition: bool, code: ErrorCode, rule: str = "", **fields: Any) -> None:
    """Raise ``RuleViolation(code)`` unless ``condition`` holds."""
    if not condition:
        raise RuleViolation(code, rule, **fields)
