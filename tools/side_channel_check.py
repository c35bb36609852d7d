"""The security review's side-channel attacks (F3-1…F3-5), run from the attacker's side
against any tree of this project: the review's commit, where they must find the secrets,
or main, where they must find nothing (issue 16, docs/security.md).

    python tools/side_channel_check.py [--tree PATH] [--seed 11] [--days 3] [--out FILE]

``--tree`` (default: this checkout) names a checkout with its own ``.venv`` (``make
install`` there); the script re-runs itself with that tree's Python and sources, and reads
only the protocol (HTTP items, WebSocket frames) of its app, so its API may be older. What
it does, as an anonymous visitor:

1. **The SEC-2 pairs** (``tests/security/pairs.py``, this checkout's scripts on the tree's
   engine): both games of each pair are played live in the tree's app; the anonymous
   socket and ``GET …/events`` are recorded with the moment of every arrival. A pair the
   visitor can tell apart is a secret found: F3-2 (an offer's answer), F3-4 (a dead
   Godfather), F3-1 (a dead commissar), the ambush right and a check's answer (F3-5).
2. **The marker attacks on a bot-played game** (F3-1, F3-5): the tree's own service bots
   play ``--days`` days of a 3 × 8 game; the visitor reads his whole stream and names
   every resident whose death is followed at once by an item he cannot read (the review's
   rule: the hidden ``CommissarVacated`` of the same commit). The operator's log (the
   ground truth, read from the store) says which of them were commissars. Also counted:
   the items that show only that a hidden event happened (their number is the volume of
   hidden traffic).

Exit status 0 in both cases; the verdict is printed as JSON (and appended to ``--out``).
Bounded: every WebSocket read has a timeout; nothing leaves the process.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


def reexec(tree: Path, argv: list[str]) -> int:
    python = tree / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{python} is missing: run `make install` in {tree}")
    env = {**os.environ, "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{tree}", "LEPROMAFIA_LOG_LEVEL": "warning"}
    command = [str(python), str(Path(__file__).resolve()), "--inside", str(tree), *argv]
    return subprocess.call(command, cwd=tree, env=env)  # noqa: S603 (our own script, the tree's venv)


def load_pairs() -> Any:
    """This checkout's pair scripts, imported against the tree's ``tests.engine.cast``."""
    spec = importlib.util.spec_from_file_location("pairs_port", HERE / "tests" / "security" / "pairs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["pairs_port"] = module
    spec.loader.exec_module(module)
    return module


def apps(tmp: Path) -> Iterator[Any]:
    from tests.web.conftest import make_api  # the tree's own test app (its API)

    tmp.mkdir(parents=True, exist_ok=True)
    yield from make_api(tmp)


def the_pairs(tmp: Path) -> dict[str, Any]:
    pairs = load_pairs()
    found: dict[str, Any] = {}
    for n, (name, (script, _)) in enumerate(pairs.PAIRS.items()):
        games = {secret: pairs.record(lambda where=tmp / f"pair{n}-{secret}": apps(where),
                                      script, secret, [None])
                 for secret in (True, False)}
        one, two = games[True], games[False]
        hidden = [sum(1 for line in g.http[None] if '"event"' not in line) for g in (one, two)]
        found[name] = {
            "told_apart_over_ws": one.ws[None] != two.ws[None],
            "told_apart_over_http": one.http[None] != two.http[None],
            "anonymous_items": [len(one.http[None]), len(two.http[None])],
            "items_without_an_event": hidden,
        }
    return found


def bot_game(tmp: Path, seed: int, days: int) -> dict[str, Any]:
    """The tree's bots play; the anonymous visitor attacks his stream (HTTP and WS)."""
    from tests.web.conftest import FIRST_DAY, at

    from lepromafia.bots.service_bots import ServiceBots, setup_service_game
    from lepromafia.bots.setup import default_cast
    from lepromafia.engine import events as ev
    from lepromafia.engine.evolve import evolve
    from lepromafia.engine.state import Stage
    from lepromafia.store import codec

    pairs = load_pairs()
    for api in apps(tmp / "bots"):
        svc = api.web.service
        cast = default_cast(3, 8)
        api.client.portal.call(setup_service_game, svc, "attack", cast, random.Random(seed), FIRST_DAY)
        bots = ServiceBots(svc, "attack", random.Random(seed), activity=0.8)
        api.advance_to(at(1, "10:00"))
        for _ in range(24 * days):
            state = api.client.portal.call(svc.state, "attack")
            if state.stage is Stage.FINISHED:
                break
            api.client.portal.call(bots.step, state)
            api.advance(timedelta(minutes=60))
        rows = api.client.portal.call(svc.store.event_rows, "attack")
        truth = [codec.decode_event(codec.loads(r["payload"])) for r in sorted(rows, key=lambda r: r["seq"])]
        items: list[dict[str, Any]] = []
        while True:
            page = api.get(None, "/api/games/attack/events", since=items[-1]["seq"] if items else 0,
                           limit=5000).json()
            if not page:
                break
            items.extend(page)
        frames: list[dict[str, Any]] = []
        with api.client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "subscribe", "game": "attack", "since_seq": 0})
            assert pairs.receive(ws)["type"] == "subscribed"
            while sum(pairs.items_in(f) for f in frames) < len(items):
                frames.append(pairs.receive(ws))
        commissars, state = set(), None
        for event in truth:
            if isinstance(event, ev.GameEnded):
                break
            if isinstance(event, ev.ResidentDied) and state is not None and any(
                    c.commissar == event.user for c in state.cities.values()):
                commissars.add(event.user)
            state = evolve(state, event)
        ended = next((n for n, i in enumerate(items)
                      if i.get("event", {}).get("type") == "GameEnded"), len(items))
        named_http = named_after_deaths([i.get("event") for i in items[:ended]])
        named_ws = named_after_deaths([f.get("payload") if f.get("type") == "event" else None
                                       for f in frames[:ended]])
        return {
            "events_in_the_log": len(truth), "anonymous_items": len(items),
            "items_without_an_event": sum(1 for i in items if "event" not in i),
            "ws_frames_without_an_event": sum(1 for f in frames if f.get("type") != "event"),
            "dead_commissars (operator's truth)": sorted(commissars),
            "named_over_http": sorted(named_http), "named_over_ws": sorted(named_ws),
            "true_positives": sorted(named_http & commissars),
            "false_positives": sorted(named_http - commissars),
            "misses": sorted(commissars - named_http),
        }
    raise AssertionError("no app")


def named_after_deaths(stream: list[dict[str, Any] | None]) -> set[str]:
    """F3-1, the review's rule: a death followed at once by an item the visitor cannot read
    names a commissar (None: an item that carries no event he can read)."""
    named = set()
    for here, nxt in itertools.pairwise(stream):
        if here is not None and here.get("type") == "ResidentDied" and nxt is None:
            named.add(here["user"])
    return named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=HERE)
    parser.add_argument("--inside", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.inside is None:
        raise SystemExit(reexec(args.tree.resolve(), sys.argv[1:]))
    sys.path.insert(0, str(args.inside))
    head = subprocess.run(["git", "-C", str(args.inside), "rev-parse", "--short", "HEAD"],  # noqa: S603, S607
                          capture_output=True, text=True, check=False).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="lm-sidechannel-") as tmp:
        pairs = the_pairs(Path(tmp))
        bots = bot_game(Path(tmp), args.seed, args.days)
    found = {
        "tree": str(args.inside), "commit": head,
        "pairs_told_apart": sorted(n for n, r in pairs.items()
                                   if r["told_apart_over_ws"] or r["told_apart_over_http"]),
        "commissars_named": bots["true_positives"],
        "pairs": pairs, "bot_game": bots,
    }
    text = json.dumps(found, ensure_ascii=False, indent=1)
    sys.stdout.write(text + "\n")
    if args.out:
        with args.out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(found, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
