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


class ServiceError(CodedError):
    code: ServiceErrorCode

    def __init__(self, code: ServiceErrorCode, **fields: Any) -> None:
        super().__init__(code, "", **fields)


__all__ = ["CodedError", "ServiceError", "ServiceErrorCode"]
