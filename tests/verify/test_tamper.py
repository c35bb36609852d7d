"""Issue 14: 100 simulated games exported and verified; then in each, 100 random single-byte
changes and random deletions, reorderings and insertions of events and heads — every one
is detected. (A bigger sweep: ``make verify-sweep``.)"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from lepromafia import verifier

from .games import exported_games

SWEEP = os.environ.get("LEPROMAFIA_VERIFY_SWEEP", "100,1,5")
"""games,cities,population: one-city games keep CI fast; ``make verify-sweep`` plays 5 cities."""
GAMES, CITIES, POPULATION = (int(x) for x in SWEEP.split(","))
BYTE_CHANGES = 100
STRUCTURAL = 3
"""Rounds of deletions, reorderings, insertions and rewrites per game."""


def _changed_byte(raw: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(raw))
    new = rng.choice([b for b in range(256) if b != raw[i]])
    return raw[:i] + bytes([new]) + raw[i + 1:]


def _dump(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _structural(raw: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    """Edits that keep the file canonical JSON, so only the cryptography can catch them."""
    out = []
    for _ in range(STRUCTURAL):
        doc = json.loads(raw)
        log = doc["log"]
        i = rng.randrange(len(log))
        del log[i]
        out.append(("delete an event", _dump(doc)))
        doc = json.loads(raw)
        log = doc["log"]
        i = rng.randrange(len(log))
        removed = log.pop(i)
        for entry in log[i:]:
            entry["seq"] -= 1  # and renumber what follows, as a careful forger would
        out.append((f"delete event {removed['seq']} and renumber", _dump(doc)))
        doc = json.loads(raw)
        log = doc["log"]
        i = rng.randrange(len(log) - 1)
        log[i], log[i + 1] = log[i + 1], log[i]
        out.append(("swap two events", _dump(doc)))
        doc = json.loads(raw)
        log = doc["log"]
        i = rng.randrange(len(log) - 1)
        log[i]["seq"], log[i + 1]["seq"] = log[i + 1]["seq"], log[i]["seq"]
        log[i], log[i + 1] = log[i + 1], log[i]
        out.append(("reorder two events keeping seqs", _dump(doc)))
        doc = json.loads(raw)
        log = doc["log"]
        i = rng.randrange(len(log))
        copy = dict(log[i])
        log.insert(i, copy)
        for n, entry in enumerate(log, start=1):
            entry["seq"] = n
        out.append(("insert a duplicate event", _dump(doc)))
        doc = json.loads(raw)
        revealed = [e for e in doc["log"] if "event" in e]
        victim = rng.choice(revealed)
        event = json.loads(victim["event"])
        event["at"] = "2026-12-01T00:00:00+03:00" if event.get("at") != "2026-12-01T00:00:00+03:00" \
            else "2026-12-02T00:00:00+03:00"
        victim["event"] = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        out.append((f"rewrite event {victim['seq']}", _dump(doc)))
        if len(doc["heads"]) > 1:
            doc = json.loads(raw)
            doc["heads"].pop(rng.randrange(len(doc["heads"])))
            out.append(("delete a head", _dump(doc)))
    return out


def test_a_hundred_simulated_games_verify_and_every_tampering_is_detected(tmp_path: Path) -> None:
    exports = exported_games(tmp_path / "games.db", range(GAMES), CITIES, POPULATION)
    rng = random.Random(14)
    detected = tried = 0
    missed: list[str] = []
    for n, raw in enumerate(exports):
        report = verifier.verify(raw)
        assert report.verified, f"game {n}: {report.text()}"
        cases = [("byte change", _changed_byte(raw, rng)) for _ in range(BYTE_CHANGES)]
        cases += _structural(raw, rng)
        for kind, forged in cases:
            tried += 1
            if forged == raw:
                continue
            result = verifier.verify(forged)
            if result.verified:
                missed.append(f"game {n}: {kind}")
            else:
                detected += 1
                assert result.failures[0].message("ru") and result.failures[0].message("en")
    print(f"\n{GAMES} games of {CITIES}×{POPULATION} verified; "
          f"tampered exports: {detected} of {tried} detected")
    assert not missed, missed[:10]
    assert tried >= GAMES * (BYTE_CHANGES + 3 * STRUCTURAL)
