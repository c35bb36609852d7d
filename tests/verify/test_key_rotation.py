"""Issue 14, key rotation: the server's Ed25519 key is rotated mid-game; every head names
its key; the key set (each key with its validity period) is published and exported; heads
from before the rotation stay verifiable; a head signed by a retired or unknown key fails,
naming it. Cast: the bots of ``play(seed)`` (a finished game) and ``small_cast()`` (a
running game on the service, rotated by a second process as ``lepromafia keys rotate`` is)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lepromafia import verifier
from lepromafia.bots.simulate import play
from lepromafia.cli.main import app
from lepromafia.service.service import GameService
from lepromafia.service.stored_games import store_table
from lepromafia.service.transparency import HeadSigner, LogKey
from lepromafia.service.transparency_export import dumps, export_game
from lepromafia.service.transparency_keys import KeyRing, keys_file
from lepromafia.store import merkle
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.projection import GameClock, Row

from ..service.helpers import at, manual_clock, setup_game, small_cast


class RotatingSigner:
    """Signs with the ring, and rotates it (no overlap) after the ``after``-th head: the
    operator running ``lepromafia keys rotate`` in the middle of the game."""

    def __init__(self, ring: KeyRing, after: int) -> None:
        self.ring, self.after, self.signed = ring, after, 0
        self.old: LogKey | None = None

    def sign_head(self, game_id: str, size: int, root: bytes, signed_at: datetime,
                  reason: str) -> Row | None:
        head = self.ring.sign_head(game_id, size, root, signed_at, reason)
        self.signed += 1
        if self.signed == self.after:
            self.old = self.ring.current
            self.ring.rotate(overlap=timedelta(0))
        return head


async def _finished_game(db: Path, ring: KeyRing, signer: HeadSigner) -> bytes:
    config = DatabaseConfig(f"sqlite+aiosqlite:///{db}")
    await upgrade(config)
    store = EventStore.open(config)
    try:
        report = play(3, 2, 6, {"deal_method": "commit_reveal"})
        assert not report.violations
        await store_table(store, "rotated", report.table, signer, GameClock(0.0, 1.0))
        return dumps(await export_game(store, "rotated", ring)).encode()
    finally:
        await store.close()


@pytest.fixture
def rotated(tmp_path: Path) -> tuple[bytes, KeyRing, LogKey]:
    ring = KeyRing.load(tmp_path / "key.pem")
    signer = RotatingSigner(ring, after=2)
    raw = asyncio.run(_finished_game(tmp_path / "games.db", ring, signer))
    assert signer.old is not None
    return raw, ring, signer.old


def _resign(raw: bytes, index: int, key: LogKey, signed_at: datetime | None = None) -> bytes:
    """The export with head ``index`` signed again by ``key`` (a stolen or stale key)."""
    doc = json.loads(raw)
    head = doc["heads"][index]
    when = signed_at or datetime.fromisoformat(head["signed_at"])
    signed = key.sign_head(doc["game_id"], head["size"], bytes.fromhex(head["root"]), when, head["reason"])
    head.update(signed_at=signed["signed_at"], key_id=signed["key_id"], signature=signed["signature"])
    return dumps(doc).encode()


def test_a_game_whose_key_was_rotated_midway_verifies_with_both_keys(
        rotated: tuple[bytes, KeyRing, LogKey]) -> None:
    raw, ring, old = rotated
    doc = json.loads(raw)
    signers = [h["key_id"] for h in doc["heads"]]
    assert signers[:2] == [old.key_id] * 2 and set(signers[2:]) == {ring.key_id}, \
        "every head names the key that signed it; the rotation took effect at once"
    keys = {k["key_id"]: k for k in doc["keys"]}
    assert keys[old.key_id]["valid_from"] is None and keys[old.key_id]["valid_until"] is not None
    assert keys[ring.key_id]["valid_from"] == keys[old.key_id]["valid_until"]
    report = verifier.verify(raw, "en")
    assert report.verified, report.text()
    assert "2 server keys Ed25519" in report.text() and "GAME VERIFIED" in report.text()
    assert verifier.verify(raw, "en", key_set=ring.published()).verified, \
        "the key set from the well-known URL agrees"
    assert verifier.verify(raw, "en", pinned_key=[old.key_id, ring.key_id]).verified
    pinned_one = verifier.verify(raw, "en", pinned_key=ring.key_id)
    assert not pinned_one.verified and pinned_one.failures[0].code == "key_mismatch"


def test_a_head_signed_by_the_retired_key_after_its_retirement_fails_naming_the_key(
        rotated: tuple[bytes, KeyRing, LogKey]) -> None:
    raw, _ring, old = rotated
    forged = _resign(raw, -1, old)
    report = verifier.verify(forged, "en")
    assert not report.verified
    failure = report.failures[0]
    assert failure.code == "retired_key" and failure.fields["key_id"] == old.key_id[:16]
    assert "after that key was retired" in report.text() and old.key_id[:16] in report.text()
    assert "выведен из употребления" in failure.message("ru")


def test_a_stolen_retired_key_cannot_extend_its_own_period_against_the_published_set(
        rotated: tuple[bytes, KeyRing, LogKey]) -> None:
    """The thief rewrites the export's key set to keep the old key valid for ever: the
    export alone then holds, but not against the key set the well-known URL publishes."""
    raw, ring, old = rotated
    doc = json.loads(_resign(raw, -1, old))
    for key in doc["keys"]:
        key["valid_until"] = key["valid_from"] = None
    forged = dumps(doc).encode()
    assert verifier.verify(forged, "en").verified
    report = verifier.verify(forged, "en", key_set=ring.published())
    assert not report.verified and report.failures[0].code == "retired_key"


def test_a_head_signed_by_an_unknown_key_fails_naming_it(rotated: tuple[bytes, KeyRing, LogKey]) -> None:
    raw, _ring, _old = rotated
    stranger = LogKey.generate()
    report = verifier.verify(_resign(raw, 0, stranger), "en")
    assert not report.verified
    assert report.failures[0].code == "unknown_key"
    assert stranger.key_id[:16] in report.text()


def test_a_head_signed_by_the_new_key_before_it_was_valid_fails(rotated: tuple[bytes, KeyRing, LogKey]) -> None:
    raw, ring, _old = rotated
    first = json.loads(raw)["heads"][0]
    report = verifier.verify(_resign(raw, 0, ring.current, datetime.fromisoformat(first["signed_at"])), "en")
    assert not report.verified and report.failures[0].code == "early_key"


def test_a_running_service_picks_up_a_rotation_made_by_another_process(tmp_path: Path) -> None:
    """The service keeps its ring; ``lepromafia keys rotate`` runs elsewhere on the same file
    between Day 2 and Day 3: Day 3's head names the new key, the export verifies."""
    key_file = tmp_path / "key.pem"
    config = DatabaseConfig(f"sqlite+aiosqlite:///{tmp_path}/service.db")

    async def go() -> tuple[list[dict[str, Any]], bytes, KeyRing]:
        await upgrade(config)
        clock = manual_clock()
        async with GameService.running(config, clock=clock, log_key=KeyRing.load(key_file)) as svc:
            await setup_game(svc, "game-1", small_cast())
            for day in (1, 2):
                clock.set(at(day, "10:01"))
                await svc.sweep()
            clock.set(at(2, "12:00"))
            other = KeyRing.load(key_file)  # the operator's command, another process
            other.rotate(datetime.fromtimestamp(clock.now(), UTC), overlap=timedelta(0))
            clock.set(at(3, "10:01"))
            await svc.sweep()
            assert svc.log_key is not None
            published = svc.log_key.published()
            raw = dumps(await export_game(svc.store, "game-1", svc.log_key)).encode()
            return published["keys"], raw, other

    keys, raw, other = asyncio.run(go())
    heads = json.loads(raw)["heads"]
    assert [h["reason"] for h in heads] == ["day_post:1", "day_post:2", "day_post:3"]
    assert heads[0]["key_id"] == heads[1]["key_id"] != heads[2]["key_id"] == other.key_id
    assert [k["key_id"] for k in keys] == [heads[0]["key_id"], other.key_id]
    report = verifier.verify(raw, "en")
    assert report.verified, report.text()


def test_a_worker_left_with_a_retired_key_signs_no_head(tmp_path: Path) -> None:
    ring = KeyRing.load(tmp_path / "key.pem")
    old = ring.current
    now = datetime.now(UTC)
    ring.rotate(now, overlap=timedelta(0))
    stale = KeyRing(old, ring.keys)  # a worker that never re-read the file, and the published set
    root = merkle.root([b"\x00" * 32])
    later = now + timedelta(seconds=1)
    assert stale.sign_head("g", 1, root, later, "day_post:1") is None
    assert stale.sign_head("g", 1, root, now - timedelta(seconds=1), "day_post:1") is not None
    assert ring.sign_head("g", 1, root, later, "day_post:1") is not None


def test_keys_rotate_and_show_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "key.pem"
    monkeypatch.setenv("LEPROMAFIA_LOG_KEY_FILE", str(key_file))
    runner = CliRunner()
    before = json.loads(runner.invoke(app, ["keys", "show"]).stdout)
    assert [k["valid_until"] for k in before["keys"]] == [None]
    rotated = runner.invoke(app, ["keys", "rotate", "--overlap", "30"])
    assert rotated.exit_code == 0, rotated.output
    assert f"retired {before['key_id']}" in rotated.stdout
    after = json.loads(runner.invoke(app, ["keys", "show"]).stdout)
    assert after["key_id"] != before["key_id"]
    old, new = after["keys"]
    assert old["key_id"] == before["key_id"] and new["key_id"] == after["key_id"]
    retired_at = datetime.fromisoformat(old["valid_until"])
    assert retired_at - datetime.fromisoformat(new["valid_from"]) == timedelta(seconds=30)
    assert (key_file.stat().st_mode & 0o777) == 0o600
    assert json.loads(keys_file(key_file).read_text())["keys"] == after["keys"]
    assert LogKey.load_or_create(key_file).key_id == after["key_id"], "the old private key is gone"


def test_an_export_from_before_rotation_existed_still_verifies(rotated: tuple[bytes, KeyRing, LogKey],
                                                               tmp_path: Path) -> None:
    """Version 1 exports carried one ``key``, valid at any time."""
    ring = KeyRing.load(tmp_path / "single.pem")
    raw = asyncio.run(_finished_game(tmp_path / "single.db", ring, ring))
    doc = json.loads(raw)
    key = doc["keys"][0]
    old = {"format": doc["format"], "version": 1, "game_id": doc["game_id"],
           "key": {"algorithm": "Ed25519", "public_key": key["public_key"], "key_id": key["key_id"]},
           "heads": doc["heads"], "log": doc["log"]}
    report = verifier.verify(dumps(old).encode(), "en")
    assert report.verified, report.text()
    assert f"server key Ed25519, fingerprint {key['key_id']}" in report.text()


def test_the_well_known_url_publishes_the_key_set_and_the_export_verifies_against_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the web: heads of Days 1–2 by the first key, the operator rotates, Day 3's head by
    the new one; the well-known URL lists both with their periods, each published head
    names its key, and the export verifies against the key set fetched from that URL."""
    from tests.web.conftest import make_api, setup_game_via_api
    from tests.web.conftest import small_cast as web_cast

    key_file = tmp_path / "web-key.pem"
    monkeypatch.setenv("LEPROMAFIA_LOG_KEY_FILE", str(key_file))
    for api in make_api(tmp_path):
        setup_game_via_api(api, "rotated", web_cast())
        api.advance_to(at(2, "10:05"))
        first = api.get(None, "/.well-known/lepromafia-log-key").json()
        rotation = datetime.fromtimestamp(api.clock.now(), UTC) + timedelta(minutes=1)
        KeyRing.load(key_file).rotate(rotation, overlap=timedelta(0))  # after Day 2's head
        api.advance_to(at(3, "10:05"))
        published = api.get(None, "/.well-known/lepromafia-log-key").json()
        assert published["key_id"] != first["key_id"]
        old, new = published["keys"]
        assert old["key_id"] == first["key_id"] and old["valid_until"] == new["valid_from"]
        heads = api.get(None, "/api/games/rotated/log").json()["heads"]
        assert [h["key_id"] for h in heads] == [old["key_id"]] * 2 + [new["key_id"]]
        export = api.get(None, "/api/games/rotated/log/export").content
        report = verifier.verify(export, "en", key_set=published, known_heads=[heads[0]])
        assert report.verified, report.text()


def test_the_standalone_verifier_takes_the_published_key_set_from_a_file(
        rotated: tuple[bytes, KeyRing, LogKey], tmp_path: Path) -> None:
    """verify/verify.py with a plain Python: ``--keys`` (the well-known document) and
    ``--key`` (repeatable); the retired key's late head fails with its code and key id."""
    import subprocess
    import sys

    raw, ring, old = rotated
    script = Path(__file__).resolve().parents[2] / "verify" / "verify.py"
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(ring.published()), encoding="utf-8")
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_bytes(raw)
    bad.write_bytes(_resign(raw, -1, old))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-I", str(script), *args], capture_output=True,
                              text=True, check=False)

    ok = run(str(good), "--keys", str(keys), "--key", old.key_id, "--key", ring.key_id)
    assert ok.returncode == 0 and "GAME VERIFIED" in ok.stdout, ok.stdout + ok.stderr
    failed = run(str(bad), "--keys", str(keys), "--lang", "ru")
    assert failed.returncode == 1
    assert "[retired_key]" in failed.stdout and old.key_id[:16] in failed.stdout
