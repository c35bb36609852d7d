"""`lepromafia demo`: play a seeded game with the strategy bots (issue 15: plausible play,
skill 2 against 2) and print its public transcript."""

from __future__ import annotations

import random
from collections.abc import Callable

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.rule import Rule

from ..bots.setup import default_cast, setup_game
from ..bots.simulate import MAX_DEADLINES
from ..bots.strategy import StrategyBots
from ..engine.state import Stage
from ..engine.table import Table, next_deadline
from ..web.i18n import translate
from .transcript import render, transcript

POPULATION = 20


def play_game(seed: int, cities: int, population: int = POPULATION,
              on_day: Callable[[int], None] = lambda day: None) -> Table:
    """``bots.strategy.match.play`` step for step, reporting each new game day."""
    rng = random.Random(seed)
    table = setup_game(rng, default_cast(cities, population))
    bots = StrategyBots(rng)
    day = 0
    for _ in range(MAX_DEADLINES):
        nxt = next_deadline(table.game)
        if nxt is None or table.game.stage is Stage.FINISHED:
            break
        before = len(table.events)
        table.advance(nxt[1], seed=lambda: rng.randrange(1 << 31))
        bots.react(table, table.events[before:])
        if table.game.day != day:
            day = table.game.day
            on_day(day)
    else:
        raise RuntimeError(f"game {seed} did not end")
    return table


def run_demo(seed: int = 7, cities: int = 5, lang: str = "ru", console: Console | None = None) -> Table:
    console = console or Console()
    label = translate(lang, "Game day")
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=False) as progress:
        # A city of P residents cannot outlast about P days (one execution a day).
        task = progress.add_task(label, total=POPULATION)
        table = play_game(seed, cities, on_day=lambda day: progress.update(task, completed=day))
        progress.update(task, total=table.game.day, completed=table.game.day)
    title = translate(lang, "Lepromafia — demo game")
    console.print(Rule(f"{title} (seed {seed}, {cities})"))
    for renderable in render(transcript(table.events, lang), lang):
        console.print(renderable)
    return table
