"""What the web and the CLI ask of notifications: the in-app list and its count, a
person's profile and preferences, e-mail verification, one-click unsubscribe, the
Telegram link, push subscriptions, the dead letters for the Procurator, test sends.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from ...engine.inboxes import Kind, can_read
from ...store.notify import NotifyStore
from ..clock import Clock
from ..errors import ServiceError, ServiceErrorCode
from ..service import GameService
from . import texts
from .bells import Bells
from .channels import Outgoing, Sender, TelegramSender
from .dispatcher import DispatchConfig, Dispatcher
from .kinds import EXTERNAL, SPECS, Channel, NotifyKind
from .prefs import DIGESTS, Profile, parse_clock

EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,190}\.[^@\s]{1,60}$")


@dataclass(frozen=True)
class NotificationView:
    id: int
    game_id: str
    kind: str
    text: str
    secret: bool
    unread: bool
    created_real: float


@dataclass(frozen=True)
class DeadLetter:
    """A notification that could not be delivered, as the Procurator sees it: the
    recipient and kind only when the notification is not secret."""

    id: int
    channel: str
    kind: str | None
    user_id: str | None
    attempts: int
    error: str


class NotifyService:
    def __init__(self, store: NotifyStore, clock: Clock, translate: texts.Translate,
                 senders: dict[str, Sender] | None = None, base_url: str = "http://127.0.0.1:8000",
                 games: GameService | None = None) -> None:
        self.store = store
        self.games = games
        """The games (who may read an inbox one wants to follow)."""
        self.clock = clock
        self.translate = translate
        self.senders = senders or {}
        self.base_url = base_url.rstrip("/")
        self.bells = Bells(store.unread_count)
        """This process's live unread counts (the WebSockets listen here)."""
        self.dispatcher: Dispatcher | None = None
        """The dispatcher sending this service's notifications (set by ``build``)."""

    # --- the in-app list ---------------------------------------------------------------

    async def notifications(self, user_id: str, lang: str, limit: int = 100) -> list[NotificationView]:
        rows = await self.store.notifications_of(user_id, limit)
        out = []
        for r in rows:
            fields = json.loads(r["payload"])
            words = texts.words(r["kind"], fields, lang, self.translate, external=False, secret=r["secret"])
            out.append(NotificationView(r["id"], r["game_id"], r["kind"], words.text, r["secret"],
                                        r["read_real"] is None, r["created_real"]))
        return out

    async def unread(self, user_id: str) -> int:
        return await self.store.unread_count(user_id)

    async def mark_read(self, user_id: str, upto: int | None = None) -> None:
        await self.store.mark_read(user_id, self.clock.now(), upto)
        await self.bells.ring([user_id])  # his other tabs

    # --- followed inboxes -------------------------------------------------------------------

    async def following(self, user_id: str, game_id: str, inbox_id: str) -> bool:
        return inbox_id in await self.store.follows_of(user_id, game_id)

    async def follow(self, user_id: str, game_id: str, inbox_id: str, on: bool) -> None:
        """Follow (or stop following) an inbox: a notification for its new messages. Only
        an inbox one may read; a personal inbox notifies its readers anyway."""
        if on:
            assert self.games is not None
            state = (await self.games.current(game_id)).state
            inbox = state.inboxes.get(inbox_id)
            if inbox is None or inbox.kind == Kind.PERSONAL or not can_read(state, inbox_id, user_id):
                raise ServiceError(ServiceErrorCode.NOTIFY_SETTING_INVALID, field="inbox")
        await self.store.follow(user_id, game_id, inbox_id, on, self.clock.now())

    # --- profile and preferences ---------------------------------------------------------

    async def profile(self, user_id: str) -> Profile:
        rows = await self.store.profiles_of([user_id])
        if user_id not in rows:
            await self.store.put_profile(_new_profile(user_id))
            rows = await self.store.profiles_of([user_id])
        return Profile.of(user_id, rows[user_id])

    async def save_profile(self, user_id: str, *, language: str, time_zone: str, quiet_start: str,
                           quiet_end: str, digest: str) -> None:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(time_zone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ServiceError(ServiceErrorCode.NOTIFY_SETTING_INVALID, field="time_zone") from exc
        for name, value in (("quiet_start", quiet_start), ("quiet_end", quiet_end)):
            try:
                parse_clock(value or None)
            except ValueError as exc:
                raise ServiceError(ServiceErrorCode.NOTIFY_SETTING_INVALID, field=name) from exc
        if digest not in DIGESTS:
            raise ServiceError(ServiceErrorCode.NOTIFY_SETTING_INVALID, field="digest")
        await self.profile(user_id)
        await self.store.update_profile(user_id, language=language, time_zone=time_zone,
                                        quiet_start=quiet_start or None, quiet_end=quiet_end or None,
                                        digest=digest)

    async def preferences(self, user_id: str, game_id: str = "") -> dict[tuple[str, str], bool]:
        """Every (kind, channel) as it is for this game ('' = the account's defaults)."""
        from .prefs import Preferences

        prefs = Preferences(await self.store.prefs_of([user_id]))
        return {(k.value, c.value): prefs.enabled(game_id, k.value, c.value)
                for k in NotifyKind for c in EXTERNAL}

    async def save_preferences(self, user_id: str, game_id: str, enabled: set[tuple[str, str]]) -> None:
        values = {(k.value, c.value): (k.value, c.value) in enabled for k in NotifyKind for c in EXTERNAL}
        await self.store.set_prefs(user_id, game_id, values)

    # --- e-mail ---------------------------------------------------------------------------

    async def set_email(self, user_id: str, address: str, lang: str) -> None:
        """Record an address, unverified, and send it a verification link."""
        address = address.strip()
        if not EMAIL.match(address):
            raise ServiceError(ServiceErrorCode.NOTIFY_SETTING_INVALID, field="email")
        await self.profile(user_id)
        token = secrets.token_urlsafe(24)
        await self.store.update_profile(user_id, email=address, email_verified=False, email_token=token)
        link = f"{self.base_url}/notify/verify/{token}"
        await self.store.add_deliveries([{
            "key": f"verify:{user_id}:{token}", "notification_id": None, "game_id": "", "kind": "verify",
            "user_id": user_id, "channel": Channel.EMAIL.value, "address": address,
            "payload": json.dumps({"verify": link, "lang": lang, "secret": False, "fields": {}}),
            "status": "pending", "attempts": 0, "next_real": self.clock.now(), "expires_real": None,
        }])

    async def verify_email(self, token: str) -> bool:
        row = await self.store.profile_by("email_token", token)
        if row is None:
            return False
        await self.store.update_profile(row["user_id"], email_verified=True, email_token=None)
        return True

    async def unsubscribe(self, token: str) -> bool:
        """RFC 8058 one-click: e-mail off for every kind in every game."""
        row = await self.store.profile_by("unsubscribe_token", token)
        if row is None:
            return False
        values = {(k.value, Channel.EMAIL.value): False for k in NotifyKind}
        current = {(p["kind"], p["channel"]): p["enabled"]
                    for p in await self.store.prefs_of([row["user_id"]]) if p["game_id"] == ""}
        await self.store.set_prefs(row["user_id"], "", {**current, **values,
                                                        ("*", Channel.EMAIL.value): False})
        return True

    # --- Telegram ---------------------------------------------------------------------------

    async def telegram_token(self, user_id: str) -> str:
        """A one-time token: the person sends ``/start <token>`` to the bot."""
        await self.profile(user_id)
        token = secrets.token_urlsafe(12)
        await self.store.update_profile(user_id, telegram_token=token)
        return token

    async def link_telegram(self, token: str, chat: str) -> str | None:
        row = await self.store.profile_by("telegram_token", token) if token else None
        if row is None:
            return None
        await self.store.update_profile(row["user_id"], telegram_chat=chat, telegram_token=None)
        return str(row["user_id"])

    async def unlink_telegram(self, user_id: str) -> None:
        await self.store.update_profile(user_id, telegram_chat=None)

    async def poll_telegram(self, offset: int) -> int:
        """Read the bot's updates once: ``/start <token>`` links a chat. The next offset."""
        sender = self.senders.get("telegram")
        if not isinstance(sender, TelegramSender):
            return offset
        for update in await sender.updates(offset):
            offset = max(offset, int(update.get("update_id", 0)) + 1)
            message = update.get("message") or {}
            text = str(message.get("text") or "")
            chat = str((message.get("chat") or {}).get("id", ""))
            if text.startswith("/start ") and chat:
                user = await self.link_telegram(text.split(maxsplit=1)[1].strip(), chat)
                if user:
                    await sender.call("sendMessage", chat_id=chat,
                                      text=self.translate("ru", texts.TEST_TEXT))
        return offset

    # --- Web Push ------------------------------------------------------------------------------

    async def subscribe_push(self, user_id: str, endpoint: str, p256dh: str, auth: str) -> None:
        if not endpoint.startswith("https://") and not endpoint.startswith("http://127.0.0.1"):
            raise ServiceError(ServiceErrorCode.NOTIFY_SETTING_INVALID, field="endpoint")
        if not (p256dh and auth and len(p256dh) < 200 and len(auth) < 100):
            raise ServiceError(ServiceErrorCode.NOTIFY_SETTING_INVALID, field="keys")
        await self.store.add_push({"endpoint": endpoint, "user_id": user_id, "p256dh": p256dh,
                                   "auth": auth, "created_real": self.clock.now()})

    async def unsubscribe_push(self, user_id: str, endpoint: str) -> None:
        await self.store.drop_push(endpoint, user_id)

    # --- operators --------------------------------------------------------------------------------

    async def dead_letters(self, game_id: str) -> list[DeadLetter]:
        rows = await self.store.deliveries_of(game_id=game_id, status="dead")
        out = []
        for r in rows:
            secret = json.loads(r["payload"]).get("secret", True)
            out.append(DeadLetter(r["id"], r["channel"], None if secret else r["kind"],
                                  None if secret else r["user_id"], r["attempts"], r["last_error"] or ""))
        return out


async def send_test(sender: Sender, address: str, translate: texts.Translate, base_url: str,
                    lang: str = "ru") -> None:
    """Send one test message through ``sender`` now; raises the channel's error if it cannot."""
    text = translate(lang, texts.TEST_TEXT)
    subject = translate(lang, texts.SUBJECT).format(title="test")
    try:
        await sender.send(Outgoing(key=f"test:{secrets.token_hex(8)}", address=address, subject=subject,
                                   text=text, link=base_url,
                                   html=texts.email_html(text, base_url, base_url, None, "")))
    finally:
        await close_sender(sender)


async def close_sender(sender: Sender) -> None:
    """End a channel's open session, if it keeps one (e-mail)."""
    close = getattr(sender, "close", None)
    if close is not None:
        await close()


def _new_profile(user_id: str) -> dict[str, Any]:
    return {"user_id": user_id, "language": "ru", "time_zone": "Europe/Moscow", "quiet_start": None,
            "quiet_end": None, "digest": "off", "email": None, "email_verified": False,
            "email_token": None, "unsubscribe_token": secrets.token_urlsafe(24),
            "telegram_chat": None, "telegram_token": None}


KIND_LABELS = {k.value: SPECS[k].label for k in NotifyKind}


def build(games: GameService, senders: list[Sender], translate: texts.Translate,
          config: DispatchConfig) -> tuple[NotifyService, Dispatcher]:
    """The notify service and its dispatcher over one game service's store."""
    store = NotifyStore(games.store)
    notify = NotifyService(store, games.clock, translate, {s.name: s for s in senders}, config.base_url,
                           games)
    notify.dispatcher = Dispatcher(games, store, senders, translate, config, clock=games.clock,
                                   telegram=notify, on_notes=notify.bells.ring)
    return notify, notify.dispatcher
