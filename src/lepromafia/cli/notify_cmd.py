"""``lepromafia notify test --email ADDRESS`` / ``--telegram CHAT``: one test message
through the configured channel (LEPROMAFIA_SMTP_URL, LEPROMAFIA_MAIL_FROM,
LEPROMAFIA_TELEGRAM_TOKEN, LEPROMAFIA_TELEGRAM_API); exit 1 with the reason if it cannot."""

from __future__ import annotations

import asyncio

import typer

from ..service.notify.channels import Permanent, Transient
from ..service.notify.service import send_test
from ..web.i18n import translate
from ..web.notify_setup import senders
from ..web.settings import WebSettings

notify_app = typer.Typer(no_args_is_help=True, help="Notifications: test the channels.")


@notify_app.command("test")
def notify_test(
    email: str | None = typer.Option(None, "--email", help="send a test e-mail to this address"),
    telegram: str | None = typer.Option(None, "--telegram", help="send a test message to this chat id"),
    lang: str = typer.Option("ru", help="ru | en"),
) -> None:
    """Send a test message; exits non-zero with a clear error if it cannot be sent."""
    if not email and not telegram:
        raise typer.BadParameter("give --email ADDRESS or --telegram CHAT")
    settings = WebSettings()
    try:
        configured = {s.name: s for s in senders(settings)}
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    for channel, address, variable in (("email", email, "LEPROMAFIA_SMTP_URL"),
                                       ("telegram", telegram, "LEPROMAFIA_TELEGRAM_TOKEN")):
        if not address:
            continue
        sender = configured.get(channel)
        if sender is None:
            typer.echo(f"error: {channel} is not configured: set {variable}", err=True)
            raise typer.Exit(2)
        try:
            asyncio.run(send_test(sender, address, translate, settings.base_url, lang))
        except (Transient, Permanent) as exc:
            typer.echo(f"error: the {channel} message to {address} was not sent: {exc}", err=True)
            raise typer.Exit(1) from exc
        typer.echo(f"sent a test {channel} message to {address}")
