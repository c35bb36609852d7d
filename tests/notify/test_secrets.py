"""§9 in every channel: a bot-played game with every seat reachable by e-mail, Telegram
and Web Push (recording channels). Every notification of every seat concerns an event
that seat may see (``visible_to``); outside the app a secret notification says only
«В игре «…» для вас новое сообщение»; no text in any channel names a person, a role
or an inbox."""

from __future__ import annotations

import hashlib
import json
import re
import time

from lepromafia.engine.inboxes import can_read
from lepromafia.engine.visibility import visible_to
from lepromafia.service.notify.kinds import EXTERNAL_SECRET, SPECS, NotifyKind
from lepromafia.service.service import GameService
from lepromafia.store import codec
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore

from ..service.helpers import run, sqlite_config
from .helpers import Recorder, at, bot_game, dispatcher, manual_clock, play, profile, tr

ROLE_WORDS = re.compile(r"маф|комисс|крёстн|крестн|консиль|судь|mafi|commissar|godfather|consigliere|judge"
                        r"|police|полиц|honest|честн", re.IGNORECASE)


def test_every_notification_of_every_seat_passes_the_audience_filter(tmp_path) -> None:
    """Two cities of eight, Days 1–4 (votes, nominations, kills, checks, commissar offers,
    Day Posts, inactivity prods after six silent hours). Every morning every seat follows
    every inbox it may read then, the mafia's and the police station's included, so the
    notices of followed inboxes run through the same filter. §9, SEC-1, SEC-2,
    COMM-APPT-3, PLAYER-2."""
    config = sqlite_config(tmp_path)
    email, telegram, push = Recorder("email"), Recorder("telegram"), Recorder("push")

    async def scenario() -> tuple[list[dict], dict[int, object], list[str], str, list[dict]]:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        bots = await bot_game(svc, inactivity_hours=6)
        store = NotifyStore(svc.store)
        state = await svc.state("g")
        people = [*state.residents, state.procurator, state.consigliere, state.arbiter]
        people = [p for p in dict.fromkeys(people) if p]
        for i, user in enumerate(people):
            await profile(store, user, lang="ru" if i % 2 else "en", email=f"{user}@example.org",
                          telegram=str(1000 + i))
            await store.add_push({"endpoint": f"https://push.example/{user}", "user_id": user,
                                  "p256dh": "k", "auth": "a", "created_real": time.time()})
        d = dispatcher(svc, store, [email, telegram, push], watch_every=0)
        clock.set(at(1, "09:00"))
        for _ in range(4):
            state = await svc.state("g")
            for user in people:
                for inbox in state.inboxes:
                    if can_read(state, inbox, user) and state.inboxes[inbox].kind != "personal":
                        await store.follow(user, "g", inbox, True, clock.now())
            await play(svc, clock, bots, d, hours=24, step_minutes=20)
        notes = await store.all_notifications("g")
        outbox = await store.outbox_rows("g")
        async with svc.store.reading() as tx:
            rows = await tx.event_rows("g")
        events = {r["seq"]: codec.decode_event(codec.loads(r["payload"])) for r in rows}
        title = (await svc.state("g")).title
        await svc.close()
        return notes, events, people, title, outbox

    notes, events, people, title, outbox = run(scenario())
    kinds = {n["kind"] for n in notes}
    assert {"vote_opens", "vote_closes_15", "day_post", "died", "commissar_offer", "inactive",
            "followed_inbox"} <= kinds, kinds
    # a followed inbox's notice stands for the messages of one inbox in one hour: the
    # recipient may see at least one of them, and none of them is his own
    buckets: dict[str, list[int]] = {}
    for row in outbox:
        if row["kind"] == "followed_inbox":
            inbox = json.loads(row["payload"])["inbox"]
            buckets.setdefault(f"g:followed_inbox:{_short(inbox)}:{int(row['due_real'] // 3600)}", []) \
                .append(row["seq"])
    followed = [n for n in notes if n["kind"] == "followed_inbox"]
    assert followed
    for n in followed:
        seqs = buckets[n["key"].rsplit(":", 1)[0]]
        assert any(visible_to(events[s], n["user_id"]) and getattr(events[s], "author", None) != n["user_id"]
                   for s in seqs), n["key"]
        assert n["secret"]
    # 1. the audience filter: an event's notice only to someone who may see the event
    outbox_seq = 0
    for n in notes:
        fields = json.loads(n["payload"])
        seq = _seq(n)
        if seq is not None:
            outbox_seq += 1
            assert visible_to(events[seq], n["user_id"]), (n["kind"], n["user_id"])
        assert SPECS[NotifyKind(n["kind"])].secret <= n["secret"]
        assert not any(p in json.dumps(fields, ensure_ascii=False) for p in people if p != n["user_id"])
    assert outbox_seq > 0
    # 2. external texts: secret ones are the bare sentence; none names a person, role or inbox
    generic = {tr(lang, EXTERNAL_SECRET).format(title=title) for lang in ("ru", "en")}
    secret_sent = 0
    for channel in (email, telegram, push):
        assert channel.sent, channel.name
        for m in channel.sent:
            words = f"{m.subject} {m.text} {m.link}"
            assert not any(p in words for p in people), (channel.name, words)
            assert not ROLE_WORDS.search(m.text.replace(title, "")), (channel.name, m.text)
            assert "inbox" not in m.link and "ящик" not in m.text
            if m.text in generic:
                secret_sent += 1
                assert m.link.endswith("/notifications")
    assert secret_sent > 0, "secret notifications went out, as the bare sentence"
    secret_kinds = {n["kind"] for n in notes if n["secret"]}
    assert {"commissar_offer"} <= secret_kinds


def _short(address: str) -> str:
    return hashlib.sha256(address.encode()).hexdigest()[:12]


def _seq(note: dict) -> int | None:
    """The causing event's seq: the outbox key of an event's notice ends in seq:user."""
    parts = note["key"].split(":")
    kind = note["kind"]
    if kind in ("nominated", "personal_message", "check_answered", "commissar_offer", "died", "spirit",
                "day_post", "game_ended", "mentioned") and len(parts) >= 4 and parts[-2].isdigit():
        return int(parts[-2])
    return None
