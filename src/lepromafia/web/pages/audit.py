"""The hosts' audit log page and its CSV (issue 12): the rows ``service.audit`` gives the
viewer, in words, filterable by day, city and kind. The JSON API shares the words and the CSV
(``web/api/audit.py``)."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...engine.state import GameState
from ...service.audit import (
    KINDS,
    OFFICE_WORDS,
    AuditError,
    AuditErrorCode,
    AuditFilter,
    AuditRow,
    AuditView,
)
from ..deps import Lang, RequireUser, WebDep
from ..i18n import N_, translate
from .common import GameCtx, game_context, load_game, rendered_at
from .game import game_page
from .labels import inbox_label
from .render import render
from .rules import rule_href

router = APIRouter()

PLATFORM_WORDS = N_("the platform, automatically")
STAND_IN_WORDS = N_("{person}, standing in")

CSV_COLUMNS = (
    N_("No."), N_("When (Moscow time)"), N_("Office"), N_("Who"), N_("City"), N_("Day"),
    N_("Kind"), N_("What"), N_("Rule"), N_("Reason"),
)
CSV_DELIMITER = ";"
"""Excel in a Russian locale splits on «;» (the comma is the decimal separator there)."""
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def parse_filter(day: str | None, city: str | None, kind: str | None) -> AuditFilter:
    """Query parameters to a filter; empty means all. A day that is not a number is refused."""
    wanted_day: int | None = None
    if day not in (None, ""):
        try:
            wanted_day = int(str(day))
        except ValueError as exc:
            raise AuditError(AuditErrorCode.BAD_FILTER, field="day") from exc
    return AuditFilter(day=wanted_day, city=city or None, kind=kind or None)


def what_words(lang: str, state: GameState, row: AuditRow, viewer: str) -> str:
    fields: dict[str, str] = {}
    for name, value in row.what.fields:
        if name in row.what.words:
            value = translate(lang, value)
        elif name in row.what.inboxes and value in state.inboxes:
            value = inbox_label(lang, state, value, viewer)
        fields[name] = value
    return translate(lang, row.what.msgid, **fields)


def day_words(lang: str, row: AuditRow) -> str:
    if row.day == 0:
        return translate(lang, "before the game")
    if row.night:
        return translate(lang, "Night {n}", n=row.day)
    return translate(lang, "Day {n}", n=row.day)


def who_words(lang: str, row: AuditRow) -> str:
    if row.person is None:
        return translate(lang, PLATFORM_WORDS)
    if row.stand_in:
        return translate(lang, STAND_IN_WORDS, person=row.person)
    return row.person


def row_words(lang: str, state: GameState, row: AuditRow, viewer: str) -> dict[str, Any]:
    """One row as a person reads it, in ``lang`` (the page, the API and the CSV)."""
    return {
        "number": row.number,
        "at": row.at.isoformat(),
        "when": row.at.strftime("%d.%m.%Y %H:%M"),
        "office": row.office,
        "office_words": translate(lang, OFFICE_WORDS[row.office]),
        "person": row.person,
        "who": who_words(lang, row),
        "stand_in": row.stand_in,
        "city": row.city,
        "day": row.day,
        "night": row.night,
        "day_words": day_words(lang, row),
        "kind": row.kind,
        "kind_words": translate(lang, KINDS[row.kind]),
        "what": what_words(lang, state, row, viewer),
        "rule": row.rule,
        "rule_href": rule_href(row.rule),
        "note": row.note,
    }


def _cell(value: object) -> str:
    """A CSV cell that a spreadsheet never runs as a formula (OWASP CSV injection)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_bytes(lang: str, rows: list[dict[str, Any]]) -> bytes:
    """UTF-8 with a byte-order mark (Excel reads Cyrillic then), «;»-separated, CRLF rows."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=CSV_DELIMITER, lineterminator="\r\n")
    writer.writerow([translate(lang, c) for c in CSV_COLUMNS])
    for r in rows:
        writer.writerow([_cell(v) for v in (
            r["number"], r["when"], r["office_words"], r["who"], r["city"] or "", r["day_words"],
            r["kind_words"], r["what"], r["rule"], r["note"])])
    return "\ufeff".encode() + out.getvalue().encode("utf-8")


def csv_response(lang: str, game_id: str, rows: list[dict[str, Any]]) -> Response:
    return Response(csv_bytes(lang, rows), media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="audit-{game_id}.csv"'})


async def audit_rows(web: Any, game: GameCtx, viewer: str, lang: str, wanted: AuditFilter
                     ) -> tuple[AuditView, list[dict[str, Any]]]:
    found: AuditView = await web.queries.audit(game.id, viewer, wanted)
    return found, [row_words(lang, game.state, r, viewer) for r in found.rows]


QUERY_ESCAPES = {"%": "%25", "&": "%26", "#": "%23", "+": "%2B", "=": "%3D", " ": "%20"}


def _query(wanted: AuditFilter) -> str:
    """The filter as a query string; a city's Cyrillic name stays readable, only what would
    break the query is escaped."""
    def part(value: object) -> str:
        return "".join(QUERY_ESCAPES.get(ch, ch) for ch in str(value))
    return "&".join(f"{k}={part(v)}" for k, v in (("day", wanted.day), ("city", wanted.city),
                                                   ("kind", wanted.kind)) if v is not None)


@router.get("/games/{game_id}/audit", include_in_schema=False)
async def audit_page(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang,
                     day: str | None = None, city: str | None = None, kind: str | None = None) -> Response:
    """Issue 12: a host's own decisions (the Procurator: every host's), filterable; 403 for a
    non-host (audit_not_a_host), 422 for a choice that does not exist (audit_bad_filter)."""
    game = await load_game(web, game_id)
    wanted = parse_filter(day, city, kind)
    found, rows = await audit_rows(web, game, user.user_id, lang, wanted)
    return await game_page(
        request, web, user, lang, game, "audit", "pages/audit.html", view=found, rows=rows,
        wanted=wanted, kinds=[(k, translate(lang, KINDS[k])) for k in KINDS], query=_query(wanted))


@router.get("/games/{game_id}/audit/part/rows", include_in_schema=False)
async def audit_rows_part(request: Request, game_id: str, web: WebDep, user: RequireUser, lang: Lang,
                          day: str | None = None, city: str | None = None, kind: str | None = None
                          ) -> Response:
    """The audit log's rows as a live region (issue 12): a decision taken while the page is
    open appears without a reload, with the page's filter kept."""
    game = await load_game(web, game_id)
    wanted = parse_filter(day, city, kind)
    found, rows = await audit_rows(web, game, user.user_id, lang, wanted)
    ctx = {"view": found, "rows": rows, "wanted": wanted, "query": _query(wanted),
           **await game_context(web, request, game, user.user_id, "", unread=False)}
    return rendered_at(render(request, "components/audit_rows.html", ctx, lang=lang), ctx)


@router.get("/games/{game_id}/audit.csv", include_in_schema=False)
async def audit_csv(game_id: str, web: WebDep, user: RequireUser, lang: Lang, day: str | None = None,
                    city: str | None = None, kind: str | None = None) -> Response:
    game = await load_game(web, game_id)
    _found, rows = await audit_rows(web, game, user.user_id, lang, parse_filter(day, city, kind))
    return csv_response(lang, game_id, rows)
