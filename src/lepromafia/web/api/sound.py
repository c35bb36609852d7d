"""The Sound Library over HTTP: upload, playback with ranges, the library, requests, publishing.

``router`` (prefix ``/api/games/{game_id}/sound``) is included by the app next to the
JSON API. It carries its own guard: a state-changing call needs a bearer token, a JSON
body (as the API guard asks) or, for the multipart upload from a page, the form's CSRF
token (``X-CSRF-Token`` header or ``csrf_token`` field).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ...service.media import (
    MediaError,
    MediaErrorCode,
    MediaLibrary,
    library,
    may_play,
    parse_range,
    requests_for,
)
from ..deps import CurrentUser, RequireUser, WebDep, verify_csrf
from ..errors import WebError, WebErrorCode
from .games import ack_out, scoped
from .models import COMMAND_ID, ERRORS, MAX_INT, Body, ErrorOut


async def media_guard(request: Request) -> None:
    """The API's CSRF defence, extended to the multipart upload of a page's form."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    if request.headers.get("authorization", "").lower().startswith("bearer "):
        return
    ctype = request.headers.get("content-type", "")
    if ctype.startswith("application/json"):
        return
    if ctype.startswith("multipart/form-data"):
        await verify_csrf(request)
        return
    raise WebError(WebErrorCode.CSRF_INVALID)


router = APIRouter(prefix="/api/games/{game_id}/sound", tags=["sound"],
                   dependencies=[Depends(media_guard)],
                   responses=ERRORS | {415: {"model": ErrorOut}, 416: {"model": ErrorOut}})

AUDIO_HEADERS = {
    "Accept-Ranges": "bytes",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, max-age=3600",
}


def media_library(request: Request) -> MediaLibrary:
    """The app's media library (``app.state.media``), made from the environment once."""
    found: MediaLibrary | None = getattr(request.app.state, "media", None)
    if found is None:
        found = MediaLibrary.from_env()
        request.app.state.media = found
    return found


@router.post("/media", status_code=201)
async def upload(game_id: str, request: Request, user: RequireUser, web: WebDep,
                 file: Annotated[UploadFile, File()], kind: Annotated[str, Form()]) -> Any:
    """Upload a recording (Opus/Ogg, WebM, MP3, M4A, WAV). The server reads its real
    duration and refuses one over the kind's limit (SOUND-CONF-4, SOUND-LW-4) or not audio.
    Returns the media id and the measured duration to publish it with."""
    state = await web.service.state(game_id)
    media = media_library(request)
    now = datetime.fromtimestamp(web.now(), UTC)
    try:
        info = await run_in_threadpool(media.ingest, file.file, state=state, game=game_id,
                                       user=user.user_id, kind=kind, now=now)
    finally:
        await file.close()
    return JSONResponse(info.public(), status_code=201)


@router.get("/media/{media_id}")
async def play(game_id: str, media_id: str, request: Request, user: CurrentUser, web: WebDep) -> Response:
    """Stream a recording to whoever may hear it (SOUND-2), with HTTP range requests."""
    state = await web.service.state(game_id)
    media = media_library(request)
    viewer = user.user_id if user else None
    info = media.info(media_id)
    if info is None or not may_play(state, game_id, info, viewer):
        raise MediaError(MediaErrorCode.NOT_FOUND, media=media_id[:80])
    size = media.blobs.size(media_id)
    try:
        wanted = parse_range(request.headers.get("range"), size)
    except MediaError as exc:
        exc.headers = {"Content-Range": f"bytes */{size}"}  # RFC 9110 §15.5.17
        raise
    start, end = wanted if wanted else (0, size - 1)
    headers = AUDIO_HEADERS | {"Content-Length": str(end - start + 1)}
    if wanted:
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    return StreamingResponse(media.blobs.read(media_id, start, end), status_code=206 if wanted else 200,
                             media_type=info.content_type, headers=headers)


@router.get("/library")
async def city_library(game_id: str, user: CurrentUser, web: WebDep,
                       city: str | None = None) -> list[dict[str, Any]]:
    """The entries the viewer may see (SOUND-2), newest first, each with its playback link."""
    state = await web.service.state(game_id)
    entries = library(state, user.user_id if user else None, city)
    for entry in entries:
        entry["play"] = f"/api/games/{game_id}/sound/media/{entry['media']}" if entry["media"] else None
    return entries


@router.get("/requests")
async def my_requests(game_id: str, user: RequireUser, web: WebDep) -> list[dict[str, Any]]:
    """The viewer's own requests and their states; and those he holds as a host."""
    return requests_for(await web.service.state(game_id), user.user_id)


class PublishBody(Body):
    kind: str = Field(max_length=20)
    media: str = Field(default="", max_length=64)
    request: int | None = Field(default=None, ge=0, le=MAX_INT)
    participants: list[str] = Field(default_factory=list, max_length=4)
    outcome: str = Field(default="recorded", max_length=20)
    notes: str = Field(default="", max_length=1000)
    command_id: str = COMMAND_ID


@router.post("/entries")
async def publish(game_id: str, body: PublishBody, request: Request, user: RequireUser,
                  web: WebDep) -> Any:
    """Publish an entry with an uploaded file: the engine gets the measured duration."""
    state = await web.service.state(game_id)
    command = media_library(request).publish_command(
        state, game_id, user.user_id, kind=body.kind, media=body.media, request=body.request,
        participants=tuple(body.participants), outcome=body.outcome, notes=body.notes)
    ack = await web.service.execute(game_id, command, scoped(user.user_id, body.command_id))
    return ack_out(ack)
