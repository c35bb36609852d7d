"""Accounts: registration, argon2id passwords, sessions, the login rate limit, contact
details encrypted at rest (PLAYER-4, SEC-13), the sanctions registry (PLAYER-7).

Who may read a contact is decided from the game's state (the Procurator, and the
Tribune of the resident's city), never from a list kept here.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from cryptography.fernet import Fernet, InvalidToken

from ..engine.calendar import at_local
from ..engine.commands_host import RecordSanction
from ..engine.state import GameState, Stage
from ..store.accounts import AccountStore, Sanction, UserRow
from .clock import Clock, SystemClock

LOGIN_PATTERN = re.compile(r"^[a-z0-9_][a-z0-9_.-]{2,31}$")
RESERVED = frozenset({"system", "admin", "root", "consigliere:", "anonymous"})
MIN_PASSWORD = 8
MAX_PASSWORD = 256
MAX_CONTACT = 200


class AccountErrorCode(StrEnum):
    LOGIN_INVALID = "login_invalid"
    LOGIN_TAKEN = "login_taken"
    PASSWORD_WEAK = "password_weak"  # noqa: S105 - an error code
    DISPLAY_NAME_INVALID = "display_name_invalid"
    BAD_CREDENTIALS = "bad_credentials"
    RATE_LIMITED = "rate_limited"
    BANNED = "banned"
    CONTACT_INVALID = "contact_invalid"
    CONTACT_FORBIDDEN = "contact_forbidden"
    CONTACT_MISSING = "contact_missing"
    SANCTION_FORBIDDEN = "sanction_forbidden"
    SANCTION_INVALID = "sanction_invalid"
    UNKNOWN_USER = "unknown_user"


MESSAGES: dict[AccountErrorCode, tuple[str, str]] = {
    AccountErrorCode.LOGIN_INVALID: (
        "Логин: 3–32 символа, латинские строчные буквы, цифры, «_», «.», «-»",
        "Login: 3-32 characters, lower-case Latin letters, digits, '_', '.', '-'"),
    AccountErrorCode.LOGIN_TAKEN: ("Логин «{login}» уже занят", "Login '{login}' is taken"),
    AccountErrorCode.PASSWORD_WEAK: (
        f"Пароль должен быть не короче {MIN_PASSWORD} символов",
        f"The password must be at least {MIN_PASSWORD} characters long"),
    AccountErrorCode.DISPLAY_NAME_INVALID: (
        "Имя: от 1 до 64 символов", "Display name: 1 to 64 characters"),
    AccountErrorCode.BAD_CREDENTIALS: ("Неверный логин или пароль", "Wrong login or password"),
    AccountErrorCode.RATE_LIMITED: (
        "Слишком много неудачных попыток входа; попробуйте через {minutes} мин.",
        "Too many failed logins; try again in {minutes} min"),
    AccountErrorCode.BANNED: (
        "Вы отстранены от игр ({until}): {reason}", "You are banned from games ({until}): {reason}"),
    AccountErrorCode.CONTACT_INVALID: (
        f"Укажите телефон или Skype (до {MAX_CONTACT} символов)",
        f"Give a phone number or Skype name (up to {MAX_CONTACT} characters)"),
    AccountErrorCode.CONTACT_FORBIDDEN: (
        "Контакты жителя видят только Прокуратор и Трибун его города",
        "Only the Procurator and the Tribune of the resident's city may see contacts"),
    AccountErrorCode.CONTACT_MISSING: ("Контакт не указан", "No contact was given"),
    AccountErrorCode.SANCTION_FORBIDDEN: (
        "Санкции записывают Прокуратор и Верховный арбитр игры",
        "Sanctions are recorded by the game's Procurator and Supreme Arbiter"),
    AccountErrorCode.SANCTION_INVALID: ("Неверная санкция: {detail}", "Invalid sanction: {detail}"),
    AccountErrorCode.UNKNOWN_USER: ("Нет пользователя «{user}»", "There is no user '{user}'"),
}


class AccountError(Exception):
    def __init__(self, code: AccountErrorCode, **fields: Any) -> None:
        self.code = code
        self.fields = fields
        super().__init__(f"{code}: {self.message('en')}")

    def message(self, lang: str = "ru") -> str:
        ru, en = MESSAGES[self.code]
        try:
            return (ru if lang == "ru" else en).format(**self.fields)
        except (KeyError, IndexError):
            return ru if lang == "ru" else en


@dataclass(frozen=True)
class User:
    user_id: str
    display_name: str


@dataclass(frozen=True)
class Session:
    user: User
    token: str
    expires_real: float


class SessionExpired(Exception):
    """The cookie names a session that has expired."""


@dataclass(frozen=True)
class AccountPolicy:
    session_ttl_seconds: float = 14 * 24 * 3600
    max_failures: int = 5
    failure_window_seconds: float = 15 * 60
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 64 * 1024


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class AccountService:
    def __init__(self, store: AccountStore, contact_key: bytes, clock: Clock | None = None,
                 policy: AccountPolicy | None = None) -> None:
        self.store = store
        self.clock = clock or SystemClock()
        self.policy = policy or AccountPolicy()
        self._hasher = PasswordHasher(time_cost=self.policy.argon2_time_cost,  # argon2id
                                      memory_cost=self.policy.argon2_memory_kib)
        self._fernet = Fernet(contact_key)

    # --- registration and sessions -------------------------------------------------

    async def register(self, login: str, password: str, display_name: str | None = None) -> User:
        login = login.strip().lower()
        if not LOGIN_PATTERN.match(login) or login in RESERVED:
            raise AccountError(AccountErrorCode.LOGIN_INVALID)
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise AccountError(AccountErrorCode.PASSWORD_WEAK)
        name = (display_name or login).strip()
        if not 1 <= len(name) <= 64:
            raise AccountError(AccountErrorCode.DISPLAY_NAME_INVALID)
        row = UserRow(login, name, self._hasher.hash(password), self.clock.now())
        if not await self.store.add_user(row):
            raise AccountError(AccountErrorCode.LOGIN_TAKEN, login=login)
        return User(login, name)

    async def login(self, login: str, password: str, ip: str) -> Session:
        """A new session; the login is rate-limited per login and IP address."""
        login = login.strip().lower()[:64]
        now = self.clock.now()
        window = self.policy.failure_window_seconds
        if await self.store.failures_since(login, ip, now - window) >= self.policy.max_failures:
            raise AccountError(AccountErrorCode.RATE_LIMITED, minutes=int(window // 60))
        row = await self.store.user(login)
        ok = row is not None and self._verify(row.password_hash, password)
        await self.store.record_attempt(login, ip, now, ok)
        if row is None or not ok:
            raise AccountError(AccountErrorCode.BAD_CREDENTIALS)
        token = secrets.token_urlsafe(32)
        expires = now + self.policy.session_ttl_seconds
        await self.store.add_session(token_hash(token), row.user_id, now, expires)
        return Session(User(row.user_id, row.display_name), token, expires)

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    async def logout(self, token: str) -> None:
        await self.store.drop_session(token_hash(token))

    async def resolve(self, token: str | None) -> User | None:
        """The user of a session token; None if unknown; SessionExpired if expired."""
        if not token or len(token) > 128:
            return None
        row = await self.store.session(token_hash(token))
        if row is None:
            return None
        if row.expires_real <= self.clock.now():
            await self.store.drop_session(token_hash(token))
            raise SessionExpired
        user = await self.store.user(row.user_id)
        return User(user.user_id, user.display_name) if user else None

    async def user(self, user_id: str) -> User | None:
        row = await self.store.user(user_id)
        return User(row.user_id, row.display_name) if row else None

    async def display_names(self, user_ids: list[str]) -> dict[str, str]:
        return await self.store.display_names(user_ids)

    # --- sanctions (PLAYER-7) ------------------------------------------------------

    async def check_not_banned(self, user_id: str) -> None:
        found = await self.store.sanctions_in_force(user_id, self.clock.now())
        if found:
            ban = found[-1]
            until = "∞" if ban.ends_real is None else _iso(ban.ends_real)
            raise AccountError(AccountErrorCode.BANNED, until=until, reason=ban.reason)

    async def record_sanction(self, state: GameState, game_id: str, issuer: str, user_id: str,
                              reason: str, rule: str, days: int | None) -> int:
        """OMERTA-2, IMPEACH-5: the game's Procurator or Supreme Arbiter records a ban."""
        if issuer not in {state.procurator, state.arbiter}:
            raise AccountError(AccountErrorCode.SANCTION_FORBIDDEN)
        if await self.store.user(user_id) is None:
            raise AccountError(AccountErrorCode.UNKNOWN_USER, user=user_id)
        if not reason.strip() or len(reason) > 2000:
            raise AccountError(AccountErrorCode.SANCTION_INVALID, detail="reason")
        if days is not None and not 1 <= days <= 36500:
            raise AccountError(AccountErrorCode.SANCTION_INVALID, detail="days")
        now = self.clock.now()
        ends = None if days is None else now + days * 86400
        return await self.store.add_sanction(user_id, reason.strip(), rule[:32], now, ends, issuer,
                                             game_id)

    async def sanctions(self) -> list[Sanction]:
        return await self.store.all_sanctions()

    async def register_game_sanction(self, game_id: str, state: GameState,
                                     command: RecordSanction) -> None:
        """OMERTA-2, PLAYER-7 (D8): a sanction the engine recorded (the Procurator's console)
        enters the registry sign-up checks. Once per decision, so a retried command adds
        nothing."""
        if not any(s.user == command.user and s.rule == command.rule
                   for s in state.records.sanctions):
            return  # the engine did not record it
        reason = command.reason.strip()
        for known in await self.store.all_sanctions():
            if (known.game_id, known.user_id, known.rule, known.reason, known.issued_by) == (
                    game_id, command.user, command.rule[:32], reason, command.actor):
                return
        # in force through the ``until`` date (Moscow), or for life
        ends = None if command.until is None else at_local(
            command.until + timedelta(days=1), "00:00").timestamp()
        await self.store.add_sanction(command.user, reason, command.rule[:32], self.clock.now(),
                                      ends, command.actor, game_id)

    # --- contact details (PLAYER-4, SEC-13) ----------------------------------------

    @staticmethod
    def validate_contact(contact: str) -> str:
        contact = contact.strip()
        if not 3 <= len(contact) <= MAX_CONTACT:
            raise AccountError(AccountErrorCode.CONTACT_INVALID)
        return contact

    async def save_contact(self, game_id: str, user_id: str, contact: str) -> None:
        contact = self.validate_contact(contact)
        token = self._fernet.encrypt(contact.encode()).decode()
        await self.store.put_contact(game_id, user_id, token, self.clock.now())

    @staticmethod
    def may_read_contact(state: GameState, viewer: str, subject: str) -> bool:
        """PLAYER-4: the Procurator, and the current Tribune of the resident's city; never
        once the game is over (§9.4)."""
        if state.stage is Stage.FINISHED:
            return False
        if viewer == state.procurator:
            return subject in state.signups or subject in state.residents
        city = state.city_of(subject)
        return city is not None and city.tribune == viewer

    async def read_contact(self, state: GameState, game_id: str, viewer: str, subject: str) -> str:
        """Decrypt a contact for an entitled viewer; every attempt is logged (SEC-13)."""
        granted = self.may_read_contact(state, viewer, subject)
        await self.store.log_contact_access(game_id, subject, viewer, granted, self.clock.now())
        if not granted:
            raise AccountError(AccountErrorCode.CONTACT_FORBIDDEN)
        stored = await self.store.contact(game_id, subject)
        if stored is None:
            raise AccountError(AccountErrorCode.CONTACT_MISSING)
        try:
            return self._fernet.decrypt(stored.encode()).decode()
        except InvalidToken as exc:
            raise AccountError(AccountErrorCode.CONTACT_MISSING) from exc

    # --- one-time form tokens ------------------------------------------------------

    async def consume_nonce(self, nonce: str, expires: float) -> bool:
        return await self.store.consume_nonce(nonce, expires, self.clock.now())


def _iso(real: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(real, UTC).strftime("%Y-%m-%d %H:%M UTC")
