"""Accounts and everything personal that is not part of a game's event log.

Users, sessions, login attempts, contact details (encrypted elsewhere; stored here
apart from the game, SEC-13) with their access log, the community sanctions registry
(PLAYER-7), one-time CSRF nonces and per-inbox read markers. The tables live on the
store's metadata so one migration history covers both.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from .event_store import EventStore
from .schema import ID, inbox_reads, metadata

users = Table(
    "users",
    metadata,
    Column("user_id", String(32), primary_key=True),
    # The login, lower case; also the actor id in every game command.
    Column("display_name", String(64), nullable=False),
    Column("password_hash", Text, nullable=False),
    Column("created_real", Float, nullable=False),
)

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    # sha256 of the cookie value: a stolen database does not yield live sessions.
    Column("user_id", String(32), nullable=False),
    Column("created_real", Float, nullable=False),
    Column("expires_real", Float, nullable=False),
    Index("ix_sessions_user", "user_id"),
)

login_attempts = Table(
    "login_attempts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("login", String(64), nullable=False),
    Column("ip", String(64), nullable=False),
    Column("at_real", Float, nullable=False),
    Column("ok", Boolean, nullable=False),
    Index("ix_login_attempts_key", "login", "ip", "at_real"),
    # The per-address limits (failed logins, registrations; migration 0006):
    Index("ix_login_attempts_ip", "ip", "at_real"),
)

contacts = Table(
    "contacts",
    metadata,
    Column("game_id", ID, primary_key=True),
    Column("user_id", String(32), primary_key=True),
    Column("ciphertext", Text, nullable=False),
    Column("created_real", Float, nullable=False),
)

contact_access_log = Table(
    "contact_access_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", ID, nullable=False),
    Column("subject", String(32), nullable=False),
    Column("viewer", String(32), nullable=False),
    Column("granted", Boolean, nullable=False),
    Column("at_real", Float, nullable=False),
    Index("ix_contact_access_game", "game_id", "subject"),
)

sanctions = Table(
    "sanctions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", String(32), nullable=False),
    Column("reason", Text, nullable=False),
    Column("rule", String(32), nullable=False),
    Column("starts_real", Float, nullable=False),
    Column("ends_real", Float),
    # NULL: a lifetime ban.
    Column("issued_by", String(32), nullable=False),
    Column("game_id", ID, nullable=False),
    Index("ix_sanctions_user", "user_id"),
)

csrf_nonces = Table(
    "csrf_nonces",
    metadata,
    Column("nonce", String(64), primary_key=True),
    Column("expires_real", Float, nullable=False),
    Index("ix_csrf_nonces_expires", "expires_real"),
)



@dataclass(frozen=True)
class UserRow:
    user_id: str
    display_name: str
    password_hash: str
    created_real: float


@dataclass(frozen=True)
class SessionRow:
    user_id: str
    expires_real: float
    created_real: float
    display_name: str | None = None
    """The user's display name, read with the session (None if the user is gone)."""


REGISTRATION = "+register"
"""The ``login_attempts.login`` of a registration (no login can start with ``+``): the
per-address registration throttle counts these rows."""


@dataclass(frozen=True)
class Sanction:
    id: int
    user_id: str
    reason: str
    rule: str
    starts_real: float
    ends_real: float | None
    issued_by: str
    game_id: str


class AccountStore:
    """Plain reads and writes; policy (who may, hashing, encryption) is the service's."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        # the request's shared read ends first, so the reads after this write see it
        async with self.store.write_connection() as conn:
            yield conn

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        async with self.store.connection() as conn:
            yield conn

    # --- users and sessions --------------------------------------------------------

    async def add_user(self, row: UserRow) -> bool:
        """False if the login is taken."""
        try:
            async with self._write() as conn:
                await conn.execute(insert(users).values(**row.__dict__))
        except IntegrityError:
            return False
        return True

    async def user(self, user_id: str) -> UserRow | None:
        async with self._read() as conn:
            r = (await conn.execute(select(users).where(users.c.user_id == user_id))).first()
        return UserRow(**r._mapping) if r else None

    async def display_names(self, user_ids: list[str]) -> dict[str, str]:
        if not user_ids:
            return {}
        async with self._read() as conn:
            rows = await conn.execute(select(users.c.user_id, users.c.display_name)
                                      .where(users.c.user_id.in_(user_ids)))
            return {r.user_id: r.display_name for r in rows}

    async def add_session(self, token_hash: str, user_id: str, now: float, expires: float) -> None:
        async with self._write() as conn:
            await conn.execute(insert(sessions).values(
                token_hash=token_hash, user_id=user_id, created_real=now, expires_real=expires))

    async def session(self, token_hash: str) -> SessionRow | None:
        """The session and its user's display name, in one statement (every request asks)."""
        return (await self._sessions(sessions.c.token_hash == token_hash)).get(token_hash)

    async def sessions(self, token_hashes: Sequence[str]) -> dict[str, SessionRow]:
        """``session`` for many tokens in one statement (by token hash; an unknown one is
        absent)."""
        return await self._sessions(sessions.c.token_hash.in_(list(token_hashes)))

    async def _sessions(self, where: Any) -> dict[str, SessionRow]:
        query = (select(sessions.c.token_hash, sessions.c.user_id, sessions.c.expires_real,
                        sessions.c.created_real, users.c.display_name)
                 .select_from(sessions.outerjoin(users, users.c.user_id == sessions.c.user_id))
                 .where(where))
        async with self.store.single_read() as conn:
            rows = (await conn.execute(query)).all()
        return {r.token_hash: SessionRow(r.user_id, r.expires_real, r.created_real, r.display_name)
                for r in rows}

    async def renew_session(self, token_hash: str, expires: float) -> None:
        async with self._write() as conn:
            await conn.execute(update(sessions).where(sessions.c.token_hash == token_hash)
                               .values(expires_real=expires))

    async def drop_session(self, token_hash: str) -> None:
        async with self._write() as conn:
            await conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))

    # --- login rate limit ----------------------------------------------------------

    async def record_attempt(self, login: str, ip: str, now: float, ok: bool) -> None:
        async with self._write() as conn:
            await conn.execute(insert(login_attempts).values(login=login, ip=ip, at_real=now, ok=ok))

    async def failures_since(self, login: str, ip: str, since: float) -> int:
        """Failed attempts for this login from this IP since ``since`` and after the last success."""
        a = login_attempts
        async with self._read() as conn:
            last_ok = (await conn.execute(select(func.max(a.c.id)).where(and_(
                a.c.login == login, a.c.ip == ip, a.c.ok.is_(True))))).scalar_one_or_none()
            return int((await conn.execute(select(func.count()).select_from(a).where(and_(
                a.c.login == login, a.c.ip == ip, a.c.ok.is_(False), a.c.at_real > since,
                a.c.id > (last_ok or 0))))).scalar_one())

    async def failures_for_login(self, login: str, since: float) -> int:
        """Failed attempts for this login from any address since ``since``."""
        a = login_attempts
        async with self._read() as conn:
            return int((await conn.execute(select(func.count()).select_from(a).where(and_(
                a.c.login == login, a.c.ok.is_(False), a.c.at_real > since)))).scalar_one())

    async def failures_from_ip(self, ip: str, since: float) -> int:
        """Failed attempts from this address for any login since ``since``."""
        a = login_attempts
        async with self._read() as conn:
            return int((await conn.execute(select(func.count()).select_from(a).where(and_(
                a.c.ip == ip, a.c.ok.is_(False), a.c.at_real > since,
                a.c.login != REGISTRATION)))).scalar_one())

    async def record_registration(self, ip: str, now: float) -> None:
        await self.record_attempt(REGISTRATION, ip, now, True)

    async def registrations_since(self, ip: str, since: float) -> int:
        a = login_attempts
        async with self._read() as conn:
            return int((await conn.execute(select(func.count()).select_from(a).where(and_(
                a.c.login == REGISTRATION, a.c.ip == ip, a.c.at_real > since)))).scalar_one())

    # --- contact details (SEC-13) --------------------------------------------------

    async def put_contact(self, game_id: str, user_id: str, ciphertext: str, now: float) -> None:
        async with self._write() as conn:
            await conn.execute(delete(contacts).where(and_(
                contacts.c.game_id == game_id, contacts.c.user_id == user_id)))
            await conn.execute(insert(contacts).values(
                game_id=game_id, user_id=user_id, ciphertext=ciphertext, created_real=now))

    async def contact(self, game_id: str, user_id: str) -> str | None:
        async with self._read() as conn:
            return (await conn.execute(select(contacts.c.ciphertext).where(and_(
                contacts.c.game_id == game_id, contacts.c.user_id == user_id)))).scalar_one_or_none()

    async def log_contact_access(self, game_id: str, subject: str, viewer: str, granted: bool,
                                 now: float) -> None:
        async with self._write() as conn:
            await conn.execute(insert(contact_access_log).values(
                game_id=game_id, subject=subject, viewer=viewer, granted=granted, at_real=now))

    async def contact_access_log(self, game_id: str) -> list[dict[str, Any]]:
        log = contact_access_log
        async with self._read() as conn:
            rows = await conn.execute(select(log).where(log.c.game_id == game_id).order_by(log.c.id))
            return [dict(r._mapping) for r in rows]

    # --- sanctions (PLAYER-7) ------------------------------------------------------

    async def add_sanction(self, user_id: str, reason: str, rule: str, starts: float,
                           ends: float | None, issued_by: str, game_id: str) -> int:
        async with self._write() as conn:
            result = await conn.execute(insert(sanctions).values(
                user_id=user_id, reason=reason, rule=rule, starts_real=starts, ends_real=ends,
                issued_by=issued_by, game_id=game_id))
            key = result.inserted_primary_key
            return int(key[0]) if key else 0

    async def sanctions_in_force(self, user_id: str, now: float) -> list[Sanction]:
        s = sanctions
        async with self._read() as conn:
            rows = await conn.execute(select(s).where(and_(
                s.c.user_id == user_id, s.c.starts_real <= now,
                or_(s.c.ends_real.is_(None), s.c.ends_real > now))).order_by(s.c.id))
            return [Sanction(**r._mapping) for r in rows]

    async def all_sanctions(self) -> list[Sanction]:
        async with self._read() as conn:
            rows = await conn.execute(select(sanctions).order_by(sanctions.c.id))
            return [Sanction(**r._mapping) for r in rows]

    # --- one-time CSRF nonces ------------------------------------------------------

    async def consume_nonce(self, nonce: str, expires: float, now: float) -> bool:
        """False if the nonce was used before (a replayed form)."""
        try:
            async with self._write() as conn:
                await conn.execute(delete(csrf_nonces).where(csrf_nonces.c.expires_real < now))
                await conn.execute(insert(csrf_nonces).values(nonce=nonce, expires_real=expires))
        except IntegrityError:
            return False
        return True

    # --- read markers --------------------------------------------------------------

    async def mark_read(self, game_id: str, inbox: str, user_id: str, seq: int) -> None:
        r = inbox_reads
        key = and_(r.c.game_id == game_id, r.c.inbox == inbox, r.c.user_id == user_id)
        async with self._write() as conn:
            current = (await conn.execute(select(r.c.last_seq).where(key))).scalar_one_or_none()
            if current is None:
                await conn.execute(insert(r).values(game_id=game_id, inbox=inbox, user_id=user_id,
                                                    last_seq=seq))
            elif seq > current:
                await conn.execute(update(r).where(key).values(last_seq=seq))

    async def read_markers(self, game_id: str, user_id: str) -> dict[str, int]:
        r = inbox_reads
        async with self._read() as conn:
            rows = await conn.execute(select(r.c.inbox, r.c.last_seq).where(and_(
                r.c.game_id == game_id, r.c.user_id == user_id)))
            return {row.inbox: row.last_seq for row in rows}
