"""`lepromafia`: simulate, scenarios, the demo and (later) the server and operator tools."""

from __future__ import annotations

import json

import typer

from ..bots.simulate import simulate as run_simulation
from .ops_cmd import db_app, game_app

app = typer.Typer(no_args_is_help=True, help="Lepromafia: a multi-city online Mafia game.")
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
def demo(seed: int = typer.Option(7), cities: int = typer.Option(5, min=1)) -> None:
    """Play a seeded demo game in the terminal."""
    report = run_simulation(1, cities, 20, seed)
    print(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    app()
