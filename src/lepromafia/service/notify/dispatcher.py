"""The dispatcher: an asyncio task that turns due outbox rows into notifications and
sends them.

Two passes, each over rows it claims under a lease (``UPDATE … WHERE status='pending'
… RETURNING``; ``FOR UPDATE SKIP LOCKED`` on PostgreSQL), so several workers share the
work and a worker killed mid-batch leaves its rows to the next one after the lease:

1. **expand** a due outbox row: drop it if its moment has passed (``expires_real``) or
   its deadline has moved; else find its recipients (named, or whoever holds the
   engine's duty now), write one in-app notification each and one delivery per external
   channel the person wants (preferences, quiet hours, digest) — in one transaction,
   under unique keys, so a second expansion writes nothing.
2. **send** due deliveries, per channel under a rate limit: ``sent`` is recorded at once
   after each send; a failure is retried with exponential backoff up to ``max_attempts``,
   a refusal (a bounce) is dead-lettered at once, an expired push subscription removed.
   A retry reuses the delivery's idempotency key (the Message-ID, the push Topic).

It runs a pass when this process commits events (the store's commit listener: every outbox
row a command causes is written in its commit), at most one pass per ``interval`` while
commits keep coming, and otherwise every ``idle`` seconds, for what time alone makes due
(a reminder, a retry, a lease run out, another worker's commit): an idle server no longer
polls the outbox twice a second (issue 17).

With several workers each expands first the rows of the games it writes (those its commits
caused), whose states it holds; any other game's row it claims only once it has waited
``foreign_grace`` seconds, checked every ``idle`` seconds: the row of a dead worker's game,
or of a game nobody writes (an inactivity prod). Expanding another worker's game would
read that game from the store and replay what it missed, pass after pass (issue 17). The
minute's sweep for what time alone makes due (``watch``) likewise leaves a game another
worker is writing to that worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ...engine import events as ev
from ...engine.duties import duties
from ...engine.state import GameState, Stage
from ...store import codec
from ...store.notify import Claim, NotifyStore
from ..clock import Clock, SystemClock
from ..outbound import may_see
from ..service import GameService
from . import texts
from .causes import participants
from .channels import Gone, Outgoing, Permanent, Sender, Transient
from .kinds import EXTERNAL, HOST_SEATS, SPECS, Channel, KindSpec, NotifyKind
from .prefs import Preferences, Profile, digest_at, quiet_until
from .watch import still_true, watch_rows

log = logging.getLogger(__name__)

Row = dict[str, Any]


@dataclass
class RateLimit:
    """A token bucket: ``rate`` sends a second, bursts of ``burst``."""

    rate: float
    burst: float
    tokens: float = -1.0
    at: float = field(default_factory=time.monotonic)

    async def acquire(self) -> None:
        if self.tokens < 0:
            self.tokens = self.burst
        while True:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


DEFAULT_RATES = {"email": (20.0, 40.0), "telegram": (25.0, 30.0), "push": (50.0, 100.0)}


@dataclass
class DispatchConfig:
    base_url: str = "http://127.0.0.1:8000"
    interval: float = 0.5
    """Seconds at least between two passes woken by commits (they coalesce under load)."""
    idle: float = 2.0
    """Seconds between passes when this process commits nothing (the fallback poll)."""
    lease: float = 60.0
    batch: int = 200
    max_attempts: int = 6
    backoff: float = 5.0
    backoff_cap: float = 3600.0
    rates: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_RATES))
    watch_every: float = 60.0
    """Seconds between sweeps for what time alone makes due (``watch``): inactivity, overdue duties."""
    foreign_grace: float = 5.0
    """Several workers: seconds a row of a game this worker does not write waits for the
    game's own worker before this one claims it."""
    own_for: float = 600.0
    """Several workers: seconds a game stays this worker's after its last commit here."""


class Dispatcher:
    def __init__(self, games: GameService, store: NotifyStore, senders: Iterable[Sender],
                 translate: texts.Translate, config: DispatchConfig | None = None,
                 clock: Clock | None = None, worker: str | None = None,
                 on_notes: Callable[[list[str]], Awaitable[None] | None] | None = None,
                 telegram: Any = None) -> None:
        self.games = games
        self.store = store
        self.senders = {s.name: s for s in senders}
        self.translate = translate
        self.config = config or DispatchConfig()
        self.clock = clock or games.clock or SystemClock()
        self.worker = worker or secrets.token_hex(8)
        self.limits = {name: RateLimit(*self.config.rates.get(name, (10.0, 10.0)))
                       for name in self.senders}
        self.on_notes = on_notes
        """Called with the users who got an in-app notification (the live badge)."""
        self.telegram = telegram
        """Whatever links Telegram chats (``NotifyService.poll_telegram``), polled each pass."""
        self._offset = 0
        self._task: asyncio.Task[None] | None = None
        self._titles: dict[str, str] = {}
        self._watched = float("-inf")
        self._wake: asyncio.Event | None = None
        self._sends_checked = float("-inf")
        self._others_checked = float("-inf")
        self._versions: dict[str, int] = {}
        """Each unfinished game's version at this worker's previous sweep (``watch``)."""
        self._backlog = False
        """Whether the last pass's outbox or delivery claim came back full: the next pass
        follows at once. Otherwise passes woken by commits are ``interval`` apart, so under
        a stream of messages each pass expands a batch of them, not one or two (issue 17)."""
        self._sends_waiting = True
        """Whether deliveries may be due that this process knows of (it wrote some, or its
        last claim was full): a pass claims deliveries then, and otherwise only once per
        ``idle`` (another worker's, a retry's, a lease run out), not on every commit."""

    # --- running -------------------------------------------------------------------

    def start(self) -> None:
        self._wake = asyncio.Event()
        on_commit = getattr(self.games.store, "on_commit", None)
        if on_commit is not None:
            on_commit(self._committed)
        self._task = asyncio.create_task(self._forever())

    def _committed(self, game_id: str, before: int, events: Sequence[tuple[int, ev.Event]]) -> None:
        """The store's commit listener: this process made events durable (and their outbox
        rows with them)."""
        if self._wake is not None and events:
            self._wake.set()

    async def stop(self) -> None:
        with suppress(AttributeError, ValueError):
            self.games.store.listeners.remove(self._committed)
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for sender in self.senders.values():  # an e-mail session kept open between sends
            close = getattr(sender, "close", None)
            if close is not None:
                with suppress(Exception):
                    await close()

    async def _forever(self) -> None:
        wake = self._wake or asyncio.Event()
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            wake.clear()  # a commit during the pass wakes the next one
            try:
                busy = await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("notification pass failed")
                busy = 0
            if busy and self._backlog:
                # a claim came back full: more rows wait now, claimed after a pause as long
                # as this pass, so that a backlog (after an outage) takes at most half of
                # the loop from the pages and sockets (a restart's reconnecting players)
                await asyncio.sleep(loop.time() - started)
                continue
            # asyncio.timeout, not wait_for: Python 3.11's wait_for returns a wait that
            # finished in the step it was cancelled in, dropping the cancel (a commit's wake
            # as the app stops: ``stop`` then waited for ever)
            with suppress(TimeoutError):
                async with asyncio.timeout(self.config.idle):
                    await wake.wait()
            await asyncio.sleep(max(0.0, started + self.config.interval - loop.time()))

    async def step(self) -> int:
        """One pass of both kinds; the number of rows handled. Deliveries are claimed when
        this process may have some due (``_sends_waiting``) or ``idle`` seconds after the
        last claim: a chat message's pass, which writes none, costs no claim (issue 17)."""
        if self.clock.now() - self._watched >= self.config.watch_every:
            await self.watch()
        expanded = await self.expand_due()
        sent = 0
        if self._sends_waiting or self.clock.now() - self._sends_checked >= self.config.idle:
            sent = await self.send_due()
        self._backlog = expanded >= self.config.batch or self._sends_waiting
        if self.telegram is not None and "telegram" in self.senders:
            try:
                self._offset = await self.telegram.poll_telegram(self._offset)
            except Transient as exc:
                log.warning("telegram updates: %s", exc)
            except Permanent as exc:
                log.warning("telegram updates refused: %s", exc)
        return expanded + sent

    def _claim(self) -> Claim:
        return Claim(self.worker, self.clock.now(), self.config.lease, self.config.batch)

    # --- 0. what time alone makes due ---------------------------------------------------

    async def watch(self) -> int:
        """Sweep every unfinished game for inactivity prods and overdue host duties
        (``watch.watch_rows``) into the outbox; the number of rows offered.

        With several workers a game another worker is writing is left to that worker: a
        game this one did not write lately is watched only if its version did not move
        since this worker's previous sweep (nobody writes it, or its worker died). Reading
        it would replay everything it missed, every sweep (issue 17)."""
        self._watched = self.clock.now()
        rows: list[Row] = []
        own = set(self.games.written_since(time.monotonic() - self.config.own_for))
        for meta in await self.games.store.list_games():
            if meta.stage == Stage.FINISHED.value:
                self._versions.pop(meta.game_id, None)
                continue
            seen, self._versions[meta.game_id] = self._versions.get(meta.game_id), meta.version
            if not self.games.sole_writer and meta.game_id not in own and seen != meta.version:
                continue
            try:
                current = await self.games.current(meta.game_id)
                rows += watch_rows(meta.game_id, current.meta.clock, current.state, current.now)
            except Exception:
                log.exception("watching game %s failed", meta.game_id)
        await self.store.add_outbox(rows)
        return len(rows)

    # --- 1. expand ---------------------------------------------------------------------

    async def claim_outbox(self) -> list[Row]:
        """The due outbox rows this pass expands: every one for a sole writer; with
        several workers those of this worker's games, and once every ``idle`` seconds any
        game's row that waited ``foreign_grace`` seconds (see the module's docstring)."""
        claim = self._claim()
        if self.games.sole_writer:
            return await self.store.claim_outbox(claim)
        own = self.games.written_since(time.monotonic() - self.config.own_for)
        rows = await self.store.claim_outbox(replace(claim, games=own)) if own else []
        if len(rows) < claim.limit and claim.now - self._others_checked >= self.config.idle:
            self._others_checked = claim.now
            rows += await self.store.claim_outbox(replace(
                claim, limit=claim.limit - len(rows), due_by=claim.now - self.config.foreign_grace))
        return rows

    async def expand_due(self) -> int:
        rows = await self.claim_outbox()
        items: list[tuple[int, str, list[Row], list[Row]]] = []
        people = _People(self.store)
        await people.load([r["user_id"] for r in rows if r["user_id"]])
        states: dict[str, Any] = {}
        follows = await _Follows.load(self.store, rows)
        for row in rows:
            try:
                items.append(await self._expand(row, people, states, follows))
            except Exception:
                log.exception("expanding notification %s failed", row["key"])
        finished = await self.store.expand_many(self.worker, items)
        if any(sends for i, _, _, sends in items if i in finished):
            self._sends_waiting = True
        if self.on_notes:
            rung = self.on_notes(sorted({n["user_id"] for i, _, notes, _ in items if i in finished
                                         for n in notes}))
            if rung is not None:
                try:
                    await rung
                except Exception:
                    log.exception("ringing the unread counts failed")
        return len(rows)

    async def _expand(self, row: Row, people: _People, states: dict[str, Any],
                      follows: _Follows) -> tuple[int, str, list[Row], list[Row]]:
        """What one due outbox row becomes: (id, status, notifications, deliveries)."""
        now = self.clock.now()
        if row["expires_real"] is not None and row["expires_real"] <= now:
            return row["id"], "dropped", [], []
        current = states.get(row["game_id"]) or await self.games.current(row["game_id"])
        states[row["game_id"]] = current
        state, game_now = current.state, current.now
        self._titles[row["game_id"]] = state.title
        spec = SPECS[NotifyKind(row["kind"])]
        payload = json.loads(row["payload"])
        if _stale(state, payload) or (row["user_id"] and not still_true(spec.kind, state, row["user_id"],
                                                                          payload, game_now)):
            return row["id"], "dropped", [], []
        if row["user_id"]:
            found: dict[str, dict[str, Any]] = {row["user_id"]: {}}
        elif spec.kind is NotifyKind.FOLLOWED_INBOX:
            found = {u: {} for u in follows.recipients(row)}
        else:
            found = recipients(spec, state, payload, game_now)
        users = sorted(found)
        await people.load(users)
        profiles, prefs, pushes = people.profiles, people.prefs, people.pushes
        secret = spec.secret or not payload.get("public", True)
        notes: list[Row] = []
        sends: list[Row] = []
        for user in users:
            fields = {**{k: v for k, v in payload.items() if k not in PRIVATE}, **found[user],
                      "title": state.title}
            key = row["key"] if row["user_id"] else f"{row['key']}:{user}"
            if spec.kind is NotifyKind.FOLLOWED_INBOX:  # at most one an hour per inbox
                key = f"{row['game_id']}:{spec.kind.value}:{_short(payload['inbox'])}:" \
                      f"{int(row['due_real'] // 3600)}:{user}"
            notes.append({"key": key, "game_id": row["game_id"], "user_id": user, "kind": spec.kind.value,
                          "payload": json.dumps(fields, sort_keys=True, default=str), "secret": secret,
                          "created_real": now})
            profile = Profile.of(user, profiles.get(user))
            sends += self._deliveries(row, spec, key, fields, secret, profile, Preferences(prefs[user]),
                                      pushes[user], now)
        return row["id"], "done", notes, sends

    def _deliveries(self, row: Row, spec: KindSpec, key: str, fields: dict[str, Any], secret: bool,
                    profile: Profile, prefs: Preferences, pushes: list[Row], now: float) -> list[Row]:
        addresses: dict[Channel, list[tuple[str, dict[str, Any]]]] = {
            Channel.EMAIL: [(profile.email, {})] if profile.email and profile.email_verified else [],
            Channel.TELEGRAM: [(profile.telegram_chat, {})] if profile.telegram_chat else [],
            Channel.PUSH: [(p["endpoint"], {"p256dh": p["p256dh"], "auth": p["auth"]}) for p in pushes],
        }
        # External rows keep nothing secret: only the kind, the title and, if the
        # notification is not secret, its fields.
        kept = {"title": fields["title"]} if secret else fields
        out = []
        for channel in EXTERNAL:
            if channel.value not in self.senders or not prefs.enabled(row["game_id"], spec.kind.value,
                                                                         channel.value):
                continue
            for address, extra in addresses[channel]:
                when = now
                quiet = None if spec.quiet_exempt else quiet_until(profile, now)
                digest = digest_at(profile, now) if channel is Channel.EMAIL and not spec.quiet_exempt \
                    else None
                when = max(x for x in (now, quiet, digest) if x is not None)
                if row["expires_real"] is not None and when >= row["expires_real"]:
                    continue
                if channel is Channel.EMAIL:
                    extra = {"unsubscribe": f"{self.config.base_url.rstrip('/')}/notify/unsubscribe/"
                                            f"{profile.unsubscribe_token}"}
                out.append({
                    "key": f"{key}:{channel.value}:{_short(address)}", "note_key": key,
                    "game_id": row["game_id"], "kind": spec.kind.value, "user_id": profile.user_id,
                    "channel": channel.value, "address": address,
                    "payload": json.dumps({"fields": kept, "secret": secret, "lang": profile.language,
                                           "digest": digest is not None, **extra},
                                          sort_keys=True, default=str),
                    "status": "pending", "attempts": 0, "next_real": when,
                    "expires_real": row["expires_real"],
                })
        return out

    # --- 2. send -----------------------------------------------------------------------

    async def send_due(self) -> int:
        claim = self._claim()
        self._sends_checked = claim.now
        rows = await self.store.claim_deliveries(claim)
        self._sends_waiting = len(rows) >= claim.limit  # a full batch: more may wait
        by_channel: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            by_channel[row["channel"]].append(row)
        await asyncio.gather(*(self._send_channel(ch, rs) for ch, rs in by_channel.items()))
        return len(rows)

    async def _send_channel(self, channel: str, rows: list[Row]) -> None:
        groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
        singles: list[list[Row]] = []
        for row in rows:
            if json.loads(row["payload"]).get("digest"):
                groups[(row["user_id"], row["address"] or "")].append(row)
            else:
                singles.append([row])
        for group in [*singles, *groups.values()]:
            await self._send_group(channel, group)

    async def _send_group(self, channel: str, group: list[Row]) -> None:
        now = self.clock.now()
        live = []
        for row in group:
            if row["expires_real"] is not None and row["expires_real"] <= now:
                await self.store.finish(row["id"], self.worker, status="dropped", last_error="expired")
            else:
                live.append(row)
        if not live:
            return
        sender = self.senders.get(channel)
        if sender is None:
            for row in live:
                await self._failed(row, "no such channel is configured", permanent=False)
            return
        message = self._message(live)
        await self.limits[channel].acquire()
        try:
            await sender.send(message)
        except Gone as exc:
            await self.store.drop_push(live[0]["address"] or "")
            for row in live:
                await self.store.finish(row["id"], self.worker, status="dropped", last_error=str(exc))
        except Permanent as exc:
            for row in live:
                await self._failed(row, str(exc), permanent=True)
        except (Transient, Exception) as exc:  # anything else is worth another try
            for row in live:
                await self._failed(row, str(exc) or type(exc).__name__, permanent=False)
        else:
            for row in live:
                await self.store.finish(row["id"], self.worker, status="sent", sent_real=self.clock.now(),
                                        attempts=row["attempts"] + 1)

    async def _failed(self, row: Row, error: str, *, permanent: bool) -> None:
        attempts = row["attempts"] + 1
        if permanent or attempts >= self.config.max_attempts:
            await self.store.finish(row["id"], self.worker, status="dead", attempts=attempts,
                                    last_error=error[:500])
            return
        delay = min(self.config.backoff * 2 ** (attempts - 1), self.config.backoff_cap)
        delay *= 1 + random.random() * 0.2
        await self.store.finish(row["id"], self.worker, attempts=attempts, last_error=error[:500],
                                next_real=self.clock.now() + delay)

    def _message(self, rows: list[Row]) -> Outgoing:
        first = rows[0]
        data = json.loads(first["payload"])
        lang = data.get("lang") or "ru"
        base = self.config.base_url.rstrip("/")
        if data.get("verify"):  # an address's verification link (NotifyService.set_email)
            text = f"{self.translate(lang, texts.VERIFY_TEXT)} {data['verify']}"
            return Outgoing(key=first["key"], address=first["address"] or "", link=data["verify"],
                            subject=self.translate(lang, texts.VERIFY_SUBJECT), text=text,
                            html=texts.email_html(text, data["verify"], data["verify"], None, ""))
        parts = [texts.words(r["kind"], json.loads(r["payload"])["fields"], lang, self.translate,
                             external=True, secret=json.loads(r["payload"])["secret"]) for r in rows]
        secret_or_many = data["secret"] or len(rows) > 1
        link = f"{base}/notifications" if secret_or_many else f"{base}/games/{first['game_id']}"
        subject = parts[0].subject if len(rows) == 1 else self.translate(lang, texts.DIGEST_SUBJECT)
        text = "\n".join(p.text for p in parts)
        unsubscribe = data.get("unsubscribe")
        open_label = self.translate(lang, texts.OPEN_GAME)
        html = ""
        if first["channel"] == "email":
            html = texts.email_html(text, link, open_label, unsubscribe,
                                    self.translate(lang, texts.UNSUBSCRIBE))
        key = first["key"] if len(rows) == 1 else "digest:" + ",".join(str(r["id"]) for r in rows)
        return Outgoing(key=key, address=first["address"] or "", subject=subject, text=text, link=link,
                        html=html, unsubscribe=unsubscribe,
                        extra={k: data[k] for k in ("p256dh", "auth") if k in data})


PRIVATE = frozenset({"inbox"})
"""Outbox fields a notification never keeps (an inbox's id may name a person)."""


class _Follows:
    """The followers of the inboxes a batch's messages were posted in, each checked
    against the message's audience (``outbound.may_see``): read once per batch, in one
    statement for all its games; the messages' events only in games with followers."""

    def __init__(self) -> None:
        self.followers: dict[tuple[str, str], list[str]] = {}
        self.events: dict[tuple[str, int], ev.Event] = {}

    @classmethod
    async def load(cls, store: NotifyStore, rows: Iterable[Row]) -> _Follows:
        found = cls()
        wanted: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            if row["kind"] == NotifyKind.FOLLOWED_INBOX.value:
                wanted[row["game_id"]].append(row)
        found.followers = await store.followers(
            (game, json.loads(r["payload"])["inbox"]) for game, items in wanted.items() for r in items)
        for game, items in wanted.items():
            seqs = [r["seq"] for r in items if (game, json.loads(r["payload"])["inbox"]) in found.followers]
            for seq, text in (await store.events_at(game, seqs)).items():
                found.events[(game, seq)] = codec.decode_event(codec.loads(text))
        return found

    def recipients(self, row: Row) -> list[str]:
        inbox = json.loads(row["payload"])["inbox"]
        event = self.events.get((row["game_id"], row["seq"]))
        if event is None:
            return []
        author = getattr(event, "author", None)
        return [u for u in self.followers.get((row["game_id"], inbox), [])
                if u != author and may_see(event, u)]


class _People:
    """Profiles, preferences and push subscriptions of a batch's recipients, read once."""

    def __init__(self, store: NotifyStore) -> None:
        self.store = store
        self.profiles: dict[str, Row] = {}
        self.prefs: dict[str, list[Row]] = defaultdict(list)
        self.pushes: dict[str, list[Row]] = defaultdict(list)
        self._known: set[str] = set()

    async def load(self, users: Iterable[str]) -> None:
        new = sorted(set(users) - self._known)
        if not new:
            return
        self._known.update(new)
        self.profiles.update(await self.store.profiles_of(new))
        for p in await self.store.prefs_of(new):
            self.prefs[p["user_id"]].append(p)
        for p in await self.store.push_of(new):
            self.pushes[p["user_id"]].append(p)


def _short(address: str | None) -> str:
    import hashlib

    return hashlib.sha256((address or "").encode()).hexdigest()[:12]


def _stale(state: GameState, payload: dict[str, Any]) -> bool:
    """A reminder whose deadline has moved or gone (a rescheduled vote, a fired key)."""
    at = payload.get("at")
    deadline = payload.get("deadline")
    if deadline is not None:
        due = state.deadlines.get(deadline)
        return due is None or due.isoformat() != at
    if at is not None and "city" in payload:  # nominations close
        city = state.cities.get(payload["city"])
        closes = city.nominations_close_at if city else None
        return closes is None or closes.isoformat() != at
    return False


def recipients(spec: KindSpec, state: GameState, payload: dict[str, Any],
               now: datetime) -> dict[str, dict[str, Any]]:
    """Whose duty it is now, as the engine answers (``duties``), for a kind found when due."""
    if spec.duties is None:
        return {}
    city = payload.get("city")
    at = payload.get("at")
    found: dict[str, dict[str, Any]] = {}
    for user in participants(state):
        held = duties(state, user, now, spec.duties)
        if spec.kind is NotifyKind.HOST_DUTY_DUE:
            held = tuple(d for d in held if d.seat in HOST_SEATS and d.required and d.deadline is not None
                         and d.deadline.isoformat() == at)
        if spec.same_city and city:
            held = tuple(d for d in held if d.scope == city)
        if spec.required_only:
            held = tuple(d for d in held if d.required)
        if not held:
            continue
        extra: dict[str, Any] = {}
        if spec.kind in (NotifyKind.VOTE_CLOSES_60, NotifyKind.VOTE_CLOSES_15):
            extra["not_voted"] = any(d.required for d in held)
        found[user] = extra
    return found
