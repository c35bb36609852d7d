"""The archives of a finished game over HTTP (§9.4): the page data, an inbox, consents,
requests and the JSON export. ``router`` has the prefix ``/api/games/{game_id}/archive``;
inbox ids go in the query or body (they contain ``/``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from ...service.archive import Archives
from ..deps import CurrentUser, RequireUser, WebDep
from .games import ack_out, scoped
from .models import COMMAND_ID, ERRORS, AckOut, Body
from .sound import media_guard

router = APIRouter(prefix="/api/games/{game_id}/archive", tags=["archive"],
                   dependencies=[Depends(media_guard)], responses=ERRORS)


def archives(request: Request, web: WebDep) -> Archives:
    return web.archives


async def _archives_dependency(request: Request, web: WebDep) -> Archives:
    return archives(request, web)  # on the event loop, not FastAPI's thread pool


ArchivesDep = Depends(_archives_dependency)


def _links(game_id: str, row: dict[str, Any]) -> dict[str, Any]:
    base = f"/api/games/{game_id}/archive"
    inbox = quote(row["inbox"], safe="")
    return row | {"links": {
        "read": f"{base}/inbox?inbox={inbox}" if row["can_read"] else None,
        "request": f"{base}/request" if row["can_request"] else None,
        "consent": f"{base}/consent" if row["can_consent"] else None,
    }}


@router.get("")
async def page(game_id: str, user: CurrentUser,
               found: Archives = ArchivesDep) -> Any:
    """The archive page: results, the deal check, inboxes with their §9.4 status and links,
    every vote with its time, the Court's decisions, the public timeline."""
    data = await found.page(game_id, user.user_id if user else None)
    data["inboxes"] = [_links(game_id, row) for row in data["inboxes"]]
    data["export"] = f"/api/games/{game_id}/archive/export"
    return data


@router.get("/inbox")
async def inbox(game_id: str, inbox: str, user: CurrentUser,
                found: Archives = ArchivesDep) -> Any:
    """An inbox's messages, if §9.4 opens it to the viewer."""
    return await found.inbox(game_id, inbox, user.user_id if user else None)


@router.get("/export")
async def export(game_id: str, user: CurrentUser,
                 found: Archives = ArchivesDep) -> Any:
    """The archive as JSON, with every inbox open to the viewer."""
    data = await found.export(game_id, user.user_id if user else None)
    name = f"lepromafia-{game_id}-archive.json"
    return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="{name}"'})


class ConsentBody(Body):
    inbox: str = Field(max_length=200)
    consent: bool
    command_id: str = COMMAND_ID


class RequestBody(Body):
    inbox: str = Field(max_length=200)
    command_id: str = COMMAND_ID


@router.post("/consent")
async def consent(game_id: str, body: ConsentBody, user: RequireUser, web: WebDep,
                  found: Archives = ArchivesDep) -> AckOut:
    """INBOX-PERS-3, INBOX-SECRET-3: give or refuse one's consent for an inbox."""
    ack = await found.consent(game_id, user.user_id, body.inbox, body.consent,
                              scoped(user.user_id, body.command_id))
    return await ack_out(web, user.user_id, ack)


@router.post("/request")
async def ask(game_id: str, body: RequestBody, user: RequireUser, web: WebDep,
              found: Archives = ArchivesDep) -> AckOut:
    """AMB-33: open an inbox that opens to anyone who asks."""
    ack = await found.request(game_id, user.user_id, body.inbox, scoped(user.user_id, body.command_id))
    return await ack_out(web, user.user_id, ack)
