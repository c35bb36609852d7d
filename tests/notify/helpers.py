"""Shared set-up for notification tests: a bot-played game through the service with a
manual clock, a dispatcher stepped by hand, a real SMTP server (aiosmtpd), a recording
channel, profiles with verified addresses."""

from __future__ import annotations

import json
import random
import secrets
import socket
from dataclasses import dataclass, field
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from lepromafia.bots.strategy.service import StrategyServiceBots
from lepromafia.service.clock import ManualClock
from lepromafia.service.notify.channels import Outgoing
from lepromafia.service.notify.dispatcher import DispatchConfig, Dispatcher
from lepromafia.service.service import GameService
from lepromafia.store.notify import NotifyStore
from lepromafia.web.i18n import translate

from ..service.helpers import at, default_cast, manual_clock, setup_game

BASE = "http://notify.test"


def tr(lang: str, msgid: str) -> str:
    return translate(lang, msgid)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Inbox:
    """An aiosmtpd handler keeping every message it receives."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))  # type: ignore[arg-type]
        return "250 OK"


class SmtpServer:
    def __init__(self) -> None:
        self.inbox = Inbox()
        self.port = free_port()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


@dataclass
class Recorder:
    """A channel that keeps what it is asked to send (for checks of every text)."""

    name: str
    sent: list[Outgoing] = field(default_factory=list)

    async def send(self, message: Outgoing) -> None:
        self.sent.append(message)


async def profile(store: NotifyStore, user: str, *, lang: str = "ru", email: str | None = None,
                  telegram: str | None = None, **extra: Any) -> str:
    token = secrets.token_urlsafe(16)
    await store.put_profile({"user_id": user, "language": lang, "time_zone": "Europe/Moscow",
                             "quiet_start": None, "quiet_end": None, "digest": "off", "email": email,
                             "email_verified": email is not None, "email_token": None,
                             "unsubscribe_token": token, "telegram_chat": telegram,
                             "telegram_token": None, **extra})
    return token


async def bot_game(svc: GameService, game_id: str = "g", cities: int = 2, population: int = 8,
                   seed: int = 3, **settings: Any) -> StrategyServiceBots:
    await setup_game(svc, game_id, default_cast(cities, population),
                     settings={"supreme_court_mode": "never", **settings})
    return StrategyServiceBots(svc, game_id, random.Random(seed))


async def play(svc: GameService, clock: ManualClock, bots: StrategyServiceBots, dispatcher: Dispatcher,
               hours: float, step_minutes: int = 15, game_id: str = "g") -> None:
    for _ in range(int(hours * 60 / step_minutes)):
        clock.advance(timedelta(minutes=step_minutes))
        await svc.sweep()
        await bots.step(await svc.state(game_id))
        while await dispatcher.step():
            pass


def dispatcher(svc: GameService, store: NotifyStore, senders: list[Any], **config: Any) -> Dispatcher:
    return Dispatcher(svc, store, senders, tr, DispatchConfig(base_url=BASE, **config), clock=svc.clock)


def payload(row: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(row["payload"])
    return data


__all__ = ["at", "manual_clock"]
