"""E-mail through a real SMTP server (aiosmtpd) started by the test: reminders of a bot
game reach a Russian and an English resident in their language, as text and HTML, with
a working RFC 8058 one-click unsubscribe; a bounce is dead-lettered, not retried forever."""

from __future__ import annotations

from fastapi.testclient import TestClient

from lepromafia.service.notify.channels import EmailSender
from lepromafia.service.service import GameService
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore
from lepromafia.web.app import create_app
from lepromafia.web.settings import WebSettings

from ..service.helpers import run, sqlite_config
from .helpers import BASE, SmtpServer, at, bot_game, dispatcher, manual_clock, play, profile


def test_reminders_by_email_in_each_language_and_one_click_unsubscribe(tmp_path) -> None:
    """Two cities of eight play Day 1–2. Ana (ru) and Ben (en), two residents of the first
    city, have verified addresses: each gets the vote reminders (EXEC-5) by e-mail in his
    own language, plain text plus HTML, with List-Unsubscribe and List-Unsubscribe-Post.
    Ben POSTs the one-click link: the page confirms, and no further e-mail reaches him."""
    config = sqlite_config(tmp_path)

    async def scenario(server: SmtpServer) -> tuple[str, str, str]:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        bots = await bot_game(svc)
        store = NotifyStore(svc.store)
        state = await svc.state("g")
        city = next(iter(state.cities.values()))
        ana, ben = city.residents[0], city.residents[1]
        await profile(store, ana, lang="ru", email="ana@example.org")
        ben_token = await profile(store, ben, lang="en", email="ben@example.org")
        d = dispatcher(svc, store, [EmailSender(server.url, "Lepromafia <noreply@notify.test>")])
        clock.set(at(1, "09:00"))
        await play(svc, clock, bots, d, hours=40)
        await svc.close()
        return ana, ben, ben_token

    with SmtpServer() as server:
        _ana, _ben, ben_token = run(scenario(server))
        mails = server.inbox.messages
        to_ana = [m for m in mails if m["To"] == "ana@example.org"]
        to_ben = [m for m in mails if m["To"] == "ben@example.org"]
        assert to_ana and to_ben
        ru = [m for m in to_ana if "закрывается через 15 минут" in m.get_body(("plain",)).get_content()]
        en = [m for m in to_ben if "closes in 15 minutes" in m.get_body(("plain",)).get_content()]
        assert ru and en, "the 15-minute reminder reaches each in his language"
        for m in mails:
            assert m["Message-ID"].endswith("@lepromafia>")
            assert m.get_body(("html",)) is not None and m.get_body(("plain",)) is not None
            assert m["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        link = "".join(str(to_ben[0]["List-Unsubscribe"]).split()).strip("<>")
        assert link == f"{BASE}/notify/unsubscribe/{ben_token}"
        assert len({m["Message-ID"] for m in mails}) == len(mails), "no e-mail twice"

        settings = WebSettings(database_url=config.url, notify_dispatch=False, argon2_time_cost=1,
                               argon2_memory_kib=8192)
        with TestClient(create_app(settings)) as client:
            r = client.post(link.removeprefix(BASE), content="List-Unsubscribe=One-Click",
                            headers={"content-type": "application/x-www-form-urlencoded"})
            assert r.status_code == 200 and ("no more e-mails" in r.text or "больше не будет" in r.text)
            assert client.post("/notify/unsubscribe/not-a-token").status_code == 404

        count = len(mails)

        async def later() -> None:
            clock = manual_clock()
            svc = GameService(EventStore.open(config), clock)
            await svc.start(sweep=False)
            import random

            from lepromafia.bots.strategy.service import StrategyServiceBots
            bots = StrategyServiceBots(svc, "g", random.Random(4))
            store = NotifyStore(svc.store)
            d = dispatcher(svc, store, [EmailSender(server.url, "x@notify.test")])
            clock.set(at(2, "22:00"))
            await play(svc, clock, bots, d, hours=30)
            await svc.close()

        run(later())
        new = server.inbox.messages[count:]
        assert any(m["To"] == "ana@example.org" for m in new)
        assert not any(m["To"] == "ben@example.org" for m in new), "Ben unsubscribed"


def test_a_bounce_is_dead_lettered_at_once_and_an_outage_retried(tmp_path) -> None:
    """An SMTP server that answers 550 to Cleo's address: her delivery goes dead after one
    attempt (no retry forever) and the Procurator's list shows it; with the server down,
    Dan's delivery waits with backoff and is sent once the server is back."""
    from lepromafia.service.notify.service import NotifyService

    config = sqlite_config(tmp_path)

    class Refusing:
        def __init__(self) -> None:
            from .helpers import Inbox
            self.inbox = Inbox()

        async def handle_RCPT(self, server, session, envelope, address, options):
            if address.startswith("cleo"):
                return "550 no such user"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            return await self.inbox.handle_DATA(server, session, envelope)

    async def scenario() -> None:
        from aiosmtpd.controller import Controller

        from .helpers import free_port

        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        await bot_game(svc)
        store = NotifyStore(svc.store)
        state = await svc.state("g")
        cleo, dan = list(state.residents)[:2]
        await profile(store, cleo, email="cleo@example.org")
        await profile(store, dan, email="dan@example.org")
        port = free_port()
        handler = Refusing()
        sender = EmailSender(f"smtp://127.0.0.1:{port}", "x@notify.test", timeout=3)
        d = dispatcher(svc, store, [sender], backoff=10.0)
        for user in (cleo, dan):
            await store.add_deliveries([{
                "key": f"k:{user}", "notification_id": None, "game_id": "g", "kind": "died",
                "user_id": user, "channel": "email", "address": f"{user[:0]}{'cleo' if user == cleo else 'dan'}@example.org",
                "payload": '{"fields": {"title": "T"}, "secret": false, "lang": "en"}',
                "status": "pending", "attempts": 0, "next_real": clock.now(), "expires_real": None}])
        await d.send_due()  # the server is down: both wait
        rows = {r["user_id"]: r for r in await store.deliveries_of()}
        assert rows[dan]["status"] == "pending" and rows[dan]["attempts"] == 1
        assert rows[dan]["next_real"] >= clock.now() + 10
        controller = Controller(handler, hostname="127.0.0.1", port=port)
        controller.start()
        try:
            clock.advance(__import__("datetime").timedelta(seconds=30))
            await d.send_due()
        finally:
            controller.stop()
        rows = {r["user_id"]: r for r in await store.deliveries_of()}
        assert rows[dan]["status"] == "sent" and rows[cleo]["status"] == "dead"
        assert rows[cleo]["attempts"] == 2 and "550" in rows[cleo]["last_error"]
        assert [m["To"] for m in handler.inbox.messages] == ["dan@example.org"]
        service = NotifyService(store, clock, lambda lang, m: m)
        dead = await service.dead_letters("g")
        assert [(x.channel, x.user_id) for x in dead] == [("email", cleo)]
        await svc.close()

    run(scenario())
