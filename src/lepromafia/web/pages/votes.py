"""The vote record (issue 11, B1): the live keyword log of a voting inbox, the vote count
posted at the close, and the "votes" page per city and day.

Every count, tally and running total is the engine's (``engine.votes``: ``live_count`` for
an open vote, ``vote_counts`` over the published events); this module only picks what the
viewer may see — an open vote's log only where he may read its voting inboxes (EXEC-18,
INBOX-VOTE-1), a closed one from the public ``VoteCountPublished`` (EXEC-9, EXEC-14) — and
turns it into sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...engine.calendar import MOSCOW
from ...engine.duties import DutyKind, duties
from ...engine.inboxes import Kind
from ...engine.keywords import Keyword
from ...engine.votes import VoteCount
from ..api.votes import open_vote, published_counts
from ..deps import CurrentUser, Lang, WebDep
from ..errors import WebError, WebErrorCode
from ..i18n import N_, ntranslate, translate
from .common import (
    GameCtx,
    clear_flash,
    flash_context,
    game_context,
    load_game,
    page_events,
    rendered_at,
)
from .render import render

router = APIRouter()

NO_EXECUTION = {
    "no_candidates": N_("Nobody was nominated, so nobody is executed today."),
    "restoration": N_("The city is being restored: no execution today."),
    "no_eligible_candidate": N_("No candidate could be executed, so nobody is."),
    "pardoned_no_runner_up": N_("The Court pardoned the only candidate: nobody is executed."),
}


def clock_time(dt: datetime | None) -> str:
    """A moment as Moscow clock time, «23:30»."""
    return dt.astimezone(MOSCOW).strftime("%H:%M") if dt else ""


def stamp(dt: datetime | None) -> str:
    """A log line's time to the second, «20:05:12»."""
    return dt.astimezone(MOSCOW).strftime("%H:%M:%S") if dt else ""


def open_count(game: GameCtx, city: str, viewer: str | None) -> VoteCount | None:
    """The city's open vote as it stands, if the viewer may read its voting inboxes."""
    return open_vote(game.state, city, viewer)


def outcome_lines(lang: str, vc: VoteCount) -> list[str]:
    """The Court's part and the end of the day's vote, in words (EXEC-15..17, COURT-3)."""
    out = []
    if vc.no_vote:
        out.append(translate(lang, NO_EXECUTION.get(vc.no_vote, vc.no_vote)))
    for step in vc.outcome:
        if step.kind == "window":
            out.append(translate(lang, "The Supreme Court may pardon {candidate} until {time} MSK.",
                                 candidate=step.candidate, time=clock_time(step.closes_at)))
        elif step.kind == "verdict":
            msgid = (N_("The Court pardoned {candidate}: {yes} for, {no} against.") if step.pardoned
                     else N_("The Court did not pardon {candidate}: {yes} for, {no} against."))
            out.append(translate(lang, msgid, candidate=step.candidate, yes=step.pardon_votes,
                                 no=step.no_pardon_votes))
        elif step.kind == "executed":
            msgid = (N_("{candidate} is executed: he was a mafioso.") if step.faction == "mafia"
                     else N_("{candidate} is executed: he was an honest citizen."))
            out.append(translate(lang, msgid, candidate=step.candidate))
        elif step.kind == "no_execution":
            out.append(translate(lang, NO_EXECUTION.get(step.reason or "", step.reason or "")))
    return out


@dataclass(frozen=True)
class Record:
    """A vote count ready for a template."""

    count: VoteCount
    outcome: list[str]
    href: str

    @property
    def closed(self) -> bool:
        return self.count.closed_at is not None


def record_of(lang: str, game_id: str, vc: VoteCount) -> Record:
    return Record(vc, outcome_lines(lang, vc), f"/games/{game_id}/votes/{vc.city}/{vc.day}")


# --- a voting inbox (EXEC-18, M2, M3) ------------------------------------------------


def vote_deadline(game: GameCtx, city: str, inbox_id: str, viewer: str) -> datetime | None:
    """When this vote closes: the viewer's own vote duty's deadline (``engine.duties``),
    or, for a reader who may not vote, the city's scheduled close."""
    for duty in duties(game.state, viewer, game.now):
        if duty.kind is DutyKind.VOTE and duty.arguments.get("inbox") == inbox_id:
            return duty.deadline
    c = game.state.cities.get(city)
    return c.vote_closes_at if c is not None and c.voting is not None and not c.voting.closed else None


def my_vote_note(lang: str, vc: VoteCount, candidate: str, viewer: str) -> str | None:
    """«Ваш голос «казнить» за X учтён — 4 голоса», or that he withdrew it (M3)."""
    mine = [line for line in vc.lines if line.candidate == candidate and line.voter == viewer]
    if not mine:
        return None
    row = next(r for r in vc.candidates if r.candidate == candidate)
    votes = ntranslate(lang, "{n} vote", "{n} votes", row.votes)
    if mine[-1].keyword == Keyword.EXECUTE.value:
        return translate(lang, "Your vote «{keyword}» for {candidate} is counted — {votes}.",
                         keyword=Keyword.EXECUTE.value, candidate=candidate, votes=votes)
    return translate(lang, "You withdrew your vote for {candidate} («{keyword}») — {votes}.",
                     keyword=Keyword.WITHDRAW.value, candidate=candidate, votes=votes)


def keyword_totals(game: GameCtx, events: Any, viewer: str) -> dict[str, int]:
    """Voting inbox id -> the keywords posted in it, as its page lists them (review B1: the
    inbox list counted 0 messages in every voting inbox, its «казнить» being no message)."""
    s = game.state
    closed = published_counts(events, viewer)
    out: dict[str, int] = {}
    for inbox_id, inbox in s.inboxes.items():
        if inbox.kind != Kind.VOTING.value:
            continue
        city, candidate = inbox.city or "", inbox.subject or ""
        vc = open_count(game, city, viewer) if not inbox.archived else None
        if vc is None:
            vc = next((c for c in reversed(closed)
                       if c.city == city and c.opened_at == inbox.opened_at), None)
        if vc is not None:
            out[inbox_id] = sum(1 for line in vc.lines if line.candidate == candidate)
    return out


HELPERS = {"clock_time": clock_time, "stamp": stamp}
"""The time formats the vote templates use."""


async def inbox_record(web: Any, game: GameCtx, inbox_id: str, viewer: str, lang: str,
                       messages: list[dict[str, Any]], whole: bool = True,
                       until: datetime | None = None) -> dict[str, Any]:
    """What the vote record adds to an inbox page. A voting inbox: its keyword log with
    running tallies, the viewer's standing vote (the pressed button), the confirmation and
    the deadline, and once closed the published vote count. A city or Court inbox: the
    vote counts posted in it (EXEC-14), in the thread among the messages by time: where
    ``messages`` are not the thread from its start (not ``whole``), only the counts from
    the first of them on, and before ``until`` (an earlier page: when the next message was
    posted), so each count shows once, in its place, in whichever page holds its time."""
    inbox = game.state.inboxes.get(inbox_id)
    if inbox is None:
        return {}
    if inbox.kind == Kind.VOTING.value:
        return HELPERS | await _voting_inbox(web, game, inbox_id, viewer, lang)
    if inbox.kind not in (Kind.CITY.value, Kind.COURT.value):
        return {}
    posted = [record_of(lang, game.id, vc) for vc in published_counts(await page_events(web, game), viewer)
              if inbox_id in vc.inboxes]
    if not whole and messages:
        posted = [r for r in posted if r.count.closed_at and r.count.closed_at >= messages[0]["at"]]
    if until is not None:
        posted = [r for r in posted if r.count.closed_at and r.count.closed_at < until]
    if not posted:
        return {}
    items = [(m["at"], 0, m) for m in messages] + [
        (r.count.closed_at, 1, {"vote_count": r, "at": r.count.closed_at}) for r in posted]
    items.sort(key=lambda item: (item[0], item[1]))
    return HELPERS | {"vote_posts": posted, "thread": [item[2] for item in items]}


async def _voting_inbox(web: Any, game: GameCtx, inbox_id: str, viewer: str, lang: str) -> dict[str, Any]:
    inbox = game.state.inboxes[inbox_id]
    city, candidate = inbox.city or "", inbox.subject or ""
    vc = open_count(game, city, viewer) if not inbox.archived else None
    record = None
    if vc is None:
        published = [c for c in published_counts(await page_events(web, game), viewer)
                     if c.city == city and c.opened_at == inbox.opened_at]
        if not published:
            return {"vote_log": [], "vote_candidate": candidate, "votes_href": f"/games/{game.id}/votes"}
        vc = published[-1]
        record = record_of(lang, game.id, vc)
    lines = [line for line in vc.lines if line.candidate == candidate]
    mine = [line.keyword for line in lines if line.voter == viewer]
    standing = mine[-1] if mine and record is None else None  # «казнить»: his vote is active
    return {
        "vote_log": lines,
        "vote_candidate": candidate,
        "vote_standing": standing,
        "vote_note": my_vote_note(lang, vc, candidate, viewer) if record is None else None,
        "vote_closes_at": vote_deadline(game, city, inbox_id, viewer) if record is None else None,
        "vote_record": record,
        "votes_href": f"/games/{game.id}/votes/{city}/{vc.day}",
    }


# --- the votes page ---------------------------------------------------------------------


def day_index(counts: tuple[VoteCount, ...], open_ones: list[VoteCount]) -> list[dict[str, Any]]:
    """Every (day, city) with a vote or a day without one, newest day first."""
    seen: dict[tuple[int, str], VoteCount] = {(c.day, c.city): c for c in counts}
    for c in open_ones:
        seen.setdefault((c.day, c.city), c)
    days: dict[int, list[VoteCount]] = {}
    for (day, _city), c in sorted(seen.items()):
        days.setdefault(day, []).append(c)
    return [{"day": d, "counts": days[d]} for d in sorted(days, reverse=True)]


async def votes_context(web: Any, game: GameCtx, viewer: str | None, lang: str) -> dict[str, Any]:
    counts = published_counts(await page_events(web, game), viewer)
    live = [c for c in (open_count(game, name, viewer) for name in game.state.cities) if c is not None]
    return {"counts": counts, "live": live, "index": day_index(counts, live)}


async def _page(request: Request, web: Any, user: Any, lang: str, game: GameCtx,
                **context: Any) -> Response:
    uid = user.user_id if user else None
    ctx = await game_context(web, request, game, uid, "votes")
    ctx.update(user=uid, **flash_context(request), **context)
    response = render(request, "pages/votes.html", ctx, lang=lang)
    clear_flash(response, request)
    return response


@router.get("/games/{game_id}/votes", include_in_schema=False)
async def votes_page(request: Request, game_id: str, web: WebDep, user: CurrentUser, lang: Lang) -> Response:
    """Every day's vote in every city: the index of the record (B1)."""
    game = await load_game(web, game_id)
    found = await votes_context(web, game, user.user_id if user else None, lang)
    return await _page(request, web, user, lang, game, index=found["index"],
                       records=_newest_first(lang, game_id, found), city=None, day=None, **HELPERS)


@router.get("/games/{game_id}/votes/part", include_in_schema=False)
async def votes_page_part(request: Request, game_id: str, web: WebDep, user: CurrentUser,
                          lang: Lang) -> Response:
    """The index page's live region: every count, newest first."""
    game = await load_game(web, game_id)
    uid = user.user_id if user else None
    found = await votes_context(web, game, uid, lang)
    ctx = await game_context(web, request, game, uid, "votes", unread=False)
    ctx.update(user=uid, records=_newest_first(lang, game_id, found), city=None, day=None, **HELPERS)
    return rendered_at(render(request, "partials/vote_records.html", ctx, lang=lang), ctx)


def _newest_first(lang: str, game_id: str, found: dict[str, Any]) -> list[Record]:
    return [record_of(lang, game_id, c) for c in (*found["live"], *reversed(found["counts"]))]


@router.get("/games/{game_id}/votes/{city}/{day}", include_in_schema=False)
async def votes_of_day(request: Request, game_id: str, city: str, day: int, web: WebDep,
                       user: CurrentUser, lang: Lang) -> Response:
    """One city's vote of one day: the count, the voters in order, the whole log (B1)."""
    game = await load_game(web, game_id)
    if city not in game.state.cities:
        raise WebError(WebErrorCode.NOT_FOUND, what=city)
    found = await votes_context(web, game, user.user_id if user else None, lang)
    chosen = [c for c in (*found["live"], *found["counts"]) if c.city == city and c.day == day]
    if not chosen and not (day <= game.state.day and day >= 1):
        raise WebError(WebErrorCode.NOT_FOUND, what=f"{city} / {day}")
    return await _page(request, web, user, lang, game, index=found["index"],
                       records=[record_of(lang, game_id, c) for c in chosen], city=city, day=day,
                       **HELPERS)


@router.get("/games/{game_id}/votes/{city}/{day}/part", include_in_schema=False)
async def votes_of_day_part(request: Request, game_id: str, city: str, day: int, web: WebDep,
                            user: CurrentUser, lang: Lang) -> Response:
    """The record's live region on the votes page."""
    game = await load_game(web, game_id)
    uid = user.user_id if user else None
    found = await votes_context(web, game, uid, lang)
    chosen = [c for c in (*found["live"], *found["counts"]) if c.city == city and c.day == day]
    ctx = await game_context(web, request, game, uid, "votes", unread=False)
    ctx.update(user=uid, records=[record_of(lang, game_id, c) for c in chosen], city=city, day=day,
               **HELPERS)
    return rendered_at(render(request, "partials/vote_records.html", ctx, lang=lang), ctx)
