"""The hosts' audit log over HTTP (issue 12, §9.1 p.4): the rows the viewer may read, in
words of his language (``?lang=``), filterable by day, city and kind, as JSON or CSV.

403 ``audit_not_a_host`` for anyone without a host office in the game; 422
``audit_bad_filter`` for a day, city or kind the game does not have."""

from __future__ import annotations

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel

from ..deps import Lang, RequireUser, WebDep
from ..pages.audit import audit_rows, csv_response, parse_filter
from ..pages.common import load_game
from .models import ERRORS

router = APIRouter(tags=["audit"], responses=ERRORS)

DAY = Query(None, description="Game day (0: before Day 1); empty: every day", max_length=6)
CITY = Query(None, description="A city of the game; empty: every city", max_length=120)
KIND = Query(None, description="A kind of decision (see `kinds` in the answer); empty: all", max_length=32)


class AuditRowOut(BaseModel):
    number: int
    at: str
    when: str
    office: str
    office_words: str
    person: str | None
    who: str
    stand_in: bool
    city: str | None
    day: int
    night: bool
    day_words: str
    kind: str
    kind_words: str
    what: str
    rule: str
    rule_href: str
    note: str


class AuditOut(BaseModel):
    rows: list[AuditRowOut]
    total: int
    procurator: bool
    days: list[int]
    cities: list[str]
    kinds: list[str]


@router.get("/games/{game_id}/audit")
async def audit(game_id: str, web: WebDep, user: RequireUser, lang: Lang, day: str | None = DAY,
                city: str | None = CITY, kind: str | None = KIND) -> AuditOut:
    """The viewer's audit log: his own host decisions and the platform's steps for his office
    (the Procurator: every host's, as far as §9 lets him see them), oldest first."""
    game = await load_game(web, game_id)
    found, rows = await audit_rows(web, game, user.user_id, lang, parse_filter(day, city, kind))
    return AuditOut(rows=[AuditRowOut(**r) for r in rows], total=found.total, procurator=found.procurator,
                    days=list(found.days), cities=list(found.cities), kinds=list(found.kinds))


@router.get("/games/{game_id}/audit.csv", response_class=Response,
            responses={200: {"content": {"text/csv": {}}, "description": "UTF-8 with BOM, «;»-separated"}})
async def audit_csv(game_id: str, web: WebDep, user: RequireUser, lang: Lang, day: str | None = DAY,
                    city: str | None = CITY, kind: str | None = KIND) -> Response:
    """The same rows as CSV for Excel: UTF-8 with a byte-order mark, «;» between cells."""
    game = await load_game(web, game_id)
    _found, rows = await audit_rows(web, game, user.user_id, lang, parse_filter(day, city, kind))
    return csv_response(lang, game_id, rows)
