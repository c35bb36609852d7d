"""Typed rule violations with stable codes and messages in Russian and English.

Clients and tests branch on ``code``, never on the message text.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """Every reason a command can be rejected. Values are stable API strings."""

    # settings and game creation
    INVALID_SETTINGS = "invalid_settings"
    GAME_EXISTS = "game_exists"
    NO_GAME = "no_game"
    GAME_FINISHED = "game_finished"
    # authority and identity
    NOT_PROCURATOR = "not_procurator"
    NOT_CONSIGLIERE = "not_consigliere"
    NOT_TRIBUNE = "not_tribune"
    NOT_RESIDENT = "not_resident"
    NOT_MAFIOSO = "not_mafioso"
    NOT_GODFATHER = "not_godfather"
    NOT_COMMISSAR = "not_commissar"
    NOT_ALIVE = "not_alive"
    NOT_A_PARTICIPANT = "not_a_participant"
    HOST_CANNOT_PLAY = "host_cannot_play"
    # recruitment and cities
    WRONG_STAGE = "wrong_stage"
    REQUIREMENTS_NOT_ACCEPTED = "requirements_not_accepted"
    CONTACT_REQUIRED = "contact_required"
    ALREADY_SIGNED_UP = "already_signed_up"
    NOT_SIGNED_UP = "not_signed_up"
    UNKNOWN_OFFICE = "unknown_office"
    OFFICE_TAKEN = "office_taken"
    CITY_COUNT_MISMATCH = "city_count_mismatch"
    CITY_NAME_INVALID = "city_name_invalid"
    CITY_NAME_TAKEN = "city_name_taken"
    CITY_TOO_SMALL = "city_too_small"
    PLAYER_NOT_ASSIGNED = "player_not_assigned"
    PLAYER_ASSIGNED_TWICE = "player_assigned_twice"
    TRIBUNE_MISSING = "tribune_missing"
    CONSIGLIERE_MISSING = "consigliere_missing"
    UNKNOWN_CITY = "unknown_city"
    # the deal
    DEAL_ALREADY_SEALED = "deal_already_sealed"
    DEAL_NOT_SEALED = "deal_not_sealed"
    DEAL_LIST_INVALID = "deal_list_invalid"
    NUMBERS_ALREADY_NAMED = "numbers_already_named"
    NUMBERS_INVALID = "numbers_invalid"
    DEAL_INCOMPLETE = "deal_incomplete"
    ALREADY_ACKNOWLEDGED = "already_acknowledged"
    MAFIA_NOT_ACKNOWLEDGED = "mafia_not_acknowledged"
    # calendar
    WRONG_PHASE = "wrong_phase"
    TOO_LATE = "too_late"
    TOO_EARLY = "too_early"
    SCHEDULE_INVALID = "schedule_invalid"
    # nominations and votes
    CITY_DECIDED = "city_decided"
    NO_EXECUTIONS_TODAY = "no_executions_today"
    NOMINATIONS_CLOSED = "nominations_closed"
    CANDIDATE_NOT_ELIGIBLE = "candidate_not_eligible"
    SELF_NOMINATION_FORBIDDEN = "self_nomination_forbidden"
    NOT_A_KEYWORD = "not_a_keyword"
    VOTE_ALREADY_ACTIVE = "vote_already_active"
    NO_ACTIVE_VOTE = "no_active_vote"
    VOTING_CLOSED = "voting_closed"
    PROXY_TOO_LATE = "proxy_too_late"
    PROXY_INVALID = "proxy_invalid"
    # inboxes
    UNKNOWN_INBOX = "unknown_inbox"
    INBOX_READ_ONLY = "inbox_read_only"
    INBOX_CLOSED = "inbox_closed"
    MESSAGE_EMPTY = "message_empty"
    MESSAGE_TOO_LONG = "message_too_long"
    NOT_ORGANIZER = "not_organizer"
    INBOX_NOT_RENEWABLE = "inbox_not_renewable"
    MEMBERS_INVALID = "members_invalid"
    ALREADY_DECLARED = "already_declared"
    NOT_DECLARED = "not_declared"
    OBSERVER_INVALID = "observer_invalid"
    # judges and the Court
    NOT_ARBITER = "not_arbiter"
    NOT_JUDGE = "not_judge"
    NO_PENDING_VERDICT = "no_pending_verdict"
    VOTE_ALREADY_CAST = "vote_already_cast"
    NO_ELECTION_NEEDED = "no_election_needed"
    NO_ELECTION_OPEN = "no_election_open"
    NOT_A_CANDIDATE = "not_a_candidate"
    NO_PETITIONS_TODAY = "no_petitions_today"
    NO_JUDGE = "no_judge"
    PETITION_EXISTS = "petition_exists"
    NO_PETITION = "no_petition"
    # commissar
    OFFER_NOT_ALLOWED = "offer_not_allowed"
    NO_OPEN_OFFER = "no_open_offer"
    MAFIOSO_MUST_REFUSE = "mafioso_must_refuse"
    CHECKS_NOT_OPEN = "checks_not_open"
    CHECK_ALREADY_USED = "check_already_used"
    CHECK_TARGET_INVALID = "check_target_invalid"
    # mafia
    NO_KILLS_TONIGHT = "no_kills_tonight"
    KILL_TARGET_INVALID = "kill_target_invalid"
    NOT_TOURING = "not_touring"
    TOUR_TARGET_INVALID = "tour_target_invalid"
    JUDGE_KILL_NEEDS_UNANIMITY = "judge_kill_needs_unanimity"
    NO_GODFATHER_ELECTION = "no_godfather_election"
    GODFATHER_CANDIDATE_INVALID = "godfather_candidate_invalid"
    DECISIONS_CLOSED = "decisions_closed"
    NO_PENDING_CHECK = "no_pending_check"
    CHECK_ANSWER_UNTRUE = "check_answer_untrue"
    NOT_A_MEMBER = "not_a_member"
    ARCHIVE_CLOSED = "archive_closed"
    CITY_RESTORING = "city_restoring"
    NO_RESTORATION = "no_restoration"
    NOT_A_SIGNER = "not_a_signer"
    NO_AMBUSH_RIGHT = "no_ambush_right"
    AMBUSH_TARGET_INVALID = "ambush_target_invalid"
    AMBUSH_TARGET_TAKEN = "ambush_target_taken"
    TOO_MANY_AMBUSHES = "too_many_ambushes"
    AMBUSH_BLOCKED_BY_JUDGE_KILL = "ambush_blocked_by_judge_kill"
    JUDGE_KILL_AFTER_AMBUSH = "judge_kill_after_ambush"
    REASON_REQUIRED = "reason_required"
    # host decisions (HOST, SOUND, IMPEACH, NOCONF, HOST-ARB-3, MAFIA-COMM)
    NO_ARBITER = "no_arbiter"
    NO_COMBINATION = "no_combination"
    ALREADY_DECIDED = "already_decided"
    UNKNOWN_RECORD = "unknown_record"
    DELEGATION_INVALID = "delegation_invalid"
    AMBUSH_ORDER_INVALID = "ambush_order_invalid"
    SANCTION_INVALID = "sanction_invalid"
    RECORD_STILL_SEALED = "record_still_sealed"
    SOUND_REQUEST_INVALID = "sound_request_invalid"
    NOT_HANDLER = "not_handler"
    SOUND_TOO_LONG = "sound_too_long"
    LAST_WORD_INALIENABLE = "last_word_inalienable"
    NOT_IN_CEMETERY = "not_in_cemetery"
    ALREADY_SIGNED = "already_signed"
    IMPEACHMENT_OPEN = "impeachment_open"
    EVIDENCE_INVALID = "evidence_invalid"
    DECISION_INVALID = "decision_invalid"
    BAN_NOT_ALLOWED = "ban_not_allowed"
    RELAY_INVALID = "relay_invalid"
    NO_GODFATHER_TO_RECEIVE = "no_godfather_to_receive"
    # community seed systems: public discussion, notary inboxes (engine/seeds.py)
    UNKNOWN_POST = "unknown_post"
    UNKNOWN_COMMENT = "unknown_comment"
    COMMENT_ALREADY_HIDDEN = "comment_already_hidden"
    DEAD_CANNOT_COMMENT = "dead_cannot_comment"
    CONSIGLIERE_CANNOT_COMMENT = "consigliere_cannot_comment"
    SANCTIONED = "sanctioned"
    NOTARY_SALT_WEAK = "notary_salt_weak"
    NOTARY_LIMIT = "notary_limit"
    ALREADY_GRANTED = "already_granted"
    NOTARY_NOT_YET_PUBLIC = "notary_not_yet_public"
    # liveness: host commands that would leave a game with nothing to wait for
    DAY_END_BEFORE_START = "day_end_before_start"
    DAY_END_AFTER_MIDNIGHT = "day_end_after_midnight"


# code -> (Russian, English). Templates use str.format with the violation's fields.
MESSAGES: dict[ErrorCode, tuple[str, str]] = {
    ErrorCode.INVALID_SETTINGS: ("Недопустимые настройки игры: {detail}", "Invalid game settings: {detail}"),
    ErrorCode.GAME_EXISTS: ("Игра уже создана", "The game already exists"),
    ErrorCode.NO_GAME: ("Игры не существует", "There is no such game"),
    ErrorCode.GAME_FINISHED: ("Игра окончена", "The game is over"),
    ErrorCode.NOT_PROCURATOR: ("Это может сделать только Прокуратор", "Only the Procurator can do this"),
    ErrorCode.NOT_CONSIGLIERE: ("Это может сделать только Консильери", "Only the Consigliere can do this"),
    ErrorCode.NOT_TRIBUNE: ("Это может сделать только Трибун города", "Only the city's Tribune can do this"),
    ErrorCode.NOT_RESIDENT: ("Вы не житель этой игры", "You are not a resident of this game"),
    ErrorCode.NOT_MAFIOSO: ("Это действие доступно только мафии", "Only the mafia can do this"),
    ErrorCode.NOT_GODFATHER: ("Это решает Крёстный отец", "Only the Godfather decides this"),
    ErrorCode.NOT_COMMISSAR: ("Вы не комиссар", "You are not a commissar"),
    ErrorCode.NOT_ALIVE: ("Мёртвые не действуют", "The dead cannot act"),
    ErrorCode.NOT_A_PARTICIPANT: ("{user} не участвует в этой игре", "{user} does not take part in this game"),
    ErrorCode.HOST_CANNOT_PLAY: ("Ведущий не может быть жителем", "A host cannot be a resident"),
    ErrorCode.WRONG_STAGE: ("Сейчас это невозможно (этап: {stage})", "Not possible now (stage: {stage})"),
    ErrorCode.REQUIREMENTS_NOT_ACCEPTED: ("Нужно принять все требования к игрокам", "You must accept every player requirement"),
    ErrorCode.CONTACT_REQUIRED: ("Укажите телефон или Skype для связи", "Give a phone number or Skype name"),
    ErrorCode.ALREADY_SIGNED_UP: ("Вы уже записаны в игру", "You have already signed up"),
    ErrorCode.NOT_SIGNED_UP: ("{user} не записан в игру", "{user} has not signed up"),
    ErrorCode.UNKNOWN_OFFICE: ("Неизвестная должность", "Unknown office"),
    ErrorCode.OFFICE_TAKEN: ("Эта должность уже занята", "This office is already held"),
    ErrorCode.CITY_COUNT_MISMATCH: ("Нужно городов: {expected}", "Number of cities must be {expected}"),
    ErrorCode.CITY_NAME_INVALID: ("Недопустимое название города", "Invalid city name"),
    ErrorCode.CITY_NAME_TAKEN: ("Город «{city}» уже есть", "City '{city}' already exists"),
    ErrorCode.CITY_TOO_SMALL: ("В городе «{city}» слишком мало жителей", "City '{city}' has too few residents"),
    ErrorCode.PLAYER_NOT_ASSIGNED: ("{user} не распределён по городам", "{user} is not assigned to a city"),
    ErrorCode.PLAYER_ASSIGNED_TWICE: ("{user} записан в два города", "{user} is assigned twice"),
    ErrorCode.TRIBUNE_MISSING: ("У города «{city}» нет Трибуна", "City '{city}' has no Tribune"),
    ErrorCode.CONSIGLIERE_MISSING: ("Консильери не назначен", "No Consigliere has been appointed"),
    ErrorCode.UNKNOWN_CITY: ("Нет города «{city}»", "There is no city '{city}'"),
    ErrorCode.DEAL_ALREADY_SEALED: ("Списки уже заверены", "The lists are already sealed"),
    ErrorCode.DEAL_NOT_SEALED: ("Списки ещё не заверены", "The lists are not sealed yet"),
    ErrorCode.DEAL_LIST_INVALID: ("Список города «{city}» неверен", "The list of '{city}' is invalid"),
    ErrorCode.NUMBERS_ALREADY_NAMED: ("Числа для «{city}» уже названы", "Numbers for '{city}' were already named"),
    ErrorCode.NUMBERS_INVALID: ("Нужно {count} разных чисел от 1 до {population}", "Name {count} distinct numbers from 1 to {population}"),
    ErrorCode.DEAL_INCOMPLETE: ("Распределение ролей не завершено", "The deal is not complete"),
    ErrorCode.MAFIA_NOT_ACKNOWLEDGED: ("Игру можно начать, когда вся мафия подтвердит свою роль: ждём ещё {count} город(а)", "The game can start once every mafioso has acknowledged his role: {count} city(ies) still waiting"),
    ErrorCode.ALREADY_ACKNOWLEDGED: ("Вы уже подтвердили роль", "You have already acknowledged your role"),
    ErrorCode.WRONG_PHASE: ("Сейчас это невозможно", "Not possible in this phase"),
    ErrorCode.TOO_LATE: ("Слишком поздно", "Too late"),
    ErrorCode.TOO_EARLY: ("Слишком рано", "Too early"),
    ErrorCode.SCHEDULE_INVALID: ("Неверное расписание: {detail}", "Invalid schedule: {detail}"),
    ErrorCode.CITY_DECIDED: ("Игра в этом городе окончена", "The game in this city is decided"),
    ErrorCode.NO_EXECUTIONS_TODAY: ("Сегодня казней нет", "There are no executions today"),
    ErrorCode.NOMINATIONS_CLOSED: ("Выдвижение закрыто", "Nominations are closed"),
    ErrorCode.CANDIDATE_NOT_ELIGIBLE: ("Этого жителя нельзя выдвинуть", "This resident cannot be nominated"),
    ErrorCode.SELF_NOMINATION_FORBIDDEN: ("Нельзя выдвигать себя", "Self-nomination is not allowed"),
    ErrorCode.NOT_A_KEYWORD: ("Здесь можно писать только «{keywords}»", "Only «{keywords}» may be posted here"),
    ErrorCode.VOTE_ALREADY_ACTIVE: ("Ваш голос «казнить» уже учтён", "Your «казнить» already counts"),
    ErrorCode.NO_ACTIVE_VOTE: ("Нельзя «не казнить» без действующего «казнить»", "«не казнить» needs an active «казнить»"),
    ErrorCode.VOTING_CLOSED: ("Голосование закрыто", "Voting is closed"),
    ErrorCode.PROXY_TOO_LATE: ("Просьбу о голосовании нужно подать до начала голосования", "Proxy requests must come before voting opens"),
    ErrorCode.PROXY_INVALID: ("Неверная просьба о голосовании", "Invalid proxy request"),
    ErrorCode.UNKNOWN_INBOX: ("Нет такого инбокса", "No such inbox"),
    ErrorCode.INBOX_READ_ONLY: ("Вы можете только читать этот инбокс", "You can only read this inbox"),
    ErrorCode.INBOX_CLOSED: ("Инбокс закрыт", "The inbox is closed"),
    ErrorCode.MESSAGE_EMPTY: ("Пустое сообщение", "Empty message"),
    ErrorCode.MESSAGE_TOO_LONG: ("Сообщение длиннее {limit} символов", "Message longer than {limit} characters"),
    ErrorCode.NOT_ORGANIZER: ("Это может сделать только организатор инбокса", "Only the inbox organizer can do this"),
    ErrorCode.INBOX_NOT_RENEWABLE: ("Этот инбокс не обновляется", "This inbox cannot be renewed"),
    ErrorCode.MEMBERS_INVALID: ("Неверный список участников", "Invalid member list"),
    ErrorCode.ALREADY_DECLARED: ("Вы уже заявили об этом", "You have already declared this"),
    ErrorCode.NOT_DECLARED: ("Вы об этом не заявляли", "You have not declared this"),
    ErrorCode.OBSERVER_INVALID: ("Наблюдать можно только за чужим городом, один раз", "You may observe another city, once"),
    ErrorCode.NOT_ARBITER: ("Это может сделать только Верховный арбитр", "Only the Supreme Arbiter can do this"),
    ErrorCode.NOT_JUDGE: ("Это может сделать только действующий судья", "Only a sitting judge can do this"),
    ErrorCode.NO_PENDING_VERDICT: ("Суду сейчас нечего решать по этому городу", "No verdict of this city is before the Court"),
    ErrorCode.VOTE_ALREADY_CAST: ("Вы уже проголосовали", "You have already voted"),
    ErrorCode.NO_ELECTION_NEEDED: ("Выборы судьи не нужны", "No judge election is needed"),
    ErrorCode.NO_ELECTION_OPEN: ("Выдвижение кандидатов в судьи закрыто", "Judge candidacies are closed"),
    ErrorCode.NOT_A_CANDIDATE: ("Вы не кандидат", "You are not a candidate"),
    ErrorCode.NO_PETITIONS_TODAY: ("Сегодня требования о снятии судьи не принимаются", "No removal petitions today"),
    ErrorCode.NO_JUDGE: ("В городе нет действующего судьи", "The city has no sitting judge"),
    ErrorCode.PETITION_EXISTS: ("Требование о снятии судьи уже подано", "A removal petition is already open"),
    ErrorCode.NO_PETITION: ("Нет открытого требования о снятии судьи", "There is no open removal petition"),
    ErrorCode.OFFER_NOT_ALLOWED: ("Сейчас нельзя предложить должность комиссара", "No commissar offer can be made now"),
    ErrorCode.NO_OPEN_OFFER: ("У вас нет открытого предложения", "You have no open offer"),
    ErrorCode.MAFIOSO_MUST_REFUSE: ("Мафиозо обязан отказаться", "A mafioso must refuse"),
    ErrorCode.CHECKS_NOT_OPEN: ("Проверка сейчас невозможна", "Checks are not open now"),
    ErrorCode.CHECK_ALREADY_USED: ("Проверка этой ночи уже сделана", "Tonight's check is already used"),
    ErrorCode.CHECK_TARGET_INVALID: ("Проверить можно живого жителя своего города", "Check a living resident of your city"),
    ErrorCode.NO_KILLS_TONIGHT: ("Этой ночью убийств нет", "There are no kills tonight"),
    ErrorCode.KILL_TARGET_INVALID: ("Убить можно только живого честного жителя своего города", "Only a living honest resident of your city can be killed"),
    ErrorCode.NOT_TOURING: ("Ваша мафия сегодня не на гастролях", "Your mafia is not touring tonight"),
    ErrorCode.TOUR_TARGET_INVALID: ("Недопустимая цель гастролей", "Invalid tour target"),
    ErrorCode.JUDGE_KILL_NEEDS_UNANIMITY: ("Убийство судьи требует единогласия", "Killing the judge needs unanimity"),
    ErrorCode.NO_GODFATHER_ELECTION: ("Выборов Крёстного отца сейчас нет", "No Godfather election is open"),
    ErrorCode.GODFATHER_CANDIDATE_INVALID: ("Крёстным отцом может быть живой мафиозо города", "The Godfather must be a living mafioso of the city"),
    ErrorCode.NO_AMBUSH_RIGHT: ("Сейчас засаду ставить нельзя", "No ambush can be placed now"),
    ErrorCode.AMBUSH_TARGET_INVALID: ("Засаду можно поставить на живого жителя своего города", "Ambush a living resident of your city"),
    ErrorCode.AMBUSH_TARGET_TAKEN: ("На этого жителя засада уже стоит", "This resident is already ambushed"),
    ErrorCode.TOO_MANY_AMBUSHES: ("Засад не может быть больше, чем мафиози минус один", "At most living mafiosi minus one ambushes"),
    ErrorCode.AMBUSH_BLOCKED_BY_JUDGE_KILL: ("Пока приказ — убить судью, засаду ставить нельзя", "No ambush while the order is to kill the judge"),
    ErrorCode.JUDGE_KILL_AFTER_AMBUSH: ("В ночь засады судью убить нельзя", "The judge cannot be killed on an ambush night"),
    ErrorCode.REASON_REQUIRED: ("Укажите основание", "Give a reason"),
    ErrorCode.CITY_RESTORING: ("Город восстанавливается", "The city is being restored"),
    ErrorCode.NO_RESTORATION: ("Восстановления этого города нет", "There is no restoration of this city"),
    ErrorCode.NOT_A_SIGNER: ("Вы не подписываете это восстановление", "You do not sign this restoration"),
    ErrorCode.NOT_A_MEMBER: ("Вы не участник этого инбокса", "You are not a member of this inbox"),
    ErrorCode.ARCHIVE_CLOSED: ("Этот архив не открывается по запросу", "This archive does not open on request"),
    ErrorCode.NO_PENDING_CHECK: ("Нет проверки, ждущей ответа", "No check awaits an answer"),
    ErrorCode.CHECK_ANSWER_UNTRUE: ("Ответ на проверку должен быть правдивым", "The answer to a check must be true"),
    ErrorCode.DECISIONS_CLOSED: ("Решения этой ночи уже приняты", "Tonight's decisions are closed"),
    ErrorCode.NO_ARBITER: ("Верховный арбитр не назначен", "No Supreme Arbiter has been appointed"),
    ErrorCode.NO_COMBINATION: ("{user} не совмещает должности ведущих", "{user} holds no combination of host offices"),
    ErrorCode.ALREADY_DECIDED: ("Решение уже принято", "This has already been decided"),
    ErrorCode.UNKNOWN_RECORD: ("Нет такой записи", "No such record"),
    ErrorCode.DELEGATION_INVALID: ("Неверное поручение: {detail}", "Invalid delegation: {detail}"),
    ErrorCode.AMBUSH_ORDER_INVALID: ("Очерёдность засад: только живые мафиози города, без повторов", "The ambush order lists living mafiosi of the city, each once"),
    ErrorCode.SANCTION_INVALID: ("Неверная санкция: {detail}", "Invalid sanction: {detail}"),
    ErrorCode.RECORD_STILL_SEALED: ("Запись можно раскрыть только после игры", "The record may be disclosed only after the game"),
    ErrorCode.SOUND_REQUEST_INVALID: ("Неверная заявка: {detail}", "Invalid request: {detail}"),
    ErrorCode.NOT_HANDLER: ("Эта заявка не у вас", "This request is not in your hands"),
    ErrorCode.SOUND_TOO_LONG: ("Запись длиннее {limit} мин.", "The recording is longer than {limit} minutes"),
    ErrorCode.LAST_WORD_INALIENABLE: ("В последнем слове нельзя отказать", "A Last Word cannot be refused"),
    ErrorCode.NOT_IN_CEMETERY: ("Спиритический сеанс заказывают обитатели кладбища", "Only an inhabitant of the Cemetery may ask for a séance"),
    ErrorCode.ALREADY_SIGNED: ("Вы уже подписали требование", "You have already signed the demand"),
    ErrorCode.IMPEACHMENT_OPEN: ("Импичмент Трибуну уже рассматривается", "An impeachment of this Tribune is already under way"),
    ErrorCode.EVIDENCE_INVALID: ("Неверные доказательства: {detail}", "Invalid evidence: {detail}"),
    ErrorCode.DECISION_INVALID: ("Неверное решение: {detail}", "Invalid decision: {detail}"),
    ErrorCode.BAN_NOT_ALLOWED: ("Бан Арбитра здесь невозможен: {detail}", "The Arbiter cannot ban here: {detail}"),
    ErrorCode.RELAY_INVALID: ("Неверная передача: {detail}", "Invalid relay: {detail}"),
    ErrorCode.NO_GODFATHER_TO_RECEIVE: ("В городе «{city}» некому принять передачу", "Nobody in '{city}' can receive the relay"),
    ErrorCode.UNKNOWN_POST: ("Нет такого поста", "No such post"),
    ErrorCode.UNKNOWN_COMMENT: ("Нет такого комментария", "No such comment"),
    ErrorCode.COMMENT_ALREADY_HIDDEN: ("Комментарий уже скрыт", "The comment is already hidden"),
    ErrorCode.DEAD_CANNOT_COMMENT: ("Мёртвые не комментируют посты, пока игра идёт", "The dead do not comment on the posts while the game runs"),
    ErrorCode.CONSIGLIERE_CANNOT_COMMENT: ("Консильери не комментирует посты своей игры, пока она идёт", "The Consigliere does not comment on his game's posts while it runs"),
    ErrorCode.SANCTIONED: ("Вы под санкцией ({sanction}) — комментировать нельзя", "You are under a sanction ({sanction}) and cannot comment"),
    ErrorCode.NOTARY_SALT_WEAK: ("Соль должна быть не короче {min} символов", "The salt must be at least {min} characters long"),
    ErrorCode.NOTARY_LIMIT: ("Не больше {limit} нотариальных инбоксов на участника", "At most {limit} notary inboxes per participant"),
    ErrorCode.ALREADY_GRANTED: ("{user} уже имеет доступ", "{user} already has access"),
    ErrorCode.NOTARY_NOT_YET_PUBLIC: ("Открыть нотариальный инбокс всем можно только после игры", "A notary inbox opens to everyone only after the game"),
    ErrorCode.DAY_END_BEFORE_START: ("День {day} должен закончиться после своего начала ({start})", "Day {day} must end after it starts ({start})"),
    ErrorCode.DAY_END_AFTER_MIDNIGHT: ("День {day} должен закончиться не позже 00:00 по Москве", "Day {day} must end by 00:00 Moscow time"),
}


class RuleViolation(Exception):
    """A command broke a rule. Nothing changed; ``code`` says why."""

    def __init__(self, code: ErrorCode, rule: str = "", **fields: Any) -> None:
        self.code = code
        self.rule = rule
        self.fields = fields
        super().__init__(f"{code}: {self.message('en')}")

    def message(self, lang: str = "ru") -> str:
        ru, en = MESSAGES[self.code]
        template = ru if lang == "ru" else en
        try:
            return template.format(**self.fields)
        except (KeyError, IndexError):
            return template


def check(condition: bool, code: ErrorCode, rule: str = "", **fields: Any) -> None:
    """Raise ``RuleViolation(code)`` unless ``condition`` holds."""
    if not condition:
        raise RuleViolation(code, rule, **fields)
