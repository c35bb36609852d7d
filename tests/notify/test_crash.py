"""SIGKILL of the dispatcher mid-batch: after a restart every due notification is sent,
and each exactly once once the receiver keys them by their idempotency key (the
Message-ID); the only resend possible is the one e-mail in flight at the kill."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import time
from collections import Counter

from lepromafia.service.notify.channels import EmailSender
from lepromafia.service.service import GameService
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore

from ..service.helpers import run, setup_game, small_cast, sqlite_config
from .helpers import dispatcher, profile


def _ids(log: str) -> list[str]:
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return f.read().split()


class SlowInbox:
    def __init__(self, log: str) -> None:
        self.log = log

    async def handle_DATA(self, server, session, envelope):
        await asyncio.sleep(0.02)
        for line in envelope.content.decode(errors="replace").splitlines():
            if line.lower().startswith("message-id:"):
                with open(self.log, "a") as f:
                    f.write(line.split(":", 1)[1].strip() + "\n")
        return "250 OK"


def _serve(config_url: str, smtp_url: str) -> None:
    async def main() -> None:
        from lepromafia.store.database import DatabaseConfig

        svc = GameService(EventStore.open(DatabaseConfig(config_url)))
        await svc.start(sweep=False)
        d = dispatcher(svc, NotifyStore(svc.store), [EmailSender(smtp_url, "x@notify.test")],
                       lease=2.0, batch=10)

        async def no_prods() -> int:  # only the forty rows under test, whatever today is
            return 0

        d.watch = no_prods  # type: ignore[method-assign]
        while True:
            await d.step()
            await asyncio.sleep(0.01)

    asyncio.run(main())


def test_sigkill_mid_batch_then_restart_sends_each_due_notification_once(tmp_path) -> None:
    """Forty residents with verified addresses each have a due 'Day Post' notification. The
    dispatcher process is SIGKILLed after the first e-mails arrive; a new one takes over
    when the lease ends. Every notification arrives; no Message-ID arrives twice except
    at most the one being sent at the kill; every delivery row ends 'sent'."""
    config = sqlite_config(tmp_path)
    log = str(tmp_path / "received.txt")

    async def prepare() -> int:
        await upgrade(config)
        svc = GameService(EventStore.open(config))
        await svc.start(sweep=False)
        await setup_game(svc, "g", small_cast(), settings={"supreme_court_mode": "never"})
        store = NotifyStore(svc.store)
        state = await svc.state("g")
        users = list(state.residents)
        rows = []
        for i, user in enumerate(users):
            await profile(store, user, email=f"u{i}@example.org")
            rows.append({"key": f"g:died:crash:{user}", "game_id": "g", "user_id": user, "kind": "died",
                         "seq": None, "payload": json.dumps({"public": True}), "due_real": time.time() - 1,
                         "expires_real": None, "status": "pending"})
        from lepromafia.store.notify import outbox

        async with svc.store.transaction() as tx:
            await tx.insert_rows(outbox, rows)
        await svc.close()
        return len(rows)

    from aiosmtpd.controller import Controller

    from .helpers import free_port

    port = free_port()
    controller = Controller(SlowInbox(log), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        expected = run(prepare())
        ctx = multiprocessing.get_context("spawn")
        first = ctx.Process(target=_serve, args=(config.url, f"smtp://127.0.0.1:{port}"))
        first.start()
        deadline = time.time() + 60
        while time.time() < deadline and len(_ids(log)) < 3:
            time.sleep(0.01)
        assert first.pid is not None
        os.kill(first.pid, signal.SIGKILL)
        first.join()
        received_at_kill = len(_ids(log))
        assert received_at_kill < expected, "killed mid-batch"
        second = ctx.Process(target=_serve, args=(config.url, f"smtp://127.0.0.1:{port}"))
        second.start()
        deadline = time.time() + 90
        while time.time() < deadline and len(set(_ids(log))) < expected:
            time.sleep(0.05)
        time.sleep(0.5)
        assert second.pid is not None
        os.kill(second.pid, signal.SIGKILL)
        second.join()
    finally:
        controller.stop()
    ids = _ids(log)
    counts = Counter(ids)
    assert len(counts) == expected, "every due notification arrives"
    assert sum(counts.values()) - expected <= 1, "at most the e-mail in flight at the kill is resent"

    async def statuses() -> Counter[str]:
        svc = GameService(EventStore.open(config))
        store = NotifyStore(svc.store)
        rows = await store.deliveries_of()
        await svc.store.close()
        return Counter(r["status"] for r in rows)

    assert run(statuses()) == {"sent": expected}
