"""Request and response bodies of the JSON API."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

MAX_INT = 2**31 - 1
"""Every integer parameter's upper bound: the stores' ``INTEGER`` columns (F1-1)."""
BoundedInt = Annotated[int, Field(ge=-MAX_INT, le=MAX_INT)]

COMMAND_ID = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.:@-]+$",
                   description="Client-chosen idempotency key: the same id twice has one effect")


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RegisterBody(Body):
    login: str = Field(max_length=64)
    password: str = Field(max_length=256)
    display_name: str | None = Field(default=None, max_length=64)


class LoginBody(Body):
    login: str = Field(max_length=64)
    password: str = Field(max_length=256)


class UserOut(BaseModel):
    user_id: str
    display_name: str


class SessionOut(BaseModel):
    user: UserOut
    token: str
    expires_real: float


class CreateGameBody(Body):
    game_id: str | None = Field(default=None, min_length=1, max_length=60, pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str = Field(min_length=1, max_length=200)
    settings: dict[str, Any] = Field(default_factory=dict)
    command_id: str = COMMAND_ID


class SignUpBody(Body):
    accepted: list[str] = Field(max_length=10)
    contact: str = Field(max_length=200, description="A phone number and/or Skype name (PLAYER-4)")
    command_id: str = COMMAND_ID


class CommandIdBody(Body):
    command_id: str = COMMAND_ID


class CityBody(Body):
    city: str = Field(max_length=120)
    command_id: str = COMMAND_ID


class SanctionBody(Body):
    user: str = Field(max_length=32)
    reason: str = Field(min_length=1, max_length=2000)
    rule: str = Field(default="PLAYER-7", max_length=32)
    days: int | None = Field(default=None, ge=1, le=36500, description="None: a lifetime ban")


class AckOut(BaseModel):
    game_id: str
    command_id: str
    first_seq: int
    last_seq: int
    event_count: int


class ErrorBody(BaseModel):
    code: str
    message: str
    rule: str | None = None


class ErrorOut(BaseModel):
    error: ErrorBody


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 403, 404, 409, 413, 422, 429, 503)
}
