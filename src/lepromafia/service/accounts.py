"""Accounts: registration, argon2id passwords, sessions, the login rate limit, contact
details encrypted at rest (PLAYER-4, SEC-13), the sanctions registry (PLAYER-7).

Who may read a contact is decided from the game's state (the Procurator, and the
Tribune of the resident's city), never from a list kept here.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import cache
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from cryptography.fernet import Fernet, InvalidToken

from ..engine.calendar import at_local
from ..engine.commands_host import RecordSanction
from ..engine.errors import N_, CodedError, CodeEnum
from ..engine.state import GameState, Stage
from ..store.accounts import AccountStore, Sanction, SessionRow, UserRow
from .clock import Clock, SystemClock

LOGIN_PATTERN = re.compile(r"^[a-z0-9_][a-z0-9_.-]{2,31}$")
log = logging.getLogger(__name__)
RESERVED = frozenset({"system", "admin", "root", "consigliere:", "anonymous"})
MIN_PASSWORD = 12  # ASVS 2.1.1
MAX_PASSWORD = 256
MIN_STRENGTH = 2
"""zxcvbn's score (0-4) a new password needs: 0-1 are guessable within 10^6 tries."""
MAX_CONTACT = 200
REFRESH_CHUNK = 100
"""Cached sessions read again per statement (``AccountService.refresh_sessions``)."""
REFRESH_PAUSE = 0.05
"""Seconds between two of those statements."""
IDLE_RENEW_STEP = 60.0
"""A session's idle deadline is written back at most once a minute."""


class AccountErrorCode(CodeEnum):
    LOGIN_INVALID = "login_invalid", 422, N_("Login: 3-32 characters, lower-case Latin letters, digits, '_', '.', '-'")  # noqa: E501
    LOGIN_TAKEN = "login_taken", 409, N_("Login '{login}' is taken")
    PASSWORD_WEAK = "password_weak", 422, N_("The password must be at least {minimum} characters long")
    PASSWORD_COMMON = "password_common", 422, N_("This password is too common or too easy to guess; choose another one")  # noqa: E501
    REGISTRATION_LIMITED = "registration_limited", 429, N_("Too many registrations from your address; try again in {minutes} min")  # noqa: E501
    DISPLAY_NAME_INVALID = "display_name_invalid", 422, N_("Display name: 1 to 64 characters")
    BAD_CREDENTIALS = "bad_credentials", 401, N_("Wrong login or password")
    RATE_LIMITED = "rate_limited", 429, N_("Too many failed logins; try again in {minutes} min")
    BANNED = "banned", 403, N_("You are banned from games ({until}): {reason}")
    CONTACT_INVALID = "contact_invalid", 422, N_("Give a phone number or Skype name (up to {limit} characters)")  # noqa: E501
    CONTACT_FORBIDDEN = "contact_forbidden", 403, N_("Only the Procurator and the Tribune of the resident's city may see contacts")  # noqa: E501
    CONTACT_MISSING = "contact_missing", 404, N_("No contact was given")
    SANCTION_FORBIDDEN = "sanction_forbidden", 403, N_("Sanctions are recorded by the game's Procurator and Supreme Arbiter")  # noqa: E501
    SANCTION_INVALID = "sanction_invalid", 422, N_("Invalid sanction: {detail}")
    UNKNOWN_USER = "unknown_user", 404, N_("There is no user '{user}'")


class AccountError(CodedError):
    """An account, login, contact or sanction request refused; nothing changed."""

    code: AccountErrorCode

    def __init__(self, code: AccountErrorCode, **fields: Any) -> None:
        super().__init__(code, "", **fields)


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
    """The absolute maximum of a session."""
    session_idle_seconds: float = 48 * 3600
    """A session unused this long expires (ASVS 3.3.2)."""
    max_failures: int = 5
    """Failed logins per login and IP address within the window."""
    max_failures_per_account: int = 10
    """Failed logins for one login from any address (spraying many addresses at one user)."""
    max_failures_per_ip: int = 30
    """Failed logins from one address for any login (spraying one password over many)."""
    failure_window_seconds: float = 15 * 60
    registrations_per_ip: int = 20
    registration_window_seconds: float = 3600
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 64 * 1024
    session_cache_seconds: float = 300.0
    """A resolved session is answered from memory this long (real seconds; 0: never).
    Logout and expiry drop it at once here and (``evict``, through Redis) in the other
    workers; otherwise another process notices within this time."""
    session_cache_size: int = 100_000


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
        # Unknown logins are verified against this, so they cost what known ones do (F4-3).
        self._decoy = self._hasher.hash(secrets.token_urlsafe(16))
        # token hash -> (session row, monotonic time until which it is answered from memory):
        # the lookup every request makes
        self._sessions: OrderedDict[str, tuple[SessionRow, float]] = OrderedDict()
        self._used: set[str] = set()
        """Cached sessions answered from memory since they were last read: only these are
        read again in the background (an idle socket's session is read on its next use)."""
        self._evictions = 0
        """Evictions so far (``refresh_sessions`` drops what it read across one)."""
        self.on_evict: Callable[[str | None, str | None], None] | None = None
        """Told (token hash, user) of every session this process ends or must read again
        (logout, expiry, a sanction): the composition root tells the other workers
        (``service.redis_bus``), whose caches ``evict`` it at once."""

    def evict(self, token_key: str | None = None, user: str | None = None) -> None:
        """Forget a cached session (by token hash) or every cached session of ``user``:
        the next request reads the store."""
        self._evictions += 1
        if token_key is not None:
            self._forget(token_key)
        if user is not None:
            for key in [k for k, (row, _) in self._sessions.items() if row.user_id == user]:
                self._forget(key)

    def _forget(self, key: str) -> None:
        self._sessions.pop(key, None)
        self._used.discard(key)

    def evict_all(self) -> None:
        """Forget every cached session (an eviction from another worker may have been
        missed: ``RedisBroker.on_resubscribed``)."""
        self._evictions += 1
        self._sessions.clear()
        self._used.clear()

    async def refresh_sessions(self) -> int:
        """Read again, in bulk, the cached sessions past half their time in memory that
        were used since their last read, so a command seldom waits for its session's
        read: a reconnect storm's 20,000 sessions are 200 statements in the background, a
        pause between two, not 20,000 reads on the commands' path five minutes later
        (session 19). An idle one is left to its next use (the background reads follow
        the active users, not the cache's size: session 20). One gone from the store is
        forgotten; a chunk read while any session was evicted is dropped (its rows may
        predate the eviction). Returns how many were read."""
        ttl = self.policy.session_cache_seconds
        if ttl <= 0:
            return 0
        half = time.monotonic() + ttl / 2
        used = self._used
        due = [key for key, (_, until) in self._sessions.items() if until < half and key in used]
        for at in range(0, len(due), REFRESH_CHUNK):
            if at:  # the commands first between two statements (SQLite's run on the loop)
                await asyncio.sleep(REFRESH_PAUSE)
            part = due[at:at + REFRESH_CHUNK]
            evictions = self._evictions
            rows = await self.store.sessions(part)
            if self._evictions != evictions:
                continue
            for key in part:
                row = rows.get(key)
                if key not in self._sessions:
                    continue
                if row is None:
                    self._forget(key)
                else:
                    self._sessions[key] = (row, self._fresh_until(ttl))
                    used.discard(key)
        return len(due)

    async def refresh_sessions_forever(self) -> None:
        """``refresh_sessions`` every eighth of ``session_cache_seconds``."""
        ttl = self.policy.session_cache_seconds
        while ttl > 0:
            await asyncio.sleep(max(1.0, ttl / 8))
            try:
                await self.refresh_sessions()
            except Exception:  # the commands' path reads them as before
                log.warning("cached sessions not read again", exc_info=True)

    @staticmethod
    def _fresh_until(ttl: float) -> float:
        """Answered from memory until a random ¾ to all of ``ttl`` from now: sessions read
        together are not due together."""
        return time.monotonic() + ttl * (0.75 + 0.25 * random.random())

    def _ended(self, token_key: str | None = None, user: str | None = None) -> None:
        self.evict(token_key, user)
        if self.on_evict is not None:
            self.on_evict(token_key, user)

    # --- registration and sessions -------------------------------------------------

    async def register(self, login: str, password: str, display_name: str | None = None,
                       ip: str | None = None) -> User:
        """A new account. A registration from the network (``ip``) is throttled per address
        before any hashing (``None``: seeded by the server itself, e.g. the demo); a taken
        login is told (registration needs it) only after the same work as a free one."""
        login = login.strip().lower()
        if not LOGIN_PATTERN.match(login) or login in RESERVED:
            raise AccountError(AccountErrorCode.LOGIN_INVALID, field="login")
        check_password(password, login)
        name = (display_name or login).strip()
        if not 1 <= len(name) <= 64:
            raise AccountError(AccountErrorCode.DISPLAY_NAME_INVALID, field="display_name")
        now = self.clock.now()
        if ip is not None:
            window = self.policy.registration_window_seconds
            if await self.store.registrations_since(ip, now - window) >= self.policy.registrations_per_ip:
                raise AccountError(AccountErrorCode.REGISTRATION_LIMITED, minutes=int(window // 60))
            await self.store.record_registration(ip, now)
        digest = await asyncio.to_thread(self._hasher.hash, password)
        row = UserRow(login, name, digest, now)
        if not await self.store.add_user(row):
            raise AccountError(AccountErrorCode.LOGIN_TAKEN, login=login, field="login")
        return User(login, name)

    async def login(self, login: str, password: str, ip: str) -> Session:
        """A new session. Limited per login and IP, per login, and per IP (F4-3); an unknown
        login costs one password verification like a known one (no timing oracle)."""
        login = login.strip().lower()[:64]
        now = self.clock.now()
        window = self.policy.failure_window_seconds
        since = now - window
        limited = (
            await self.store.failures_since(login, ip, since) >= self.policy.max_failures
            or await self.store.failures_for_login(login, since) >= self.policy.max_failures_per_account
            or await self.store.failures_from_ip(ip, since) >= self.policy.max_failures_per_ip
        )
        if limited:
            raise AccountError(AccountErrorCode.RATE_LIMITED, minutes=int(window // 60))
        row = await self.store.user(login)
        ok = await asyncio.to_thread(self._verify, row.password_hash if row else self._decoy, password)
        ok = ok and row is not None
        await self.store.record_attempt(login, ip, now, ok)
        if row is None or not ok:
            raise AccountError(AccountErrorCode.BAD_CREDENTIALS, field="password")
        token = secrets.token_urlsafe(32)
        expires = now + min(self.policy.session_ttl_seconds, self.policy.session_idle_seconds)
        await self.store.add_session(token_hash(token), row.user_id, now, expires)
        return Session(User(row.user_id, row.display_name), token, expires)

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    async def logout(self, token: str) -> None:
        key = token_hash(token)
        self._ended(key)
        await self.store.drop_session(key)

    async def resolve(self, token: str | None) -> User | None:
        """The user of a session token; None if unknown; SessionExpired if expired."""
        if not token or len(token) > 128:
            return None
        key = token_hash(token)
        row = await self._session(key)
        if row is None:
            return None
        now = self.clock.now()
        if row.expires_real <= now:
            self._ended(key)
            await self.store.drop_session(key)
            raise SessionExpired
        # the idle timeout slides with use, never past the absolute maximum
        renewed = min(row.created_real + self.policy.session_ttl_seconds,
                      now + self.policy.session_idle_seconds)
        if renewed - row.expires_real > IDLE_RENEW_STEP:
            await self.store.renew_session(key, renewed)
            if key in self._sessions:
                self._sessions[key] = (replace(row, expires_real=renewed), self._sessions[key][1])
        return User(row.user_id, row.display_name) if row.display_name is not None else None

    async def _session(self, key: str) -> SessionRow | None:
        """The session row, from memory if read less than ``session_cache_seconds`` ago
        (each kept a random ¾ to all of that, and, if used meanwhile, read again in bulk
        before it is due: ``refresh_sessions``). Unknown tokens are not remembered (a
        flood of made-up ones cannot fill the cache)."""
        ttl = self.policy.session_cache_seconds
        cached = self._sessions.get(key)
        if cached is not None and time.monotonic() < cached[1]:
            self._sessions.move_to_end(key)
            self._used.add(key)
            return cached[0]
        row = await self.store.session(key)
        if row is None or ttl <= 0:
            self._forget(key)
            return row
        self._sessions[key] = (row, self._fresh_until(ttl))
        self._sessions.move_to_end(key)
        self._used.discard(key)
        while len(self._sessions) > self.policy.session_cache_size:
            self._used.discard(self._sessions.popitem(last=False)[0])
        return row

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
            raise AccountError(AccountErrorCode.SANCTION_INVALID, detail=N_("give a reason"), field="reason")
        if days is not None and not 1 <= days <= 36500:
            raise AccountError(AccountErrorCode.SANCTION_INVALID, detail=N_("the length is not valid"),
                               field="days")
        now = self.clock.now()
        ends = None if days is None else now + days * 86400
        sanction = await self.store.add_sanction(user_id, reason.strip(), rule[:32], now, ends, issuer,
                                                 game_id)
        self._ended(user=user_id)  # every worker reads the banned player's sessions again
        return sanction

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
        self._ended(user=command.user)

    # --- contact details (PLAYER-4, SEC-13) ----------------------------------------

    @staticmethod
    def validate_contact(contact: str) -> str:
        contact = contact.strip()
        if not 3 <= len(contact) <= MAX_CONTACT:
            raise AccountError(AccountErrorCode.CONTACT_INVALID, limit=MAX_CONTACT, field="contact")
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

    async def contact_reads(self, state: GameState, game_id: str, viewer: str) -> list[dict[str, Any]]:
        """SEC-13: the log of contact reads, for the Procurator all of it, for a Tribune the
        reads of his own residents' contacts; newest first. Nobody else sees it."""
        rows = await self.store.contact_access_log(game_id)
        if viewer != state.procurator:
            rows = [r for r in rows if (c := state.city_of(r["subject"])) is not None and c.tribune == viewer]
        return list(reversed(rows))

    # --- one-time form tokens ------------------------------------------------------

    async def consume_nonce(self, nonce: str, expires: float) -> bool:
        return await self.store.consume_nonce(nonce, expires, self.clock.now())


def check_password(password: str, login: str = "") -> None:
    """ASVS 2.1.1, 2.1.7: at least 12 characters, not among the common passwords shipped
    with zxcvbn (30 000 of them), and not guessable by zxcvbn's estimate (the login, runs,
    keyboard patterns, dictionary words)."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(AccountErrorCode.PASSWORD_WEAK, minimum=MIN_PASSWORD, field="password")
    if password.lower() in _common_passwords():
        raise AccountError(AccountErrorCode.PASSWORD_COMMON, field="password")
    from zxcvbn import zxcvbn

    if zxcvbn(password[:100], user_inputs=[login] if login else [])["score"] < MIN_STRENGTH:
        raise AccountError(AccountErrorCode.PASSWORD_COMMON, field="password")


@cache
def _common_passwords() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"])


def _iso(real: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(real, UTC).strftime("%Y-%m-%d %H:%M UTC")
