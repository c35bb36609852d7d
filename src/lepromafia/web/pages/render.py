"""Jinja2 rendering for the pages: one environment, the shared context, time helpers."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from ...engine.calendar import MOSCOW
from ...service.views import GameClock
from ..deps import csrf_token
from ..i18n import LANGUAGES, N_, language_name, ntranslate, translate
from .item_cache import thread_item
from .terms import setting_value, term

WEB_DIR = Path(__file__).resolve().parent.parent
TEMPLATES = WEB_DIR / "templates"
STATIC = WEB_DIR / "static"


def _asset_version() -> str:
    """A digest of our own static files (not the vendored ones), so a changed stylesheet or
    script gets a new URL and browsers never keep a stale copy; nothing to bump by hand."""
    digest = hashlib.sha256()
    for path in sorted(STATIC.rglob("*")):
        if path.is_file() and "vendor" not in path.relative_to(STATIC).parts:
            digest.update(path.relative_to(STATIC).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


ASSET_VERSION = _asset_version()

OFFICE_TITLES = {
    "procurator": N_("Procurator's console"),
    "tribune": N_("Tribune's console"),
    "arbiter": N_("Arbiter's console"),
    "consigliere": N_("Consigliere's console"),
}

LANGUAGE_LINKS = tuple((code, code.upper(), language_name(code)) for code in LANGUAGES)
"""The language switcher: one link per catalog found (code, short label, own name)."""

env = Environment(
    loader=FileSystemLoader(str(TEMPLATES)),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
    extensions=["jinja2.ext.i18n"],
    auto_reload=False,
)
"""A template is loaded once per process (``auto_reload`` off: no ``stat`` of the file at
every ``get_template`` and include; the templates ship with the code, and a new release
restarts the process).

``{% trans %}`` blocks and ``_()`` calls read the per-request ``gettext``/``ngettext``/``_``
put in the context by ``render`` (the shared environment holds no language)."""
env.globals["thread_item"] = thread_item  # one message of a thread, cached (item_cache.py)


def local(dt: datetime | None) -> str:
    """A game moment as Moscow wall-clock time."""
    if dt is None:
        return ""
    return dt.astimezone(MOSCOW).strftime("%d.%m %H:%M")


@dataclass(frozen=True)
class Due:
    iso: str
    seconds: float
    """Game seconds left when the page was rendered (the browser counts down from there,
    so a skewed client clock does not matter)."""
    scale: float
    local: str
    left: str


def remaining(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def due_of(clock: GameClock | None, now_game: datetime | None, due: datetime) -> Due:
    """A deadline for the browser: its real moment (the game may run faster than life)."""
    if clock is None or now_game is None:
        return Due(due.isoformat(), 0.0, 1.0, local(due), local(due))
    left = max(0.0, (due - now_game).total_seconds())
    return Due(due.isoformat(), left, clock.scale, local(due), remaining(left))


def rule_link(lang: str, rule: str, anchor: str | None = None) -> Markup:
    """A rule reference as people read it: «правило EXEC-4», a link to the rules page (a
    bare rule id never stands alone in running text, m5)."""
    words = translate(lang, "rule {rule}", rule=rule)
    return Markup('<a class="rule-id" href="/rules#{0}">{1}</a>').format(escape(anchor or rule), words)


def display_name(request: Request, user: object) -> str | None:
    """The name the header greets the viewer by: the display name he registered with (any
    script, Cyrillic too, m6), not his login; only for the user the page is rendered for."""
    found = getattr(request.state, "user", None)
    name = getattr(found, "display_name", None)
    if found is None or not name or getattr(found, "user_id", None) != user:
        return None
    return str(name)


def render(request: Request, template: str, context: dict[str, Any], *, status: int = 200,
           lang: str = "ru") -> HTMLResponse:
    clock: GameClock | None = context.get("game_clock")
    now_game: datetime | None = context.get("now_game")

    def _(msgid: str, **fields: Any) -> str:
        return translate(lang, msgid, **fields)

    def ngettext(singular: str, plural: str, n: object, **fields: Any) -> str:
        return ntranslate(lang, singular, plural, n, **fields)

    base = {
        "request": request,
        "request_path": request.url.path,
        "lang": lang,
        "_": _,
        "gettext": _,
        "ngettext": ngettext,
        "term": lambda group, key: term(lang, group, key),
        "rule_link": lambda rule, anchor=None: rule_link(lang, rule, anchor),
        "setting_value": lambda value: setting_value(lang, value),
        "languages": LANGUAGE_LINKS,
        "local": local,
        "clock": lambda due: due_of(clock, now_game, due),
        "csrf_token": lambda: csrf_token(request),
        "asset_version": ASSET_VERSION,
        "office_titles": OFFICE_TITLES,
        "user": None,
        "game": None,
        "seat": None,
        "live_game": None,
        "error": None,
        "flash": None,
    }
    base.update(context)
    base["me_name"] = display_name(request, base["user"])
    base["csrf"] = csrf_token(request)
    html = env.get_template(template).render(base)
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})
