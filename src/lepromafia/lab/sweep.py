"""What a lab run plays: a baseline and, per varied setting, one variant per value.

A setting is any ``GameSettings`` field (``mafia_share_percent=15,20,25``), ``cities``
(the number of cities), or one of the four institutions switched on and off:
``court`` (``supreme_court_mode`` always/never), ``spirits`` (``spirit_rule_enabled``),
and ``tours`` / ``ambush``, which the engine always offers — "off" means the mafia never
uses them, so the lab measures what using them is worth.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..bots.strategy import Skills
from ..engine.errors import RuleViolation
from ..engine.settings import GameSettings

INSTITUTIONS = ("court", "tours", "ambush", "spirits")
_ON = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}
FULL_CHECK_EVERY = 10
"""In a big sweep every 10th game gets the whole-log invariant check; the rest the per-step one."""
BIG_SWEEP = 200


class SweepError(ValueError):
    """A sweep that cannot be played, explained in words."""


@dataclass(frozen=True)
class Variant:
    """One arm of the experiment: the setting it varies and the games' parameters."""

    setting: str
    value: str
    cities: int
    settings: dict[str, Any] = field(default_factory=dict)
    tours: bool = True
    ambushes: bool = True

    def same_games(self, other: Variant) -> bool:
        """True when both arms play identical games (e.g. court=on where the Court exists anyway)."""
        return (self.cities, self.tours, self.ambushes) == (other.cities, other.tours, other.ambushes) \
            and _effective(self) == _effective(other)

    @property
    def label(self) -> str:
        return "baseline" if self.setting == "baseline" else f"{self.setting}={self.value}"


@dataclass(frozen=True)
class Job:
    """One game to play (plain data, so it pickles to a process or a Dask worker)."""

    variant: Variant
    index: int
    seed: int
    population: int
    skills: Skills
    full_check: bool


@dataclass(frozen=True)
class Sweep:
    games: int
    cities: int
    varies: tuple[tuple[str, tuple[str, ...]], ...] = ()
    skills: Skills = field(default_factory=Skills)
    population: int = 20
    seed: int = 0
    institutions: bool = False
    """Also play each institution on and off (the report's institutions section)."""

    def variants(self) -> list[Variant]:
        found = [Variant("baseline", "", self.cities)]
        varies = list(self.varies)
        if self.institutions:
            varies += [(name, ("on", "off")) for name in INSTITUTIONS if name not in dict(self.varies)]
        for setting, values in varies:
            for value in values:
                found.append(variant(setting, value, self.cities))
        return found

    def jobs(self) -> list[Job]:
        """Every game to play; each variant plays the same seeds, so arms differ only by the
        setting. An arm that would replay the baseline's games exactly is not played twice
        (``copies``)."""
        variants = [v for v in self.variants() if v not in self.copies()]
        big = self.games * len(variants) >= BIG_SWEEP
        return [Job(v, i, self.seed + i, self.population, self.skills,
                    full_check=not big or i % FULL_CHECK_EVERY == 0)
                for v in variants for i in range(self.games)]

    def copies(self) -> list[Variant]:
        """Arms identical to the baseline; the lab reports the baseline's games for them."""
        base, *rest = self.variants()
        return [v for v in rest if v.same_games(base)]


def _effective(v: Variant) -> tuple[Any, ...]:
    settings = GameSettings.from_mapping({"city_count": v.cities, **v.settings})
    return (dataclasses.replace(settings, supreme_court_mode="auto"), settings.has_court)


def parse_vary(text: str) -> tuple[str, tuple[str, ...]]:
    """«mafia_share_percent=15,20,25» -> ("mafia_share_percent", ("15", "20", "25")), checked."""
    setting, sep, values = text.partition("=")
    setting = setting.strip()
    parts = tuple(v.strip() for v in values.split(",") if v.strip())
    if not sep or not setting or not parts:
        raise SweepError(f"«{text}»: write a setting and its values, e.g. mafia_share_percent=15,20,25")
    for value in parts:
        variant(setting, value, 5)  # raises with the reason
    return setting, parts


def variant(setting: str, value: str, cities: int) -> Variant:
    """The variant that sets ``setting`` to ``value`` (text as typed on the command line)."""
    if setting == "cities":
        if not value.isdigit() or not 1 <= int(value) <= 10:
            raise SweepError(f"cities={value}: the number of cities must be a whole number from 1 to 10")
        return Variant(setting, value, int(value))
    if setting in INSTITUTIONS:
        on = _ON.get(value.lower())
        if on is None:
            raise SweepError(f"{setting}={value}: an institution is switched on or off")
        if setting == "court":
            return Variant(setting, value, cities, {"supreme_court_mode": "always" if on else "never"})
        if setting == "spirits":
            return Variant(setting, value, cities, {"spirit_rule_enabled": on})
        if setting == "tours":
            return Variant(setting, value, cities, tours=on)
        return Variant(setting, value, cities, ambushes=on)
    known = {f.name: f for f in dataclasses.fields(GameSettings)}
    if setting not in known:
        raise SweepError(f"«{setting}» is not a game setting (see RULES.md §8), nor cities, "
                         f"nor one of {', '.join(INSTITUTIONS)}")
    typed = _typed(getattr(GameSettings(), setting), setting, value)
    try:
        GameSettings.from_mapping({setting: typed})
    except RuleViolation as exc:
        raise SweepError(f"{setting}={value}: {exc.message()}") from exc
    return Variant(setting, value, cities, {setting: typed})


def _typed(default: Any, setting: str, value: str) -> Any:
    if isinstance(default, bool):
        on = _ON.get(value.lower())
        if on is None:
            raise SweepError(f"{setting}={value}: write on or off")
        return on
    if isinstance(default, int):
        try:
            return int(value)
        except ValueError:
            raise SweepError(f"{setting}={value}: a whole number is needed") from None
    return value
