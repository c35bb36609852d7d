# ruff: noqa: E501 - translation tables read best one entry per line
"""The archive page of a finished game (§9.4, RANDOM-5): results and roles, the deal check,
every inbox with its status for the viewer and its controls (read, consent, request),
every vote with its time, the Court's decisions, the public timeline, the JSON export.

All data comes from ``service.archive.Archives``; reading an inbox goes through
``engine.archive.can_open`` there. Consents and requests are engine commands.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from ...engine.errors import CodedError
from ...service.archive import ArchiveError, Archives
from ...service.posts import render as render_post
from ...service.posts import resident_set
from ..api.archive import archives
from ..api.games import scoped
from ..deps import CsrfChecked, CurrentUser, Lang, RequireUser, WebDep
from ..errors import describe
from ..i18n import N_, translate
from .common import load_game, redirect
from .forms import flag, text
from .sound import KIND_NAMES, _form
from .terms import term
from .timeline import sentence

router = APIRouter()

def moment(raw: Any) -> datetime | None:
    if isinstance(raw, datetime):
        return raw
    try:
        return datetime.fromisoformat(str(raw))
    except ValueError:
        return None


DEAL_NOTARY_TITLES = {"RANDOM-2": N_("the deal's sealed lists"),
                      "RESTORE-3": N_("a restoration's sealed list")}
"""The notary inboxes the deal opens (``engine.archive.DEAL_NOTARIES``), by what they hold."""


def inbox_title(lang: str, row: dict[str, Any]) -> str:
    """The inbox's name in words. Never the organizer of a secret inbox (the service leaves
    ``subject`` out for it), nor the Consigliere behind the deal's notary."""
    parts = [term(lang, "kind", row["kind"])]
    if row["kind"] == "secret":
        parts.append(row["title"] or "")
    elif row["kind"] == "notary" and row["title"] in DEAL_NOTARY_TITLES:
        parts.append(translate(lang, DEAL_NOTARY_TITLES[row["title"]]))
    else:
        parts += [row["city"] or "", row["subject"] or "", row["title"] if row["kind"] == "notary" else ""]
    return " · ".join(p for p in parts if p)


def _rows(data: dict[str, Any], lang: str) -> dict[str, Any]:
    for row in data["inboxes"]:
        row["label"] = inbox_title(lang, row)
        row["read"] = f"/games/{data['game_id']}/archive/inbox?inbox={quote(row['inbox'], safe='')}"
    for entry in data["sound_library"]:
        entry["at_dt"] = moment(entry["at"])
        entry["play"] = (f"/api/games/{data['game_id']}/sound/media/{entry['media']}"
                         if entry["media"] else None)
    data["ended_at_dt"] = moment(data["ended_at"]) if data["ended_at"] else None
    if data["reveal"]:
        data["reveal"]["rows"] = sorted(data["reveal"]["factions"].items())
    return data


def timeline(data: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """The public record as sentences; the bookkeeping events (deadlines, set-up) have none
    and are left to the JSON export."""
    out = []
    for row in data["timeline"]:
        said = sentence(lang, row)
        if said:
            out.append({"type": row["type"], "at_dt": moment(row.get("at")), "sentence": said})
    return out


@router.get("/games/{game_id}/archive", include_in_schema=False)
async def archive_page(request: Request, game_id: str, web: WebDep, user: CurrentUser, lang: Lang) -> Response:
    from .game import game_page

    game = await load_game(web, game_id)
    uid = user.user_id if user else None
    found: Archives = archives(request, web)
    try:
        data = _rows(await found.page(game_id, uid), lang)
        told = await found.story(game_id, uid)
    except ArchiveError as exc:
        return await game_page(request, web, user, lang, game, "archive", "pages/archive.html",
                               archive=None, error=describe(exc, lang), status=exc.status)
    return await game_page(request, web, user, lang, game, "archive", "pages/archive.html",
                           archive=data, story=told, timeline=timeline(data, lang), kind_names=KIND_NAMES,
                           export=f"/api/games/{game_id}/archive/export")


@router.get("/games/{game_id}/archive/inbox", include_in_schema=False)
async def archive_inbox(request: Request, game_id: str, inbox: str, web: WebDep, user: CurrentUser,
                        lang: Lang) -> Response:
    from .game import game_page

    game = await load_game(web, game_id)
    uid = user.user_id if user else None
    found = archives(request, web)
    try:
        data = await found.inbox(game_id, inbox, uid)
    except ArchiveError as exc:
        return await game_page(request, web, user, lang, game, "archive", "pages/archive_inbox.html",
                               opened=None, error=describe(exc, lang), status=exc.status)
    data["label"] = inbox_title(lang, data)
    residents, spoiler = resident_set(game.state), translate(lang, "Spoiler")
    for m in data["messages"]:
        m["at_dt"] = moment(m["at"])
        m["html"] = Markup(render_post(m["text"], residents, spoiler))  # noqa: S704 - nh3-cleaned
        m["edited_dt"] = moment(m["edited_at"]) if m.get("edited_at") else None
        for v in m["versions"]:
            v["html"] = Markup(render_post(v["text"], residents, spoiler))  # noqa: S704
            v["at_dt"] = moment(v["at"])
    # the deal's notary holds the sealed lists, not messages (RANDOM-2, RANDOM-5)
    told = await found.story(game_id, uid) if data["kind"] == "notary" and data["title"] == "RANDOM-2" else None
    return await game_page(request, web, user, lang, game, "archive", "pages/archive_inbox.html",
                           opened=data, story=told)


async def _act(request: Request, web: Any, user: Any, lang: str, game_id: str, consent: bool | None) -> Response:
    form = _form(await request.form())
    back = f"/games/{game_id}/archive"
    try:
        inbox = text(form, "inbox", limit=200)
        command_id = scoped(user.user_id, str(form.get("command_id") or secrets.token_hex(8)))
        found = archives(request, web)
        if consent is None:
            await found.request(game_id, user.user_id, inbox, command_id)
        else:
            await found.consent(game_id, user.user_id, inbox, consent, command_id)
    except CodedError as exc:
        return redirect(back, error=describe(exc, lang), form=form, action=request.url.path, lang=lang)
    return redirect(back, ok=N_("Access granted.") if consent is None else N_("Consent recorded."), lang=lang)


@router.post("/games/{game_id}/archive/consent", include_in_schema=False, dependencies=[CsrfChecked])
async def give_consent(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    """INBOX-PERS-3, INBOX-SECRET-3: give or refuse consent for one inbox."""
    form = _form(await request.form())
    return await _act(request, web, user, lang, game_id, flag(form, "consent"))


@router.post("/games/{game_id}/archive/request", include_in_schema=False, dependencies=[CsrfChecked])
async def ask_access(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    """AMB-33: open an inbox that opens to whoever asks."""
    return await _act(request, web, user, lang, game_id, None)
