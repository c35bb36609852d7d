"""Every YAML scenario under tests/scenarios/ passes; broken ones fail and say where and why."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lepromafia.cli.main import app
from lepromafia.scenarios.model import load
from lepromafia.scenarios.runner import run_file

HERE = Path(__file__).parent
SCENARIOS = sorted((HERE / "scenarios").glob("*.yaml"))
FIXTURES = HERE / "scenario_fixtures"


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    result = run_file(path)
    assert result.passed, "\n".join(str(f) for f in result.failures)
    assert result.steps_run == len(load(path).steps)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_cites_its_rules(path: Path) -> None:
    scenario = load(path)
    assert scenario.rules, f"{path.name} must cite rule IDs in 'rules:'"
    if path.name.startswith("ex"):  # a worked example of RULES.md §6; others are named by subject
        assert scenario.ex and scenario.ex.startswith("EX-"), f"{path.name} must name its worked example"


def test_there_is_a_scenario_for_every_in_scope_worked_example() -> None:
    covered = {load(p).ex for p in SCENARIOS}
    wanted = {f"EX-{n}" for n in range(1, 47)}  # every worked example of RULES.md §6
    assert wanted <= covered, sorted(wanted - covered)


def test_a_wrong_expectation_fails_naming_file_step_and_values() -> None:
    """EX-2 with a withdrawn vote claimed to count: the failure names the tally."""
    result = run_file(FIXTURES / "broken_tally.yaml")
    assert not result.passed
    text = str(result.failures[0])
    assert "broken_tally.yaml" in text
    assert "step 5, line 14" in text
    assert "tally of X" in text
    assert "expected 2, got 1" in text


def test_an_unexpected_rejection_fails_with_its_code() -> None:
    result = run_file(FIXTURES / "broken_unexpected_reject.yaml")
    assert [f.what for f in result.failures] == ["nominate was rejected unexpectedly"]
    assert "nominations_closed" in str(result.failures[0])


def test_a_misspelt_expectation_is_an_error_not_a_pass() -> None:
    result = run_file(FIXTURES / "broken_typo.yaml")
    assert not result.passed
    assert "unknown expectation 'talley'" in str(result.failures[0])


def test_cli_exits_non_zero_and_names_the_failure() -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["scenario", "run", str(SCENARIOS[0])])
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(app, ["scenario", "run", str(FIXTURES / "broken_tally.yaml"), str(SCENARIOS[0])])
    assert bad.exit_code == 1
    assert "FAIL" in bad.output and "broken_tally.yaml: step 5" in bad.output
    assert "1 passed, 1 failed" in bad.output


def test_the_worked_example_in_the_host_docs_passes() -> None:
    import re

    from lepromafia.scenarios.model import parse
    from lepromafia.scenarios.runner import run_scenario

    doc = (HERE.parent / "docs" / "scenarios.md").read_text(encoding="utf-8")
    block = re.search(r"## A complete example\n\n```yaml\n(.*?)```", doc, re.S)
    assert block is not None
    result = run_scenario(parse(block.group(1), "docs/scenarios.md"))
    assert result.passed, "\n".join(str(f) for f in result.failures)


def test_the_raw_command_escape_hatch_reaches_any_engine_command() -> None:
    """TIME-4 via `command:`: the Procurator moves Day 2's start; a non-Procurator is rejected."""
    from lepromafia.scenarios.model import parse
    from lepromafia.scenarios.runner import run_scenario

    text = """
name: raw commands
rules: [TIME-4]
cast: {cities: {A: {residents: [V1], population: 10}}}
steps:
  - at: "day 1 11:00"
    command: {type: SetDayStart, by: V1, day: 2, time: "09:00"}
    expect_reject: not_procurator
  - at: "day 1 11:00"
    command: {type: SetDayStart, day: 2, time: "09:00"}
  - advance: "day 2 09:00"
    expect:
      phase: day 2
      happened: [{event: DayStarted, day: 2, start_at: "day 2 09:00"}]
"""
    result = run_scenario(parse(text, "inline"))
    assert result.passed, "\n".join(str(f) for f in result.failures)
