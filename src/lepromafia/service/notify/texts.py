"""A notification's words, in the recipient's language, for one channel.

In the app a person reads the sentence of his notification's kind. Outside it (e-mail,
push, Telegram: third parties and lock screens read them) a secret notification says only
``EXTERNAL_SECRET`` — the game's title and that something awaits there. Texts name no
inbox, role, target, check answer or person in any channel: they point to the game.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...engine.errors import N_
from .kinds import EXTERNAL_SECRET, NOT_VOTED, SPECS, NotifyKind

Translate = Callable[[str, str], str]
"""(language, English msgid) -> the sentence in that language."""

SUBJECT = N_("Lepromafia: «{title}»")
OPEN_GAME = N_("Open the game")
UNSUBSCRIBE = N_("Unsubscribe from these e-mails")
DIGEST_SUBJECT = N_("Lepromafia: what happened in your games")
TEST_TEXT = N_("A test message from Lepromafia: this channel works.")
VERIFY_SUBJECT = N_("Lepromafia: confirm your e-mail address")
VERIFY_TEXT = N_("Open this link to receive Lepromafia notifications at this address:")


@dataclass(frozen=True)
class Words:
    subject: str
    text: str


def _fill(template: str, fields: dict[str, Any]) -> str:
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template


def words(kind: str, fields: dict[str, Any], lang: str, translate: Translate, *,
          external: bool, secret: bool) -> Words:
    """The subject and sentence of one notification."""
    title = str(fields.get("title", ""))
    subject = _fill(translate(lang, SUBJECT), {"title": title})
    if external and secret:
        return Words(subject, _fill(translate(lang, EXTERNAL_SECRET), {"title": title}))
    spec = SPECS[NotifyKind(kind)]
    text = _fill(translate(lang, spec.text), fields)
    if fields.get("not_voted"):
        text = f"{text} {translate(lang, NOT_VOTED)}"
    return Words(subject, text)


def email_html(text: str, link: str, link_label: str, unsubscribe: str | None,
               unsubscribe_label: str) -> str:
    foot = (f'<p style="font-size:12px;color:#666"><a href="{html.escape(unsubscribe)}">'
            f"{html.escape(unsubscribe_label)}</a></p>") if unsubscribe else ""
    return ("<!doctype html><html><body style=\"font-family:sans-serif\">"
            f"<p>{html.escape(text)}</p><p><a href=\"{html.escape(link)}\">{html.escape(link_label)}</a></p>"
            f"{foot}</body></html>")
