"""`lepromafia`: simulate, scenarios, the demo and (later) the server and operator tools."""

from __future__ import annotations

import json

import typer

from ..bots.simulate import simulate as run_simulation
from ..web.i18n import LANGUAGES
from .keys_cmd import keys_app
from .lab_cmd import lab_app
from .notify_cmd import notify_app
from .ops_cmd import db_app, game_app
from .scenario_cmd import scenario_app
from .serve_cmd import serve
from .verify_cmd import game_export, verify

app = typer.Typer(no_args_is_help=True, help="Lepromafia: a multi-city online Mafia game.")
app.add_typer(scenario_app, name="scenario")
app.add_typer(db_app, name="db")
app.add_typer(game_app, name="game")
app.add_typer(lab_app, name="lab")
app.add_typer(notify_app, name="notify")
app.add_typer(keys_app, name="keys")
app.command()(serve)
app.command()(verify)
game_app.command("export")(game_export)


@app.command()
def simulate(
    games: int = typer.Option(100, min=1),
    cities: int = typer.Option(5, min=1),
    population: int = typer.Option(20, min=2),
    seed: int = typer.Option(0),
    as_json: bool = typer.Option(False, "--json"),
    store: str | None = typer.Option(None, "--store", help="keep the games in this database "
                                     "(sim-<seed>), to export and verify them"),
) -> None:
    """Play whole games with random bots, check every invariant, report the results.

    Exits with status 1, naming each failing seed and its first violation, if any game
    breaks an invariant (replay it with ``play(seed)`` from lepromafia.bots.simulate).
    """
    if store is not None:
        from .verify_cmd import SimulationStore

        with SimulationStore(store) as kept:
            report = run_simulation(games, cities, population, seed, keep=kept.keep)
    else:
        report = run_simulation(games, cities, population, seed)
    failures = report["failures"]
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        for key, value in report.items():
            if key == "failures":
                value = len(value)
            print(f"{key:>18}: {value:.2f}" if isinstance(value, float) else f"{key:>18}: {value}")
    for failure in failures:
        typer.echo(f"invariant broken in game seed={failure['seed']} "
                   f"(cities={cities}, population={population}): {failure['first']}", err=True)
    if failures:
        raise typer.Exit(1)


@app.command()
def demo(
    seed: int = typer.Option(7),
    cities: int = typer.Option(5, min=1),
    lang: str = typer.Option("ru", help="a language with a catalog: " + " | ".join(LANGUAGES)),
) -> None:
    """Play a seeded demo game in the terminal."""
    from .demo_cmd import run_demo

    if lang not in LANGUAGES:
        raise typer.BadParameter(" | ".join(LANGUAGES), param_hint="--lang")
    run_demo(seed, cities, lang)


if __name__ == "__main__":
    app()
