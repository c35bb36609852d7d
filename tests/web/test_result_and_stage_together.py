"""Review m4: «for about a minute the API already reported the result while the stage was
still "running"». The game's summary (``service.queries.public_summary``, what
``/api/games/{id}`` and the game list serve) is read after each command; across seeded bot
games no command leaves a summary with a result and a running stage, or a finished stage
without a result (WIN-4: the result is fixed and the game ends in the same command, after
the last morning's Day Post, D18).

Cast: the simulator's default cast (``bots.setup.default_cast``), three cities of eight.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from lepromafia.bots.simulate import play
from lepromafia.engine.commands import Command
from lepromafia.engine.events import Event
from lepromafia.engine.table import Table
from lepromafia.service.queries import public_summary


def test_the_result_is_never_reported_while_the_game_still_runs_WIN_4_D18(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, str | None]] = []
    real = Table.do

    def do(self: Table, command: Command, now: datetime) -> list[Event]:
        events = real(self, command, now)
        if self.state is not None:
            summary = public_summary("g", self.state)
            seen.append((summary.stage, summary.result))
        return events

    monkeypatch.setattr(Table, "do", do)
    endings = [play(seed, cities=3, population=8, check=False).result for seed in (1, 2, 3)]
    assert all(endings), endings
    mixed = sorted({(stage, result) for stage, result in seen
                    if (stage == "finished") != (result is not None)}, key=str)
    assert not mixed, mixed
    assert {result for stage, result in seen if stage == "finished"} >= set(filter(None, endings))
