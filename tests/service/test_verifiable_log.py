"""Issue 14: the service gives every event a salted leaf and signs the tree head with each
Day Post; a log rewritten after a Day Post is caught against the head a player kept.
On SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

from sqlalchemy import update

from lepromafia import verifier
from lepromafia.service.service import GameService
from lepromafia.service.transparency import LogKey, commitment, head_message
from lepromafia.service.transparency_export import dumps, export_game
from lepromafia.store import merkle, schema
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, Transaction

from .helpers import at, manual_clock, run, setup_game, small_cast

KEY = LogKey.generate()


async def _play_to_day(backend: DatabaseConfig, day: int) -> None:
    clock = manual_clock()
    async with GameService.running(backend, clock=clock, log_key=KEY) as svc:
        await setup_game(svc, "game-1", small_cast())
        for d in range(1, day + 1):
            clock.set(at(d, "10:01"))
            await svc.sweep()


async def _log(backend: DatabaseConfig) -> tuple[list[Any], list[Any], list[Any]]:
    store = EventStore.open(backend)
    async with store.reading() as tx:
        found = (await tx.event_rows("game-1"), await tx.leaf_rows("game-1"),
                 await tx.head_rows("game-1"))
    await store.close()
    return found


async def _export(backend: DatabaseConfig) -> bytes:
    store = EventStore.open(backend)
    try:
        return dumps(await export_game(store, "game-1", KEY)).encode()
    finally:
        await store.close()


def test_every_event_has_its_salted_leaf_and_each_day_post_a_signed_head(backend: DatabaseConfig) -> None:
    run(_play_to_day(backend, 3))
    events, leaves, heads = run(_log(backend))
    assert [r["seq"] for r in leaves] == [r["seq"] for r in events]
    salts = {r["salt"] for r in leaves}
    assert len(salts) == len(leaves), "a fresh salt for every event"
    for event, leaf in zip(events, leaves, strict=True):
        assert commitment("game-1", event["seq"], bytes.fromhex(leaf["salt"]), event["payload"]).hex() \
            == leaf["leaf"]
    posts = [r for r in events if r["type"] == "DayPostPublished"]
    assert [h["reason"] for h in heads] == [f"day_post:{json.loads(p['payload'])['day']}" for p in posts]
    entries = [bytes.fromhex(r["leaf"]) for r in leaves]
    for head, post in zip(heads, posts, strict=True):
        assert head["size"] == post["seq"], "the head covers the log up to and with its Day Post"
        assert bytes.fromhex(head["root"]) == merkle.root(entries[:head["size"]])
        KEY.public.verify(base64.b64decode(head["signature"]),
                          head_message("game-1", head["size"], bytes.fromhex(head["root"]),
                                       head["signed_at"], head["reason"]))


def test_the_export_of_a_running_game_verifies_its_log_and_names_what_waits(backend: DatabaseConfig) -> None:
    run(_play_to_day(backend, 2))
    raw = run(_export(backend))
    report = verifier.verify(raw, "en")
    assert report.verified, report.text()
    assert "still running" in report.text()
    revealed = [json.loads(e["event"]) for e in json.loads(raw)["log"] if "event" in e]
    assert all(e["audience"]["public"] for e in revealed), "while the game runs only public events open"


def test_a_log_rewritten_after_a_day_post_is_caught_against_the_head_a_player_kept(
        backend: DatabaseConfig) -> None:
    """The operator changes an event before the Day 2 post and re-signs every head with the
    server's own key: the new export is self-consistent, but not with the head kept."""
    run(_play_to_day(backend, 2))
    _events, _leaves, heads = run(_log(backend))
    kept = {k: heads[-1][k] for k in ("size", "root", "signed_at", "reason", "signature")}

    async def rewrite() -> None:
        store = EventStore.open(backend)
        async with store.writer.begin() as conn:
            tx = Transaction(conn, store.config.is_sqlite)
            rows = await tx.event_rows("game-1")
            target = next(r for r in rows if r["type"] == "PlayerSignedUp")
            payload = json.loads(target["payload"])
            payload["user"] = "intruder"
            text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
            e, t = schema.events, schema.event_leaves
            await conn.execute(update(e).where(e.c.game_id == "game-1", e.c.seq == target["seq"])
                                  .values(payload=text))
            salt = bytes(16)
            await conn.execute(update(t).where(t.c.game_id == "game-1", t.c.seq == target["seq"])
                                  .values(salt=salt.hex(),
                                          leaf=commitment("game-1", target["seq"], salt, text).hex()))
            leaves = [bytes.fromhex(r["leaf"]) for r in await tx.leaf_rows("game-1")]
            h = schema.log_heads
            for head in await tx.head_rows("game-1"):
                root = merkle.root(leaves[:head["size"]])
                signed = KEY.sign_head("game-1", head["size"], root,
                                       datetime.fromisoformat(head["signed_at"]),
                                       head["reason"])
                await conn.execute(update(h).where(h.c.game_id == "game-1", h.c.size == head["size"])
                                      .values(root=signed["root"], signature=signed["signature"]))
        await store.close()

    run(rewrite())
    raw = run(_export(backend))
    assert verifier.verify(raw).verified, "re-signed by the server, the rewrite hangs together"
    caught = verifier.verify(raw, "en", known_heads=[kept])
    assert not caught.verified
    assert caught.failures[0].code == "rewritten"
    assert f"the head you kept, {kept['size']}" in caught.text()


def test_the_server_commits_and_reveals_as_the_commitments_close(backend: DatabaseConfig) -> None:
    """The commit-reveal deal through the service: whatever digest the Procurator's command
    carries, the service commits to a fresh value of its own and reveals it in the same
    transaction, before any other party can reveal (docs/verification.md)."""
    import random

    from lepromafia.bots.service_bots import Ids, setup_service_game
    from lepromafia.engine import commands as cmd
    from lepromafia.engine.deal import value_digest
    from lepromafia.engine.state import Stage

    cast = small_cast()
    ids = Ids("deal-")
    values = {cast.procurator: "p" * 20, cast.consigliere: "c" * 20}

    async def go() -> list[dict[str, Any]]:
        async with GameService.running(backend, clock=manual_clock(), log_key=KEY) as svc:
            await setup_service_game(svc, "game-1", cast, random.Random(3), None,
                                     {"deal_method": "commit_reveal"}, start=False, ids=ids)
            for user, value in values.items():
                await svc.execute("game-1", cmd.CommitDealEntropy(actor=user, digest=value_digest(value)), ids())
            plans = tuple(cmd.CityPlan(name=name, tribune=cast.tribunes[i], residents=users)
                          for i, (name, users) in enumerate(cast.cities.items()))
            await svc.execute("game-1", cmd.FormCities(actor=cast.procurator, cities=plans), ids())
            lists = tuple((name, tuple(users)) for name, users in cast.cities.items())
            await svc.execute("game-1", cmd.SealDeal(actor=cast.consigliere, lists=lists, salt="s" * 32), ids())
            await svc.execute("game-1", cmd.OpenDealReveals(actor=cast.procurator, server_digest="0" * 64), ids())
            for user, value in values.items():
                await svc.execute("game-1", cmd.RevealDealEntropy(actor=user, value=value), ids())
            assert (await svc.state("game-1")).stage is Stage.DEALT
        events, _leaves, _heads = await _log(backend)
        return [json.loads(r["payload"]) | {"command_id": r["command_id"]} for r in events]

    events = run(go())
    opened = next(e for e in events if e["type"] == "DealRevealsOpened")
    server = next(e for e in events if e["type"] == "DealEntropyRevealed" and e["party"] == "system")
    assert opened["server_digest"] != "0" * 64
    assert opened["server_digest"] == value_digest(server["value"])
    reveals = [e["party"] for e in events if e["type"] == "DealEntropyRevealed"]
    assert reveals == ["system", "office:procurator", "office:consigliere"], "the server reveals first"
    assert server["command_id"] == opened["command_id"] + ":server"
    assert sum(1 for e in events if e["type"] == "MafiaDealt") == 2
