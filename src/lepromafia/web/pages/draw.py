"""The drawn deal (issue 14, RANDOM-4 by lot, docs/verification.md): each party commits to a
secret value, the Procurator opens the reveals once the lists are sealed, every party reveals.

The value is made and kept in the party's browser (static/js/draw.js): the server sees only
its SHA-256 until the reveal, so no one — the server included — can choose the positions.
Who may commit, open or reveal is the engine's answer (``engine.rules.deal_draw``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...engine.commands import CommitDealEntropy, OpenDealReveals, RevealDealEntropy
from ...engine.deal import SERVER_PARTY
from ...engine.errors import CodedError
from ...engine.events import DealEntropyReplaced
from ...engine.rules import deal_draw
from ...engine.state import GameState
from ...service.outbound import visible
from ..api.games import scoped
from ..deps import CommandCsrfChecked, CurrentUser, Lang, RequireUser, WebDep
from ..errors import describe
from ..i18n import N_
from .common import load_game, page_events, redirect
from .game import game_page

router = APIRouter()


@dataclass(frozen=True)
class PartyRow:
    party: str
    """``office:procurator``, ``office:consigliere``, ``system`` or a player's login."""
    digest: str
    value: str | None
    replaced: bool


@dataclass(frozen=True)
class DrawView:
    by_draw: bool
    parties: tuple[PartyRow, ...]
    reveals_open: bool
    closes_at: datetime | None
    drawn: bool
    mine: str | None
    """The viewer's party name, if he takes part."""
    can_commit: bool
    can_open: bool
    can_reveal: bool


def draw_view(s: GameState, replaced: set[str], viewer: str | None) -> DrawView:
    deal = s.deal
    rows = tuple(PartyRow(party, digest, deal.values.get(party), party in replaced)
                 for party, digest in sorted(deal.digests.items(), key=lambda kv: _order(kv[0])))
    mine = deal_draw.party_of(s, viewer) if viewer else None
    return DrawView(
        by_draw=deal_draw.by_draw(s), parties=rows, reveals_open=deal.reveals_open,
        closes_at=s.deadlines.get(deal_draw.DEADLINE),
        drawn=bool(deal.digests) and set(deal.values) == set(deal.digests),
        mine=mine if mine in deal.digests or (viewer and deal_draw.may_commit(s, viewer)) else None,
        can_commit=bool(viewer) and deal_draw.may_commit(s, viewer or ""),
        can_open=viewer == s.procurator and deal_draw.may_open_reveals(s),
        can_reveal=bool(viewer) and deal_draw.may_reveal(s, viewer or ""))


def _order(party: str) -> tuple[int, str]:
    return ({deal_draw.PROCURATOR: 0, deal_draw.CONSIGLIERE: 1, SERVER_PARTY: 2}.get(party, 3), party)


@router.get("/games/{game_id}/draw", include_in_schema=False)
async def page(request: Request, game_id: str, web: WebDep, user: CurrentUser, lang: Lang) -> Response:
    game = await load_game(web, game_id)
    uid = user.user_id if user else None
    events = await page_events(web, game)
    replaced = {e.party for _, e in visible(events, uid, (DealEntropyReplaced,))}
    view = draw_view(game.state, replaced, uid)
    return await game_page(request, web, user, lang, game, "draw", "pages/draw.html", draw=view,
                           store_key=f"lepromafia-draw:{game_id}:{uid or ''}")


async def _execute(request: Request, game_id: str, web: Any, user: Any, lang: str, command: Any,
                   ok: str, field: str = "") -> Response:
    form = await request.form()
    back = f"/games/{game_id}/draw"
    raw_id = str(form.get("command_id") or secrets.token_hex(8))
    try:
        await web.service.execute(game_id, command, scoped(user.user_id, raw_id))
    except CodedError as exc:
        return redirect(back, error=describe(exc, lang, field=field), form=dict(form),
                        action=request.url.path, lang=lang)
    return redirect(back, ok=ok, lang=lang)


@router.post("/games/{game_id}/draw/commit", include_in_schema=False, dependencies=[CommandCsrfChecked])
async def commit(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    form = await request.form()
    digest = str(form.get("digest") or "").strip().lower()
    return await _execute(request, game_id, web, user, lang,
                          CommitDealEntropy(actor=user.user_id, digest=digest),
                          N_("Committed. Keep your value: you reveal it once the reveals open."),
                          field="digest")


@router.post("/games/{game_id}/draw/open", include_in_schema=False, dependencies=[CommandCsrfChecked])
async def open_reveals(request: Request, game_id: str, web: WebDep, user: RequireUser,
                       lang: Lang) -> Response:
    # The service replaces the digest with its own fresh commitment and reveals it at once.
    return await _execute(request, game_id, web, user, lang,
                          OpenDealReveals(actor=user.user_id, server_digest="0" * 64),
                          N_("The reveals are open: every party now reveals its value."))


@router.post("/games/{game_id}/draw/reveal", include_in_schema=False, dependencies=[CommandCsrfChecked])
async def reveal(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang) -> Response:
    form = await request.form()
    value = str(form.get("value") or "").strip()
    return await _execute(request, game_id, web, user, lang,
                          RevealDealEntropy(actor=user.user_id, value=value),
                          N_("Revealed. It matches your commitment."), field="value")
