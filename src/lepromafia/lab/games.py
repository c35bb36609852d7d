"""One lab game: played by the strategy bots, checked, and summed up as a plain record."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ..bots.strategy.match import play
from ..engine import events as ev
from ..engine.state import Faction
from .sweep import Job

ROLES = ("honest", "mafia", "commissar", "judge", "godfather")


@dataclass
class GameRecord:
    label: str
    setting: str
    value: str
    cities: int
    index: int
    seed: int
    result: str
    days: int
    events: int
    full_check: bool
    violations: int
    first_violation: str
    seconds: float
    city_outcomes: list[dict[str, Any]] = field(default_factory=list)
    """Per city: name, outcome (honest/mafia/draw/playing), the living of each side."""
    roles: dict[str, list[int]] = field(default_factory=dict)
    """Role -> [held it, alive at the end]; commissar, judge and Godfather count every holder."""
    commissar_days: list[list[int]] = field(default_factory=list)
    """Per commissar: [days in office, 1 if his office ended before the game did, else 0]."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def play_job(job: Job) -> GameRecord:
    started = time.perf_counter()
    v = job.variant
    report = play(job.seed, v.cities, job.population, v.settings, job.skills,
                  tours=v.tours, ambushes=v.ambushes, check="full" if job.full_check else "cheap")
    s = report.table.game
    outcomes = []
    for name, city in s.cities.items():
        mafia = len(s.living_mafia(name))
        outcomes.append({"city": name, "outcome": city.decided.value if city.decided else "playing",
                         "mafia_alive": mafia, "honest_alive": len(s.living(name)) - mafia})
    roles = {role: [0, 0] for role in ROLES}
    for _user, resident in s.residents.items():
        side = "mafia" if resident.faction is Faction.MAFIA else "honest"
        roles[side][0] += 1
        roles[side][1] += resident.alive
    holders: dict[str, set[str]] = {"commissar": set(), "judge": set(), "godfather": set()}
    day = 0
    began: dict[str, int] = {}
    served: list[list[int]] = []
    for e in report.table.events:
        if isinstance(e, ev.DayStarted):
            day = e.day
        elif isinstance(e, ev.CommissarAppointed):
            holders["commissar"].add(e.commissar)
            began[e.commissar] = day
        elif isinstance(e, ev.CommissarVacated) and e.commissar in began:
            served.append([day - began.pop(e.commissar), 1])
        elif isinstance(e, ev.JudgeElectionClosed) and e.elected:
            holders["judge"].add(e.elected)
        elif isinstance(e, ev.GodfatherElected):
            holders["godfather"].add(e.godfather)
    served.extend([day - start, 0] for start in began.values())
    for role, users in holders.items():
        roles[role] = [len(users), sum(1 for u in users if s.residents[u].alive)]
    return GameRecord(
        label=v.label, setting=v.setting, value=v.value, cities=v.cities, index=job.index,
        seed=job.seed, result=report.result or "unfinished", days=report.days, events=report.events,
        full_check=job.full_check, violations=len(report.violations),
        first_violation=report.violations[0] if report.violations else "",
        seconds=time.perf_counter() - started, city_outcomes=outcomes, roles=roles,
        commissar_days=served)


def play_batch(jobs: list[Job]) -> list[dict[str, Any]]:
    """A batch per task keeps the per-task overhead of processes and Dask small."""
    return [play_job(job).to_dict() for job in jobs]
