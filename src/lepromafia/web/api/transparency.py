"""The verifiable log on the web (issue 14, docs/verification.md): the server's key set at
a well-known URL, every game's signed tree heads, and its verifiable export.

The export opens only what §9.4 opens (``service.transparency_export.revealed``): while a
game runs, its public events; everything else is an opaque leaf.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ...service.transparency import consistency, published_heads
from ...service.transparency_export import ExportError, dumps, export_game
from ..deps import WebDep
from ..errors import WebError, WebErrorCode
from .models import ERRORS, MAX_INT

router = APIRouter(tags=["verification"], responses=ERRORS)
WELL_KNOWN = "/.well-known/lepromafia-log-key"


@router.get(WELL_KNOWN)
async def log_key(web: WebDep) -> dict[str, Any]:
    """The Ed25519 key that signs tree heads now (``key_id``, ``public_key``), and the key
    set: every key the server has signed heads with, each with its validity period
    (``valid_from``, ``valid_until``, UTC; null is open). A head is valid only if signed
    by a key of the set within its period."""
    key = web.service.log_key
    if key is None:
        raise WebError(WebErrorCode.NOT_FOUND, what="log key")
    return key.published()


@router.get("/api/games/{game_id}/log")
async def log_heads(game_id: str, web: WebDep) -> dict[str, Any]:
    """The game's signed tree heads (one per Day Post, one at the end)."""
    await web.service.state(game_id)  # an unknown game is a 404 through the error mapper
    return {"game_id": game_id, "key": web.service.log_key.published() if web.service.log_key else None,
            "heads": await published_heads(web.service.store, game_id)}


@router.get("/api/games/{game_id}/log/consistency")
async def log_consistency(game_id: str, web: WebDep, first: int = Query(ge=1, le=MAX_INT),
                          second: int = Query(ge=1, le=MAX_INT)) -> dict[str, Any]:
    """RFC 9162: the proof that the head of size ``second`` extends the head of size ``first``
    (both published heads of the game)."""
    await web.service.state(game_id)
    proof = await consistency(web.service.store, game_id, first, second)
    if proof is None:
        raise WebError(WebErrorCode.NOT_FOUND, what=f"heads {first}, {second}")
    return {"game_id": game_id, "first": first, "second": second, "proof": proof}


@router.get("/api/games/{game_id}/log/export")
async def log_export(game_id: str, web: WebDep) -> Response:
    """The verifiable export: what ``verify/verify.py`` reads."""
    key = web.service.log_key
    if key is None:
        raise WebError(WebErrorCode.NOT_FOUND, what="log key")
    await web.service.state(game_id)
    try:
        document = await export_game(web.service.store, game_id, key)
    except ExportError as exc:
        raise WebError(WebErrorCode.NOT_FOUND, what=f"export of {game_id}") from exc
    return Response(dumps(document), media_type="application/json", headers={
        "Content-Disposition": f'attachment; filename="{game_id}.verifiable.json"'})
