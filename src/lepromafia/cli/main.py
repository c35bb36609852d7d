"""`lepromafia`: simulate, scenarios, the demo and (later) the server and operator tools."""

from __future__ import annotations

import json

import typer

from ..bots.simulate import simulate as run_simulation
from .ops_cmd import db_app, game_app
from .scenario_cmd import scenario_app

app = typer.Typer(no_args_is_help=True, help="Lepromafia: a multi-city online Mafia game.")
app.add_typer(scenario_app, name="scenario")
app.add_typer(db_app, name="db")
app.add_typer(game_app, name="game")


@app.command()
def simulate(
    games: int = typer.Option(100, min=1),
    cities: int = typer.Option(5, min=1),
    population: int = typer.Option(20, min=2),
    seed: int = typer.Option(0),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Play whole games with random bots and report the results."""
    report = run_simulation(games, cities, population, seed)
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        for key, value in report.items():
            print(f"{key:>18}: {value:.2f}" if isinstance(value, float) else f"{key:>18}: {value}")


@app.command()
def demo(
    seed: int = typer.Option(7),
    cities: int = typer.Option(5, min=1),
    lang: str = typer.Option("ru", help="ru | en"),
) -> None:
    """Play a seeded demo game in the terminal."""
    from .demo_cmd import run_demo

    if lang not in ("ru", "en"):
        raise typer.BadParameter("ru | en", param_hint="--lang")
    run_demo(seed, cities, lang)


if __name__ == "__main__":
    app()
