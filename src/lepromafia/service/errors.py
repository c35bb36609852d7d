"""Service-level rejections: coded like the engine's RuleViolation, in Russian and English.

A command is rejected either by the rules (``engine.RuleViolation``) or by the service
(``ServiceError``); in both cases nothing was written.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar


class ServiceErrorCode(StrEnum):
    UNKNOWN_GAME = "unknown_game"
    GAME_EXISTS = "game_exists"
    GAME_FINISHED = "game_finished"
    COMMAND_ID_INVALID = "command_id_invalid"
    COMMAND_ID_REUSED = "command_id_reused"
    CORRUPT_LOG = "corrupt_log"
    CONCURRENCY_CONFLICT = "concurrency_conflict"
    SERVICE_CLOSED = "service_closed"
    STORAGE_FULL = "storage_full"


MESSAGES: dict[ServiceErrorCode, tuple[str, str]] = {
    ServiceErrorCode.UNKNOWN_GAME: ("Игры «{game}» нет", "There is no game '{game}'"),
    ServiceErrorCode.GAME_EXISTS: ("Игра «{game}» уже есть", "Game '{game}' already exists"),
    ServiceErrorCode.GAME_FINISHED: ("Игра «{game}» окончена", "Game '{game}' is over"),
    ServiceErrorCode.COMMAND_ID_INVALID: (
        "Неверный идентификатор команды", "Invalid command id"),
    ServiceErrorCode.COMMAND_ID_REUSED: (
        "Идентификатор команды «{command_id}» уже использован для другой команды",
        "Command id '{command_id}' was already used for a different command"),
    ServiceErrorCode.CORRUPT_LOG: (
        "Журнал игры «{game}» повреждён начиная с события {seq}",
        "The log of game '{game}' is corrupt from event {seq}"),
    ServiceErrorCode.CONCURRENCY_CONFLICT: (
        "Игру «{game}» одновременно изменили; повторите команду",
        "Game '{game}' was changed concurrently; retry the command"),
    ServiceErrorCode.SERVICE_CLOSED: ("Сервис остановлен", "The service is stopped"),
    ServiceErrorCode.STORAGE_FULL: (
        "Серверу сейчас негде это сохранить; ничего не записано. Повторите через минуту",
        "The server has no room to store this right now; nothing was saved. Try again in a minute"),
}

_FULL_MARKERS = ("database or disk is full", "no space left on device", "could not extend file",
                 "disk full", "diskfull")


def storage_full(exc: BaseException) -> bool:
    """The store refused a write for want of disk space (SQLite ``SQLITE_FULL``, ``ENOSPC``,
    PostgreSQL class 53 ``disk_full``), anywhere in the exception's chain."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno == 28:  # ENOSPC
            return True
        if getattr(current, "sqlstate", None) in ("53100", "53000") or getattr(
                current, "pgcode", None) in ("53100", "53000"):
            return True
        if any(m in str(current).lower() for m in _FULL_MARKERS):
            return True
        current = current.__cause__ or current.__context__
    return False


class CodedError(Exception):
    """A rejection with a stable code, the rule it cites, and Russian/English messages taken
    from the subclass's ``messages`` table; ``statuses`` maps codes to HTTP statuses."""

    messages: ClassVar[Mapping[Any, tuple[str, str]]] = {}
    statuses: ClassVar[Mapping[Any, int]] = {}

    def __init__(self, code: Any, rule: str = "", **fields: Any) -> None:
        self.code = code
        self.rule = rule
        self.fields = fields
        super().__init__(f"{code}: {self.message('en')}")

    @property
    def status(self) -> int:
        return self.statuses.get(self.code, 400)

    def message(self, lang: str = "ru") -> str:
        ru, en = self.messages[self.code]
        template = ru if lang == "ru" else en
        try:
            return template.format(**self.fields)
        except (KeyError, IndexError):
            return template


class ServiceError(CodedError):
    messages = MESSAGES

    def __init__(self, code: ServiceErrorCode, **fields: Any) -> None:
        super().__init__(code, "", **fields)
