"""`lepromafia scenario run FILE...`: run YAML rule scenarios (docs/scenarios.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..scenarios.runner import run_file

scenario_app = typer.Typer(no_args_is_help=True, help="Rule scenarios written in YAML.")


def _expand(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.yaml")) if path.is_dir() else [path])
    return files


@scenario_app.command("run")
def run(
    files: Annotated[list[Path], typer.Argument(help="Scenario files or directories of *.yaml")],
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print failures only."),
) -> None:
    """Run scenarios; exit 1 if any expectation fails, naming file, step and expectation."""
    failed = 0
    paths = _expand(files)
    for path in paths:
        result = run_file(path)
        if result.passed:
            if not quiet:
                print(f"PASS {path}  ({result.name}; {result.steps_run} steps)")
            continue
        failed += 1
        print(f"FAIL {path}  ({result.name})")
        for failure in result.failures:
            print(f"  {failure}")
    print(f"{len(paths) - failed} passed, {failed} failed")
    if failed or not paths:
        raise typer.Exit(1)
