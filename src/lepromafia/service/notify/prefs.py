"""Who wants what, where and when: preferences, quiet hours, digests.

A preference is looked up from the most to the least specific: this game and kind,
this game and every kind, the account's default for the kind, the account's default
for every kind; absent, a channel the person has set up is on. Quiet hours hold an
external notification until they end (in the person's time zone), except the last
reminder before a vote closes. A digest (hourly or daily, e-mail) holds e-mails to the
next hour, or to 09:00, and sends them as one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_LANGUAGE = "ru"
DEFAULT_ZONE = "Europe/Moscow"
DIGESTS = ("off", "hourly", "daily")
DAILY_AT = time(9, 0)


@dataclass(frozen=True)
class Profile:
    user_id: str
    language: str = DEFAULT_LANGUAGE
    time_zone: str = DEFAULT_ZONE
    quiet_start: str | None = None
    quiet_end: str | None = None
    digest: str = "off"
    email: str | None = None
    email_verified: bool = False
    unsubscribe_token: str = ""
    telegram_chat: str | None = None

    @classmethod
    def of(cls, user_id: str, row: dict[str, Any] | None) -> Profile:
        if row is None:
            return cls(user_id)
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in row.items() if k in names})

    @property
    def zone(self) -> ZoneInfo:
        try:
            return ZoneInfo(self.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            return ZoneInfo(DEFAULT_ZONE)


class Preferences:
    """One person's preference rows."""

    def __init__(self, rows: Iterable[dict[str, Any]]) -> None:
        self._rows = {(r["game_id"], r["kind"], r["channel"]): bool(r["enabled"]) for r in rows}

    def enabled(self, game_id: str, kind: str, channel: str) -> bool:
        for key in ((game_id, kind, channel), (game_id, "*", channel), ("", kind, channel),
                    ("", "*", channel)):
            if key in self._rows:
                return self._rows[key]
        return True


def parse_clock(value: str | None) -> time | None:
    if not value:
        return None
    hours, _, minutes = value.partition(":")
    if not (hours.isdigit() and minutes.isdigit()) or int(hours) > 23 or int(minutes) > 59:
        raise ValueError(value)
    return time(int(hours), int(minutes))


def quiet_until(profile: Profile, now_real: float) -> float | None:
    """The end of the quiet hours ``now_real`` falls in (Unix s), or None."""
    start, end = parse_clock(profile.quiet_start), parse_clock(profile.quiet_end)
    if start is None or end is None or start == end:
        return None
    local = datetime.fromtimestamp(now_real, profile.zone)
    t = local.time()
    inside = start <= t < end if start < end else (t >= start or t < end)
    if not inside:
        return None
    ends = local.replace(hour=end.hour, minute=end.minute, second=0, microsecond=0)
    if ends <= local:
        ends += timedelta(days=1)
    return ends.timestamp()


def digest_at(profile: Profile, now_real: float) -> float | None:
    """When this person's next digest goes out, or None without a digest."""
    if profile.digest not in ("hourly", "daily"):
        return None
    local = datetime.fromtimestamp(now_real, profile.zone)
    if profile.digest == "hourly":
        nxt = local.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    else:
        nxt = local.replace(hour=DAILY_AT.hour, minute=0, second=0, microsecond=0)
        if nxt <= local:
            nxt += timedelta(days=1)
    return nxt.timestamp()
