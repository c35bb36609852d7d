"""PLAYER-2, no "vegetables": a resident silent in his city for ``inactivity_hours`` gets a
prod, once per period of silence; a post in a secret inbox does not count (the list would
otherwise tell who talks where unseen); the dead and the hosts are never prodded; and his
Tribune sees the list with each one's last post."""

from __future__ import annotations

from datetime import timedelta

import pytest

from lepromafia.engine import commands as cmd
from lepromafia.engine.activity import inactive
from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.inboxes import live_inbox
from lepromafia.engine.settings import GameSettings
from lepromafia.service.service import GameService
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore

from ..service.helpers import Ids, at, default_cast, manual_clock, run, setup_game, sqlite_config
from .helpers import Recorder, dispatcher, profile

CITY = "Лепроград"


def test_silence_is_counted_from_the_last_city_post_and_a_mafia_post_does_not_count(tmp_path) -> None:
    """Six-hour setting, one city of six. Day 1 begins at 10:00. At 12:00 one honest
    resident posts in the city inbox and a mafioso posts only in the mafia inbox. At 15:59
    nobody is inactive; at 16:00 everybody but the honest poster is (the mafioso too: his
    mafia post is not activity); at 18:00 the poster is, with his last post at 12:00."""
    config = sqlite_config(tmp_path)
    ids = Ids("t")

    async def scenario() -> None:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        await setup_game(svc, "g", default_cast(1, 6), settings={"inactivity_hours": 6,
                                                                 "supreme_court_mode": "never"})
        clock.set(at(1, "12:00"))
        await svc.sweep()
        state = await svc.state("g")
        honest = next(u for u in state.living(CITY) if not state.is_mafia(u))
        mafioso = next(u for u in state.living(CITY) if state.is_mafia(u))
        await svc.execute("g", cmd.PostMessage(actor=honest, inbox=live_inbox(state, "city", CITY) or "",
                                               text="Всем доброе утро"), ids())
        mafia_inbox = live_inbox(state, "mafia", CITY)
        assert mafia_inbox
        await svc.execute("g", cmd.PostMessage(actor=mafioso, inbox=mafia_inbox, text="Тихо"), ids())
        state = await svc.state("g")
        assert inactive(state, at(1, "15:59")) == ()
        silent = {s.user: s for s in inactive(state, at(1, "16:00"))}
        assert honest not in silent and mafioso in silent
        assert set(silent) == set(state.living(CITY)) - {honest}
        assert all(s.last_post is None and s.since == at(1, "10:00") for s in silent.values())
        later = {s.user: s for s in inactive(state, at(1, "18:00"))}
        assert later[honest].last_post == at(1, "12:00") and later[honest].periods == 1
        await svc.close()

    run(scenario())


def test_a_prod_goes_out_once_per_period_and_never_to_the_dead_or_the_hosts(tmp_path) -> None:
    """Twelve-hour setting. The dispatcher sweeps every few minutes from Day 1 10:00 to
    Day 2 11:00: every living resident gets exactly two prods (at 22:00 and at 10:00 the
    next morning), each by e-mail too, in his language; no host gets one."""
    config = sqlite_config(tmp_path)

    async def scenario() -> tuple[dict[str, int], set[str], list[str], set[str]]:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        await setup_game(svc, "g", default_cast(1, 6), settings={"inactivity_hours": 12,
                                                                 "supreme_court_mode": "never"})
        store = NotifyStore(svc.store)
        state = await svc.state("g")
        residents = set(state.residents)
        for user in residents:
            await profile(store, user, lang="en", email=f"{user}@example.org")
        mail = Recorder("email")
        d = dispatcher(svc, store, [mail], watch_every=0)
        clock.set(at(1, "10:00"))
        while clock.now() < at(2, "11:00").timestamp():
            clock.advance(timedelta(minutes=20))
            await svc.sweep()
            while await d.step():
                pass
        notes = [n for n in await store.all_notifications("g") if n["kind"] == "inactive"]
        per_user: dict[str, int] = {}
        for n in notes:
            per_user[n["user_id"]] = per_user.get(n["user_id"], 0) + 1
        hosts = {state.procurator, state.consigliere, state.arbiter, *(c.tribune for c in state.cities.values())}
        texts = [m.text for m in mail.sent]
        await svc.close()
        return per_user, residents, texts, {h for h in hosts if h}

    per_user, residents, texts, hosts = run(scenario())
    living = set(per_user)
    assert living <= residents and not (living & hosts)
    assert set(per_user.values()) == {2}, per_user
    assert any("posted nothing in your city for 12 hours" in t for t in texts)
    assert any("for 24 hours" in t for t in texts)


def test_the_setting_is_checked_and_zero_turns_the_prods_off() -> None:
    """PLAYER-2: a negative number of hours is refused in words, with nothing created."""
    with pytest.raises(RuleViolation) as refused:
        GameSettings.from_mapping({"inactivity_hours": -1})
    assert refused.value.code is ErrorCode.INVALID_SETTINGS
    assert GameSettings.from_mapping({"inactivity_hours": 0}).inactivity_hours == 0
