"""The in-app help: the host's handbook (issue 12) at ``/help/hosting``.

The handbook is long prose, so each language has its own Markdown file
(``web/help/hosting.<lang>.md``; ``docs/hosting.md`` links to the English one) rather than
one msgid per paragraph. A language without its own file reads the English one. Rule ids
are links to the rules page (``rules.rule_href``)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markdown_it import MarkdownIt
from markupsafe import Markup

from ..deps import CurrentUser, Lang
from .public import page

router = APIRouter()

HELP_DIR = Path(__file__).resolve().parent.parent / "help"
TOPICS = ("hosting",)


def handbook_path(topic: str, lang: str) -> Path:
    own = HELP_DIR / f"{topic}.{lang}.md"
    return own if own.is_file() else HELP_DIR / f"{topic}.en.md"


@cache
def rendered(path: Path) -> Markup:
    """Our own Markdown, rendered once; raw HTML in it is not passed through."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return Markup(md.render(path.read_text(encoding="utf-8")))  # noqa: S704 - our file, html off


@router.get("/help/hosting", include_in_schema=False)
async def hosting(request: Request, user: CurrentUser, lang: Lang) -> Response:
    return page(request, "pages/help.html", lang, user, body=rendered(handbook_path("hosting", lang)))
