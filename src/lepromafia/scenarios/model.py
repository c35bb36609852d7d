"""The scenario file format: loading, validation and line numbers (docs/scenarios.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml

TOP_KEYS = {"name", "ex", "rules", "description", "first_day", "seed", "settings", "cast", "steps"}
CAST_KEYS = {"procurator", "consigliere", "arbiter", "cities"}
CITY_KEYS = {"tribune", "residents", "population", "mafia", "deal"}
DEAL_KEYS = {"order", "numbers"}


class ScenarioError(Exception):
    """The scenario file itself is wrong (not the game): bad key, bad time, bad name."""


@dataclass(frozen=True)
class CityCast:
    name: str
    tribune: str
    residents: tuple[str, ...]
    mafia: tuple[str, ...]
    named: frozenset[str]
    """Residents the file names; the others are generated fillers."""
    order: tuple[str, ...] | None = None
    numbers: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Cast:
    procurator: str
    consigliere: str
    arbiter: str | None
    cities: tuple[CityCast, ...]


@dataclass(frozen=True)
class Step:
    index: int
    line: int
    data: dict[str, Any]

    @property
    def label(self) -> str:
        at = self.data.get("at") or self.data.get("advance")
        name = self.data.get("name")
        parts = [f"step {self.index}", f"line {self.line}"]
        if at:
            parts.append(str(at))
        if name:
            parts.append(repr(name))
        return ", ".join(parts)


@dataclass(frozen=True)
class Scenario:
    path: str
    name: str
    ex: str | None
    rules: tuple[str, ...]
    first_day: date
    seed: int
    settings: dict[str, Any]
    cast: Cast
    steps: tuple[Step, ...] = field(default=())


def load(path: str | Path) -> Scenario:
    text = Path(path).read_text(encoding="utf-8")
    return parse(text, str(path))


def parse(text: str, path: str = "<scenario>") -> Scenario:
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(f"not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioError("the file must be a mapping with name, cast and steps")
    _only(data, TOP_KEYS, "the scenario")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ScenarioError("'name' is required")
    rules = data.get("rules", [])
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ScenarioError("'rules' must be a list of rule IDs like EXEC-7")
    first_day = data.get("first_day", date(2026, 12, 1))
    if isinstance(first_day, str):
        first_day = date.fromisoformat(first_day)
    if not isinstance(first_day, date):
        raise ScenarioError("'first_day' must be a date like 2026-12-01")
    seed = data.get("seed", 0)
    if not isinstance(seed, int):
        raise ScenarioError("'seed' must be an integer")
    settings = data.get("settings") or {}
    if not isinstance(settings, dict):
        raise ScenarioError("'settings' must be a mapping of setting keys (RULES.md §8)")
    steps_raw = data.get("steps") or []
    if not isinstance(steps_raw, list):
        raise ScenarioError("'steps' must be a list")
    lines = _step_lines(root)
    steps = []
    for i, raw in enumerate(steps_raw, start=1):
        line = lines[i - 1] if i - 1 < len(lines) else 0
        if not isinstance(raw, dict):
            raise ScenarioError(f"step {i} (line {line}) must be a mapping")
        steps.append(Step(i, line, raw))
    ex = data.get("ex")
    return Scenario(
        path=path,
        name=name.strip(),
        ex=str(ex) if ex is not None else None,
        rules=tuple(rules),
        first_day=first_day,
        seed=seed,
        settings=dict(settings),
        cast=_cast(data.get("cast")),
        steps=tuple(steps),
    )


def _step_lines(root: yaml.Node | None) -> list[int]:
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "steps" and isinstance(
            value, yaml.SequenceNode
        ):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _only(data: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ScenarioError(f"unknown key(s) {unknown} in {where}; allowed: {sorted(allowed)}")


def _cast(data: Any) -> Cast:
    if not isinstance(data, dict):
        raise ScenarioError("'cast' is required: procurator, consigliere, arbiter and cities")
    _only(data, CAST_KEYS, "cast")
    cities_raw = data.get("cities")
    if not isinstance(cities_raw, dict) or not cities_raw:
        raise ScenarioError("cast.cities must map city names to their residents")
    cities = []
    for i, (name, spec) in enumerate(cities_raw.items(), start=1):
        cities.append(_city(str(name), spec or {}, i))
    arbiter = data.get("arbiter", "arbiter")
    return Cast(
        procurator=str(data.get("procurator", "procurator")),
        consigliere=str(data.get("consigliere", "consigliere")),
        arbiter=str(arbiter) if arbiter else None,
        cities=tuple(cities),
    )


def _city(name: str, spec: Any, index: int) -> CityCast:
    where = f"cast.cities.{name}"
    if not isinstance(spec, dict):
        raise ScenarioError(f"{where} must be a mapping")
    _only(spec, CITY_KEYS, where)
    named = [str(u) for u in spec.get("residents") or []]
    mafia = [str(u) for u in spec.get("mafia") or []]
    for user in mafia:
        if user not in named:
            named.append(user)
    population = spec.get("population", len(named))
    if not isinstance(population, int) or population < len(named):
        raise ScenarioError(f"{where}.population must be an integer >= the {len(named)} named residents")
    fillers = [f"{name}_{n:02d}" for n in range(1, population - len(named) + 1)]
    residents = tuple(named + fillers)
    if len(set(residents)) != len(residents):
        raise ScenarioError(f"{where} names a resident twice")
    order = numbers = None
    deal = spec.get("deal")
    if deal is not None:
        if not isinstance(deal, dict):
            raise ScenarioError(f"{where}.deal must have 'order' and 'numbers'")
        _only(deal, DEAL_KEYS, f"{where}.deal")
        order = tuple(str(u) for u in deal.get("order") or [])
        numbers = tuple(int(n) for n in deal.get("numbers") or [])
        if sorted(order) != sorted(residents):
            raise ScenarioError(f"{where}.deal.order must list every resident exactly once")
        if mafia:
            raise ScenarioError(f"{where}: give either 'mafia' or 'deal', not both")
    return CityCast(
        name=name,
        tribune=str(spec.get("tribune", f"tribune{index}")),
        residents=residents,
        mafia=tuple(mafia),
        named=frozenset(named),
        order=order,
        numbers=numbers,
    )
