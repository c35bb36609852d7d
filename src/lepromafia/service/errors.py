# ruff: noqa: E501 - the code table reads best one code per line
"""Service-level rejections: coded like the engine's ``RuleViolation`` (both are ``CodedError``).

A command is rejected either by the rules (``engine.RuleViolation``) or by the service
(``ServiceError``); in both cases nothing was written. Each code declares its HTTP status and
its English message (the gettext msgid) beside it.
"""

from __future__ import annotations

from typing import Any

from ..engine.errors import N_, CodedError, CodeEnum


class ServiceErrorCode(CodeEnum):
    UNKNOWN_GAME = "unknown_game", 404, N_("There is no game '{game}'")
    GAME_EXISTS = "game_exists", 409, N_("Game '{game}' already exists")
    GAME_FINISHED = "game_finished", 409, N_("Game '{game}' is over")
    COMMAND_ID_INVALID = "command_id_invalid", 422, N_("Invalid command id")
    COMMAND_ID_REUSED = "command_id_reused", 409, N_("Command id '{command_id}' was already used for a different command")
    CORRUPT_LOG = "corrupt_log", 500, N_("The log of game '{game}' is corrupt from event {seq}")
    CONCURRENCY_CONFLICT = "concurrency_conflict", 503, N_("Game '{game}' was changed concurrently; retry the command")
    SERVICE_CLOSED = "service_closed", 503, N_("The service is stopped")
    NOTIFY_SETTING_INVALID = "notify_setting_invalid", 422, N_("This notification setting is not valid; nothing was changed")
    STORAGE_FULL = "storage_full", 503, N_("The server has no room to store this right now; nothing was saved. Try again in a minute")


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


class ServiceError(CodedError):
    code: ServiceErrorCode

    def __init__(self, code: ServiceErrorCode, **fields: Any) -> None:
        super().__init__(code, "", **fields)


__all__ = ["CodedError", "ServiceError", "ServiceErrorCode"]
