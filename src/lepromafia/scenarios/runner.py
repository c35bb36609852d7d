"""Run a scenario: set the game up, play its timed steps, check what it expects.

A step may carry ``at`` (move the clock, firing due deadlines first), one action
(or ``advance``), ``seed`` for lots drawn while the clock moves, ``expect_reject``
and ``expect``. The first failing step ends the run: later steps would build on
a game that already went differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..engine import commands as cmd
from ..engine.errors import ErrorCode, RuleViolation
from ..engine.table import Table
from . import expectations
from .actions import ACTIONS, build
from .inbox_names import resolve
from .model import Scenario, ScenarioError, Step, load
from .setup import setup
from .times import TimeFormatError, parse_time, show

MACROS = {"elect_judges"}
STEP_KEYS = {"at", "advance", "seed", "name", "note", "expect", "expect_reject", *ACTIONS, *MACROS}


@dataclass(frozen=True)
class Failure:
    path: str
    where: str
    what: str
    expected: Any = None
    actual: Any = None

    def __str__(self) -> str:
        text = f"{self.path}: {self.where}: {self.what}"
        if self.expected is not None or self.actual is not None:
            text += f": expected {self.expected!r}, got {self.actual!r}"
        return text


@dataclass
class Result:
    path: str
    name: str
    steps_run: int = 0
    failures: list[Failure] = field(default_factory=list)
    table: Table | None = None

    @property
    def passed(self) -> bool:
        return not self.failures


class Run:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.table, self.now = setup(scenario)

    def time(self, value: object) -> datetime:
        try:
            return parse_time(value, self.scenario.first_day, self.table.state)
        except TimeFormatError as exc:
            raise ScenarioError(str(exc)) from None

    def move_clock(self, to: datetime, seed: int) -> None:
        if to < self.now:
            raise ScenarioError(f"time runs backwards: {show(to)} is before {show(self.now)}")
        self.table.advance(to, seed=lambda: seed)
        self.now = to

    def step(self, step: Step) -> list[Failure]:
        data = step.data
        unknown = sorted(set(data) - STEP_KEYS)
        if unknown:
            raise ScenarioError(f"unknown step key(s) {unknown}; allowed: {sorted(STEP_KEYS)}")
        actions = [k for k in data if k in ACTIONS or k in MACROS]
        if len(actions) + ("advance" in data) > 1:
            found = actions + (["advance"] if "advance" in data else [])
            raise ScenarioError(f"one action per step, found {found}")
        seed = data.get("seed", self.scenario.seed)
        if not isinstance(seed, int):
            raise ScenarioError("'seed' must be an integer")
        before = len(self.table.events)
        for key in ("at", "advance"):
            if key in data:
                self.move_clock(self.time(data[key]), seed)
        if actions and actions[0] == "elect_judges":
            if "expect_reject" in data:
                raise ScenarioError("elect_judges plays a whole election; test rejections step by step")
            failures = self._elect_judges(step, data["elect_judges"], seed)
        else:
            failures = self._act(step, actions[0]) if actions else []
        if "expect_reject" in data and not actions:
            raise ScenarioError("'expect_reject' needs an action in the same step")
        if failures:
            return failures
        if "expect" in data:
            facts = expectations.Facts(
                state=self.table.game, events=self.table.events,
                step_events=self.table.events[before:], parse_time=self.time,
            )
            for m in expectations.run(facts, data["expect"]):
                failures.append(Failure(self.scenario.path, step.label, m.what, m.expected, m.actual))
        return failures

    def _act(self, step: Step, action: str) -> list[Failure]:
        want = step.data.get("expect_reject")
        if want is not None and want not in {c.value for c in ErrorCode}:
            raise ScenarioError(f"expect_reject: {want!r} is not an error code (engine/errors.py)")
        command = build(self.table.game, action, step.data[action], self.time)
        path, where = self.scenario.path, step.label
        try:
            self.table.do(command, self.now)
        except RuleViolation as exc:
            if want is None:
                return [Failure(path, where, f"{action} was rejected unexpectedly", "accepted",
                                f"{exc.code.value} ({exc.message()})")]
            if exc.code.value != want:
                return [Failure(path, where, f"{action} rejection code", want, exc.code.value)]
            return []
        if want is not None:
            return [Failure(path, where, f"{action} should have been rejected", want, "accepted")]
        return []


    def _elect_judges(self, step: Step, spec: Any, seed: int) -> list[Failure]:
        """A shorthand for Day 1's elections: in each named city one citizen proposes the
        judge, the polls open, the same citizen posts «Он — Ганди!», and the polls close."""
        if not isinstance(spec, dict) or not spec:
            raise ScenarioError("elect_judges: map cities to their judges, e.g. {A: JA, B: JB}")
        state = self.table.game
        voters: dict[str, str] = {}
        for city_name, judge in spec.items():
            city = state.cities.get(str(city_name))
            if city is None or city.election is None or city.election.opened:
                raise ScenarioError(f"elect_judges: {city_name} has no election waiting to open")
            voter = next((u for u in city.residents if u != judge and state.residents[u].alive
                          and u not in city.spirits), None)
            if voter is None:
                raise ScenarioError(f"elect_judges: nobody in {city_name} can propose {judge}")
            voters[str(city_name)] = voter
        elections = [state.cities[c].election for c in voters]
        opens = max(e.opens_at for e in elections if e)
        closes = max(e.closes_at for e in elections if e)
        plays: list[tuple[datetime | None, cmd.Command]] = []
        for city_name, voter in voters.items():
            plays.append((None, cmd.ProposeJudge(actor=voter, candidate=str(spec[city_name]))))
        for city_name, voter in voters.items():
            plays.append((opens, cmd.PostMessage(actor=voter, inbox=f"?polling {spec[city_name]}",
                                                 text="Он — Ганди!")))
        for moment, command in plays:
            if moment is not None and moment > self.now:
                self.move_clock(moment, seed)
            if isinstance(command, cmd.PostMessage):
                command = cmd.PostMessage(actor=command.actor, text=command.text,
                                          inbox=resolve(self.table.game, command.inbox[1:], command.actor))
            try:
                self.table.do(command, self.now)
            except RuleViolation as exc:
                return [Failure(self.scenario.path, step.label, "elect_judges: a command was rejected",
                                type(command).__name__, f"{exc.code.value} ({exc.message()})")]
        self.move_clock(closes, seed)
        return []


def run_scenario(scenario: Scenario) -> Result:
    result = Result(scenario.path, scenario.name)
    try:
        run = Run(scenario)
        result.table = run.table
        for step in scenario.steps:
            try:
                failures = run.step(step)
            except ScenarioError as exc:
                failures = [Failure(scenario.path, step.label, f"invalid step: {exc}")]
            result.steps_run += 1
            if failures:
                result.failures.extend(failures)
                break
    except ScenarioError as exc:
        result.failures.append(Failure(scenario.path, "set-up", f"invalid scenario: {exc}"))
    return result


def run_file(path: str | Path) -> Result:
    try:
        scenario = load(path)
    except (ScenarioError, OSError, ValueError) as exc:
        return Result(str(path), "?", failures=[Failure(str(path), "loading", f"invalid scenario: {exc}")])
    return run_scenario(scenario)
