"""`lepromafia lab run`: a balance sweep of strategy-bot games and its report (issue 15)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

lab_app = typer.Typer(no_args_is_help=True, help="The balance lab: many bot games, one report.")


@lab_app.command("run")
def run_cmd(
    games: int = typer.Option(100, min=1, help="Games per variant."),
    cities: int = typer.Option(5, min=1, max=10),
    vary: Annotated[list[str] | None, typer.Option(help="SETTING=V1,V2,… (repeat for more sweeps).")] = None,
    skill: str = typer.Option("honest=2,mafia=2", help="Skill per side, 0 (random) to 3."),
    institutions: bool = typer.Option(False, help="Also play Court, tours, ambush, Spirits on and off."),
    population: int = typer.Option(20, min=2),
    seed: int = typer.Option(0),
    workers: int = typer.Option(0, min=0, help="Processes (0: every core)."),
    dask: str = typer.Option("", help="'local' for a Dask LocalCluster, or a scheduler address."),
    out: Annotated[Path, typer.Option(help="Directory for index.html, CSV and JSON.")] = Path("lab-report"),
) -> None:
    """Play the sweep on all cores (or a Dask cluster) and write the report to OUT."""
    from ..bots.strategy import Skills
    from ..lab.run import run
    from ..lab.sweep import Sweep, SweepError, parse_vary

    try:
        skills = Skills.parse(skill)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--skill") from None
    try:
        varies = tuple(parse_vary(v) for v in vary or ())
    except SweepError as exc:
        raise typer.BadParameter(str(exc), param_hint="--vary") from None
    sweep = Sweep(games, cities, varies, skills, population, seed, institutions)
    console = Console(stderr=True)
    total = len(sweep.jobs())
    with Progress(TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as bar:
        task = bar.add_task("games", total=total)
        tenths = [0]

        def progress(done: int, _all: int) -> None:
            bar.update(task, completed=done)
            if not console.is_terminal and done * 10 // total > tenths[0]:
                tenths[0] = done * 10 // total  # a log file gets a line every tenth of the way
                console.print(f"{done} of {total} games played")
        summary, page = run(sweep, out, workers or None, dask or None, progress=progress)
    for v in summary["variants"]:
        lo, hi = v["honest_ci"]
        typer.echo(f"{v['label']:>28}: honest {100 * v['honest_rate']:5.1f}% "
                   f"[{100 * lo:.1f}–{100 * hi:.1f}] over {v['games']} games, {v['days_mean']:.1f} days")
    for s in summary["sweeps"]:
        typer.echo(f"{s['setting']}: closest to 50% at {s['closest_to_even']} "
                   f"({100 * s['closest_rate']:.1f}%)")
    typer.echo(f"{summary['games']} games in {summary['seconds']} s on {summary['where']}; report: {page}")
    for problem in summary["violations"]:
        typer.echo(f"invariant broken: {problem['label']} seed={problem['seed']}: {problem['first']}",
                   err=True)
    if summary["violations"]:
        raise typer.Exit(1)
