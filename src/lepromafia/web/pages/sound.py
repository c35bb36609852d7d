
"""The Sound Library pages (SOUND): a city's entries with a player, recording and
publishing, and the request flows (ROLE-CIT-5, SOUND-CONF/INT/LW/SEANCE).

The upload itself goes to the media API (``POST /api/games/{g}/sound/media``, multipart
with the page's CSRF token, from ``static/sound.js``): the server measures the file and
answers with its media id and duration; publishing is a plain form to this router. Who may
hear an entry is SOUND-2 (``service.media.library``); who may do what is the engine's.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ...engine import commands_host as hc
from ...engine import events as ev
from ...engine import events_host as hev
from ...engine.commands import Command
from ...engine.decision import DECISIONS
from ...engine.errors import CodedError
from ...engine.records import RequestState, SoundKind
from ...engine.rules.sound import library_audience
from ...engine.state import DeathCause, GameState, Stage
from ...service.media import MediaInfo, library, may_upload, requests_for
from ...service.outbound import admits, visible
from ..api.games import scoped
from ..api.sound import media_library
from ..deps import CsrfChecked, CurrentUser, Lang, RequireUser, WebDep, csrf_token
from ..errors import describe
from ..i18n import N_
from .common import GameCtx, load_game, page_events, redirect
from .forms import Form, FormError, flag, text
from .host_decision_forms import build as decision_command

router = APIRouter()

KINDS = tuple(k.value for k in SoundKind)
KIND_TITLES = {
    "confrontation": N_("Confrontations"),
    "interrogation": N_("Interrogations"),
    "last_word": N_("Last Words"),
    "seance": N_("Séances"),
}
KIND_NAMES = {
    "confrontation": N_("confrontation"),
    "interrogation": N_("interrogation"),
    "last_word": N_("last word"),
    "seance": N_("séance"),
}

def _form(raw: Any) -> Form:
    out: Form = {}
    for key in raw:
        values = [v for v in raw.getlist(key) if isinstance(v, str)]
        out[key] = values if len(values) > 1 else (values[0] if values else "")
    return out


# --- reading -------------------------------------------------------------------------------


async def _timeline(web: Any, game: GameCtx) -> list[tuple[datetime, str, int]]:
    """The moments days and nights began (to date entries)."""
    out = []
    for _s, event in visible(await page_events(web, game), None, (ev.DayStarted, ev.NightStarted)):
        if isinstance(event, ev.DayStarted):
            out.append((event.at, N_("Day {n}"), event.day))
        elif isinstance(event, ev.NightStarted):
            out.append((event.at, N_("Night {n}"), event.night))
    return out


async def _notes(web: Any, game: GameCtx) -> dict[int, str]:
    """Each entry's notes, as published with it (shown only beside the entries
    ``library`` lets the viewer see)."""
    return {e.entry: e.notes for _s, e in await page_events(web, game)
            if isinstance(e, hev.SoundEntryPublished) and e.notes}


def when_label(moments: list[tuple[datetime, str, int]], at: datetime) -> tuple[str, int]:
    found: tuple[str, int] = (N_("Before the game"), 0)
    for started, label, n in moments:
        if started <= at:
            found = (label, n)
    return found


def visible_cities(state: GameState, viewer: str | None) -> list[dict[str, Any]]:
    """Each city, and whether its library is open to the viewer (SOUND-2)."""
    out = []
    for name in state.cities:
        out.append({"name": name, "open": admits(library_audience(state, name), viewer)})
    return out


def upload_kinds(state: GameState, user: str | None) -> list[str]:
    if user is None:
        return []
    return [k.value for k in SoundKind if may_upload(state, user, k)]


def seance_subjects(state: GameState) -> list[str]:
    """SOUND-SEANCE-1: Cemetery inhabitants (suicides excepted)."""
    return [u for u, r in state.residents.items() if not r.alive and r.cause is not DeathCause.SUICIDE]


def _request_row(state: GameState, row: dict[str, Any]) -> dict[str, Any]:
    req = next(r for r in state.records.sound_requests if r.number == row["request"])
    return row | {"requester": req.requester}


async def library_context(web: Any, game: GameCtx, uid: str | None, city: str | None,
                          kind: str | None, draft: MediaInfo | None) -> dict[str, Any]:
    s = game.state
    cities = visible_cities(s, uid)
    if city not in s.cities:
        own = s.residents.get(uid or "")
        city = own.city if own else next((c["name"] for c in cities if c["open"]), None)
    moments = await _timeline(web, game)
    notes = await _notes(web, game)
    entries = library(s, uid, city) if city else []
    if kind in KINDS:
        entries = [e for e in entries if e["kind"] == kind]
    for entry in entries:
        label, n = when_label(moments, datetime.fromisoformat(entry["at"]))
        entry.update(when=label, when_n=n, notes=notes.get(entry["entry"], ""),
                     play=f"/api/games/{game.id}/sound/media/{entry['media']}" if entry["media"] else None,
                     at_dt=datetime.fromisoformat(entry["at"]))
    groups = [(k, [e for e in entries if e["kind"] == k]) for k in KINDS if kind in (None, "", k)]
    mine = requests_for(s, uid) if uid else []
    mine = [_request_row(s, r) for r in mine]
    running = s.stage is Stage.RUNNING
    me = s.residents.get(uid or "")
    living = sorted(u for u, r in s.residents.items() if r.alive and u != uid)
    held_accepted = [r for r in mine if r["role"] == "handler" and r["state"] == RequestState.ACCEPTED.value]
    return {
        "city": city,
        "kind": kind if kind in KINDS else "",
        "cities": cities,
        "city_open": any(c["open"] for c in cities if c["name"] == city),
        "groups": groups,
        "count": len(entries),
        "kinds": KINDS,
        "kind_titles": KIND_TITLES,
        "kind_names": KIND_NAMES,
        "requests_mine": [r for r in mine if r["role"] == "requester"],
        "requests_held": [r for r in mine if r["role"] == "handler"],
        "held_accepted": held_accepted,
        "can_upload": running and bool(upload_kinds(s, uid)),
        "upload_kinds": upload_kinds(s, uid),
        "can_request": running and me is not None,
        "me_alive": bool(me and me.alive),
        "living": living,
        "seance_subjects": seance_subjects(s),
        "limit_minutes": s.settings.confrontation_max_minutes,
        "draft": draft.public() | {"play": f"/api/games/{game.id}/sound/media/{draft.media_id}"}
        if draft else None,
        "visibility": s.settings.sound_library_visibility,
    }


@router.get("/games/{game_id}/sound", include_in_schema=False)
async def sound_library(request: Request, game_id: str, web: WebDep, user: CurrentUser, lang: Lang,
                        city: str | None = None, kind: str | None = None,
                        media: str | None = None) -> Response:
    from .game import game_page

    game = await load_game(web, game_id)
    uid = user.user_id if user else None
    draft = media_library(request).info(media) if media and uid else None
    if draft is not None and not draft.uploaded(game_id, uid):
        draft = None  # an unpublished file is its uploader's alone
    ctx = await library_context(web, game, uid, city, kind, draft)
    return await game_page(request, web, user, lang, game, "sound", "pages/sound.html", **ctx)


@router.get("/games/{game_id}/sound/token", include_in_schema=False)
async def fresh_token(request: Request, game_id: str, user: RequireUser) -> JSONResponse:
    """A new one-time CSRF token for the next upload (each upload spends one)."""
    return JSONResponse({"token": csrf_token(request)}, headers={"Cache-Control": "no-store"})


# --- writing --------------------------------------------------------------------------------


async def _run(request: Request, web: Any, user: Any, lang: str, game_id: str, ok: str,
               build: Any) -> Response:
    form = _form(await request.form())
    back = f"/games/{game_id}/sound"
    city = form.get("city")
    if isinstance(city, str) and city:
        from urllib.parse import quote

        back += f"?city={quote(city)}"
    try:
        game = await load_game(web, game_id)
        command = build(form, user.user_id, game.state)
        command_id = scoped(user.user_id, str(form.get("command_id") or secrets.token_hex(8)))
        await web.service.execute(game_id, command, command_id)
    except CodedError as exc:
        return redirect(back, error=describe(exc, lang), form=form, action=request.url.path, lang=lang)
    return redirect(back, ok=ok, lang=lang)


@router.post("/games/{game_id}/sound/publish", include_in_schema=False, dependencies=[CsrfChecked])
async def publish(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    """SOUND-3: publish an uploaded recording with its measured duration (the engine checks
    the limit and who may publish what)."""
    media = media_library(request)

    def build(form: Form, actor: str, state: GameState) -> hc.PublishSoundEntry:
        raw = text(form, "request", required=False, limit=12)
        participant = text(form, "participant", required=False, limit=64)
        outcome = text(form, "outcome", required=False, limit=20) or "recorded"
        return media.publish_command(
            state, game_id, actor, kind=text(form, "kind", limit=20),
            media=text(form, "media", required=False, limit=64),
            request=int(raw) if raw.isdigit() else None,
            participants=(participant,) if participant else (), outcome=outcome,
            notes=text(form, "notes", required=False, limit=1000))

    return await _run(request, web, user, lang, game_id, N_("Entry published."), build)


@router.post("/games/{game_id}/sound/request", include_in_schema=False, dependencies=[CsrfChecked])
async def ask(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    """ROLE-CIT-5, SOUND-LW-2, SOUND-SEANCE-1: a citizen's (or the dead's) request."""

    def build(form: Form, actor: str, state: GameState) -> hc.RequestSound:
        kind = text(form, "kind", limit=20)
        if kind not in KINDS:
            raise FormError("kind")
        return hc.RequestSound(actor=actor, kind=kind,
                               target=text(form, "target", required=False, limit=64) or None,
                               to_procurator=flag(form, "to_procurator"),
                               form=text(form, "form", required=False, limit=20) or None,
                               note=text(form, "note", required=False, limit=1000))

    return await _run(request, web, user, lang, game_id, N_("Request sent."), build)


@router.post("/games/{game_id}/sound/forward", include_in_schema=False, dependencies=[CsrfChecked])
async def forward(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    """ROLE-CIT-5: the Tribune passes a request to the Procurator."""

    def build(form: Form, actor: str, state: GameState) -> Command:
        return decision_command(DECISIONS["forward_sound_request"], form, actor)

    return await _run(request, web, user, lang, game_id, N_("Done."), build)


@router.post("/games/{game_id}/sound/answer", include_in_schema=False, dependencies=[CsrfChecked])
async def answer(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    """The holder accepts (with a time) or declines with a reason (SOUND-LW-5: not a Last
    Word asked for while the voting inbox lived)."""

    def build(form: Form, actor: str, state: GameState) -> Command:
        return decision_command(DECISIONS["answer_sound_request"], form, actor)

    return await _run(request, web, user, lang, game_id, N_("Done."), build)
