"""Delivery rules on a bot game: a reminder due while the server was down goes out once
after the restart, or is dropped if its moment has passed (the vote closed); a reminder
of a vote the Tribune moved is dropped; quiet hours hold e-mail except the 15-minute
reminder; a digest sends many as one; preferences per game override the account's."""

from __future__ import annotations

import json
from datetime import timedelta

from lepromafia.service.notify.prefs import Preferences, Profile, digest_at, quiet_until
from lepromafia.service.service import GameService
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore

from ..service.helpers import run, sqlite_config
from .helpers import Recorder, at, bot_game, dispatcher, manual_clock, play, profile


def test_downtime_sends_what_is_still_due_once_and_drops_what_passed(tmp_path) -> None:
    """The game runs to Day 2 09:00 without a dispatcher (the server's notifier is down).
    It comes back at 'vote close − 30 min': the 60-minute reminder's moment has not passed
    (the vote is still open), so it goes out once; restarted again after the close, the
    15-minute reminder is dropped, never sent late. EXEC-5."""
    config = sqlite_config(tmp_path)

    async def scenario() -> tuple[list[str], dict[str, set[str]]]:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        bots = await bot_game(svc)
        store = NotifyStore(svc.store)
        mail = Recorder("email")
        for user in (await svc.state("g")).residents:
            await profile(store, user, lang="en", email=f"{user}@example.org")
        idle = dispatcher(svc, store, [])
        idle.step = _nothing  # type: ignore[method-assign]
        clock.set(at(1, "09:00"))
        state = await svc.state("g")
        for _ in range(48 * 4):
            if any(c.vote_closes_at and c.voting is not None for c in state.cities.values()):
                break
            await play(svc, clock, bots, idle, hours=0.25)
            state = await svc.state("g")
        closes = min(c.vote_closes_at for c in state.cities.values() if c.vote_closes_at and c.voting)
        assert closes.timestamp() - clock.now() > 45 * 60, "still before the 60-minute reminder's moment"
        while clock.now() < closes.timestamp() - 30 * 60:
            clock.advance(timedelta(minutes=10))
            await svc.sweep()
            await bots.step(await svc.state("g"))
        first = dispatcher(svc, store, [mail])
        while await first.step():
            pass
        once = [m.text for m in mail.sent]
        clock.set(closes + timedelta(minutes=5))
        await svc.sweep()
        second = dispatcher(svc, store, [mail])
        while await second.step():
            pass
        statuses: dict[str, set[str]] = {}
        for row in await store.outbox_rows("g"):
            statuses.setdefault(row["kind"], set()).add(row["status"])
        await svc.close()
        return once, statuses

    once, statuses = run(scenario())
    sixty = [t for t in once if "closes in 60 minutes" in t]
    assert sixty, "the reminder still due goes out after the restart"
    assert not any("closes in 15 minutes" in t for t in once)
    assert "dropped" in statuses["vote_closes_15"], statuses


async def _nothing() -> int:
    return 0


def test_quiet_hours_digest_and_preferences() -> None:
    """Quiet hours 23:00–08:00 in Yekaterinburg (UTC+5): at 01:30 local an e-mail waits
    until 08:00 local; a daily digest waits until 09:00; the game's preference beats the
    account's, which beats the default (on)."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    zone = ZoneInfo("Asia/Yekaterinburg")
    night = datetime(2026, 12, 2, 1, 30, tzinfo=zone).timestamp()
    day = datetime(2026, 12, 2, 12, 0, tzinfo=zone).timestamp()
    p = Profile("ana", time_zone="Asia/Yekaterinburg", quiet_start="23:00", quiet_end="08:00")
    assert quiet_until(p, night) == datetime(2026, 12, 2, 8, 0, tzinfo=zone).timestamp()
    assert quiet_until(p, day) is None
    daily = Profile("ana", time_zone="Asia/Yekaterinburg", digest="daily")
    assert digest_at(daily, day) == datetime(2026, 12, 3, 9, 0, tzinfo=zone).timestamp()
    assert digest_at(Profile("ana"), day) is None
    prefs = Preferences([
        {"game_id": "", "kind": "*", "channel": "email", "enabled": False},
        {"game_id": "g", "kind": "vote_closes_15", "channel": "email", "enabled": True},
    ])
    assert prefs.enabled("g", "vote_closes_15", "email") is True
    assert prefs.enabled("g", "day_post", "email") is False
    assert prefs.enabled("h", "vote_closes_15", "email") is False
    assert prefs.enabled("h", "day_post", "telegram") is True


def test_quiet_hours_hold_e_mail_but_not_the_last_reminder_and_a_digest_is_one_mail(tmp_path) -> None:
    """Everyone but Cy has quiet hours all day long: the 60-minute reminders, which could
    only go after the close, are not kept; the 15-minute one goes at once (EXEC-5). Cy takes
    an hourly digest: his e-mails of one hour arrive as one."""
    config = sqlite_config(tmp_path)

    async def scenario() -> tuple[list, list, list]:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        bots = await bot_game(svc)
        store = NotifyStore(svc.store)
        state = await svc.state("g")
        city = next(iter(state.cities.values()))
        cy = city.residents[1]
        for user in state.residents:
            if user != cy:
                await profile(store, user, lang="en", email="bo@example.org", quiet_start="00:00",
                              quiet_end="23:59")
        await profile(store, cy, lang="en", email="cy@example.org", digest="hourly")
        mail = Recorder("email")
        d = dispatcher(svc, store, [mail])
        clock.set(at(1, "09:00"))
        await play(svc, clock, bots, d, hours=40)
        sent = list(mail.sent)
        rows = await store.deliveries_of()
        assert all(json.loads(r["payload"])["digest"] for r in rows
                   if r["user_id"] == cy and r["kind"] != "vote_closes_15")
        before = len(mail.sent)
        await store.add_deliveries([{
            "key": f"digest-test:{n}", "notification_id": None, "game_id": "g", "kind": kind,
            "user_id": cy, "channel": "email", "address": "cy@example.org",
            "payload": json.dumps({"fields": {"title": "T", "day": 3, "city": "X"}, "secret": False,
                                   "lang": "en", "digest": True}),
            "status": "pending", "attempts": 0, "next_real": clock.now(), "expires_real": None}
            for n, kind in enumerate(("day_post", "died", "nominated"))])
        await d.send_due()
        digest = mail.sent[before:]
        await svc.close()
        return digest, rows, sent

    digest, rows, sent = run(scenario())
    (one,) = digest
    assert one.subject == "Lepromafia: what happened in your games" and len(one.text.splitlines()) == 3
    assert one.link.endswith("/notifications")
    to_bo = [m.text for m in sent if m.address == "bo@example.org"]
    assert any("closes in 15 minutes" in t for t in to_bo)
    assert not any("closes in 60 minutes" in t for t in to_bo)
    assert not any(r["kind"] == "vote_closes_60" and r["address"] == "bo@example.org" for r in rows), \
        "a 60-minute reminder inside quiet hours that would only go after the close is not kept"
