"""`lepromafia simulate --store`, `game export` and `lepromafia verify`, and the standalone
verify/verify.py run by a plain Python on the same export (issue 14)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lepromafia.cli.main import app

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/sim.db", "LEPROMAFIA_LOG_KEY_FILE": f"{tmp_path}/key.pem"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["simulate", "--games", "2", "--cities", "2", "--population", "6",
                                      "--store", env["DATABASE_URL"]])
    assert result.exit_code == 0, result.output
    return env


def test_a_simulated_game_kept_in_a_store_is_exported_and_verified(stored: dict[str, str],
                                                                   tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["game", "list"])
    assert "sim-0\tfinished" in listed.output and "sim-1\tfinished" in listed.output
    export = tmp_path / "sim-1.json"
    assert runner.invoke(app, ["game", "export", "sim-1", "-o", str(export)]).exit_code == 0
    verified = runner.invoke(app, ["verify", str(export), "--lang", "en"])
    assert verified.exit_code == 0, verified.output
    assert "GAME VERIFIED" in verified.output and "the deal's seal holds" in verified.output
    russian = runner.invoke(app, ["verify", str(export)])
    assert russian.exit_code == 0 and "ИГРА ПРОВЕРЕНА" in russian.output
    plain = subprocess.run([sys.executable, "-I", str(ROOT / "verify" / "verify.py"), str(export)],
                           capture_output=True, text=True, check=False)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "GAME VERIFIED" in plain.stdout


def test_a_tampered_export_fails_naming_the_failure(stored: dict[str, str], tmp_path: Path) -> None:
    runner = CliRunner()
    export = tmp_path / "sim-0.json"
    assert runner.invoke(app, ["game", "export", "sim-0", "-o", str(export)]).exit_code == 0
    text = export.read_text(encoding="utf-8")
    assert "казнить" in text
    forged = tmp_path / "forged.json"
    forged.write_text(text.replace('казнить', 'казнитъ', 1), encoding="utf-8")
    failed = runner.invoke(app, ["verify", str(forged), "--lang", "en"])
    assert failed.exit_code == 1
    assert "does not match its leaf in the tree" in failed.output
    assert "VERIFICATION FAILED" in failed.output
    plain = subprocess.run([sys.executable, "-I", str(ROOT / "verify" / "verify.py"), str(forged),
                            "--lang", "ru"], capture_output=True, text=True, check=False)
    assert plain.returncode == 1 and "не совпадает со своим листом в дереве" in plain.stdout


def test_a_pinned_key_that_is_not_the_servers_fails(stored: dict[str, str], tmp_path: Path) -> None:
    runner = CliRunner()
    export = tmp_path / "sim-0.json"
    runner.invoke(app, ["game", "export", "sim-0", "-o", str(export)])
    pinned = runner.invoke(app, ["verify", str(export), "--lang", "en", "--key", "AAAA"])
    assert pinned.exit_code == 1 and "the server key is not the one you gave" in pinned.output
