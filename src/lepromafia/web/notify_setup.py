"""Composition of notifications (issue 13): the channels the settings configure, the
notify service the pages use, the dispatcher task (part of the composition root)."""

from __future__ import annotations

from ..service.notify.channels import EmailSender, PushSender, Sender, TelegramSender
from ..service.notify.dispatcher import DispatchConfig, Dispatcher
from ..service.notify.service import NotifyService, build
from ..service.service import GameService
from .i18n import translate
from .settings import WebSettings


def senders(settings: WebSettings) -> list[Sender]:
    found: list[Sender] = []
    if settings.smtp_url:
        found.append(EmailSender(settings.smtp_url, settings.mail_from))
    if settings.telegram_token is not None:
        found.append(TelegramSender(settings.telegram_token.get_secret_value(), settings.telegram_api))
    found.append(PushSender(settings.vapid_keys()[0], settings.vapid_subject))
    return found


def _translate(lang: str, msgid: str) -> str:
    return translate(lang, msgid)


def start_notifications(settings: WebSettings, service: GameService) -> tuple[NotifyService, Dispatcher]:
    notify, dispatcher = build(service, senders(settings), _translate,
                               DispatchConfig(base_url=settings.base_url))
    if settings.notify_dispatch:
        dispatcher.start()
    return notify, dispatcher
