"""One settings object for every command (issue 17): ``LEPROMAFIA_*`` first, then the
conventional ``DATABASE_URL``/``DATABASE_SCHEMA``, under the command's own options; the
operator commands read the database ``serve`` serves, and say what to do with an empty one."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lepromafia.cli import config
from lepromafia.cli.main import app
from lepromafia.store.database import DEFAULT_URL, DatabaseConfig
from lepromafia.web.settings import Settings

VARIABLES = ("LEPROMAFIA_DATABASE_URL", "DATABASE_URL", "LEPROMAFIA_DATABASE_SCHEMA", "DATABASE_SCHEMA")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_without_variables_the_database_is_the_default_sqlite() -> None:
    assert Settings().database == DatabaseConfig(DEFAULT_URL, None)


def test_database_url_is_accepted_as_an_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://ops@db.example/lepromafia")
    monkeypatch.setenv("DATABASE_SCHEMA", "season2")
    assert config.database() == DatabaseConfig("postgresql://ops@db.example/lepromafia", "season2")


def test_the_prefixed_variable_wins_over_the_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://platform-default/db")
    monkeypatch.setenv("LEPROMAFIA_DATABASE_URL", "postgresql://chosen/db")
    monkeypatch.setenv("DATABASE_SCHEMA", "")
    assert config.database() == DatabaseConfig("postgresql://chosen/db", None)
    # the alias and the prefix mean the same for the bare alembic command line too
    assert DatabaseConfig.from_env() == DatabaseConfig("postgresql://chosen/db", None)


def test_an_option_given_in_code_wins_over_every_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEPROMAFIA_DATABASE_URL", "postgresql://env/db")
    monkeypatch.setenv("LEPROMAFIA_TIME_SCALE", "3")
    chosen = config.settings(database_url="sqlite:///x.db", time_scale=720.0)
    assert chosen.database_url == "sqlite:///x.db" and chosen.time_scale == 720.0
    assert config.settings().time_scale == 3.0


def test_operator_commands_and_serve_read_the_same_variable(tmp_path: Path) -> None:
    """The operator upgrades and lists the database named by LEPROMAFIA_DATABASE_URL,
    the variable ``serve`` reads (before issue 17 they read DATABASE_URL only)."""
    env = {"LEPROMAFIA_DATABASE_URL": f"sqlite:///{tmp_path}/served.db"}
    runner = CliRunner()
    assert runner.invoke(app, ["db", "upgrade"], env=env).exit_code == 0
    listed = runner.invoke(app, ["game", "list"], env=env)
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.strip() == "no games yet"
    assert (tmp_path / "served.db").exists()


def test_game_list_on_an_empty_database_says_to_run_db_upgrade(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/empty.db"}
    for args in (["game", "list"], ["game", "replay", "g1"], ["game", "export", "g1"]):
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 2, (args, result.output)
        assert "Run `lepromafia db upgrade` first." in result.output
        assert "has no Lepromafia tables" in result.output
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_the_message_never_shows_the_database_password(tmp_path: Path) -> None:
    shown = config.shown_url(DatabaseConfig("postgresql://ops:s3cret@db.example/lepromafia"))
    assert "s3cret" not in shown and "db.example" in shown
