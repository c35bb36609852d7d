
"""The archives of a finished game (§9.4, RANDOM-5, AMB-33): what each visitor may open.

One query layer for the archive page and its JSON export. Every inbox's status comes
from ``engine.archive.status`` and reading one goes through ``engine.archive.can_open``;
consents and requests are the engine's commands (``GiveArchiveConsent``,
``RequestArchive``), sent through the service. The rest is the public record: every
public event, every vote with its time (the voting inboxes are gone, and their full log
is published with the results, INBOX-VOTE), the Court's decisions, and the deal check
(the sealed lists recomputed against the commitment, RANDOM-5). Contact details are not
part of any event or message, so they cannot appear here (SEC-13).
"""

from __future__ import annotations

from typing import Any

from ..engine import archive as rules
from ..engine import events as ev
from ..engine.commands import GiveArchiveConsent, RequestArchive
from ..engine.deal import commitment, verify
from ..engine.errors import N_, CodedError, CodeEnum
from ..engine.events import Event
from ..engine.inboxes import POLICY, AfterGame, Kind
from ..engine.state import GameState, Stage
from .archive_story import Story, story
from .event_index import EventIndex, Indexed
from .media import library
from .outbound import event_json, may_see, visible_json
from .posts import edits_of, with_edits
from .service import Ack, GameService
from .views import MessageView

EXPORT_VERSION = 1
VOTES = (ev.VoteCast, ev.JudgeVoteCast)
COURT = (ev.PardonWindowOpened, ev.VerdictReached, ev.JudgeRemoved, ev.JudgeRecused,
         ev.PetitionConfirmed, ev.JudgeElectionClosed)
CONSENT_RULES = (AfterGame.RESIDENT_CONSENT, AfterGame.ALL_MEMBERS_CONSENT)


class ArchiveErrorCode(CodeEnum):
    NOT_FINISHED = "archive_not_finished", 409, N_("The archives of game '{game}' open when the game is over")
    INBOX_CLOSED = "archive_inbox_closed", 403, N_("This inbox is not open to you")
    UNKNOWN_INBOX = "archive_unknown_inbox", 404, N_("There is no inbox '{inbox}'")


class ArchiveError(CodedError):
    code: ArchiveErrorCode

    def __init__(self, code: ArchiveErrorCode, rule: str = "", **fields: Any) -> None:
        super().__init__(code, rule, **fields)


class Archives:
    """Read the archives of finished games; send consents and requests."""

    def __init__(self, service: GameService, events: EventIndex | None = None) -> None:
        self.service = service
        self.index = events or EventIndex(service.store)

    async def finished(self, game_id: str) -> GameState:
        return (await self._finished(game_id))[0]

    async def _finished(self, game_id: str) -> tuple[GameState, Indexed]:
        """The finished game and its whole log (read once, then only its new tail)."""
        game = await self.service.current(game_id)
        if game.state.stage is not Stage.FINISHED:
            raise ArchiveError(ArchiveErrorCode.NOT_FINISHED, "INBOX-PERS-3", game=game_id)
        return game.state, await self.index.log(game_id, game.version)

    # --- the page ------------------------------------------------------------------

    async def page(self, game_id: str, viewer: str | None) -> dict[str, Any]:
        """Everything the archive page shows this viewer (anonymous: None)."""
        s, events = await self._finished(game_id)
        ended = next((e for _, e in reversed(events) if isinstance(e, ev.GameEnded)), None)
        return {
            "game_id": game_id, "title": s.title, "result": s.result.value if s.result else None,
            "ended_at": ended.at.isoformat() if ended else None,
            "reveal": _reveal(ended),
            "cities": visible_json(events, viewer, ev.CityDecided),
            "deal": deal_check(ended),
            "inboxes": inbox_list(s, viewer),
            # every vote with its time: published with the results after the game (INBOX-VOTE)
            "votes": [_vote(seq, e) for seq, e in events if isinstance(e, VOTES)],
            "vote_results": visible_json(events, viewer, (ev.VotingClosed, ev.NoExecution)),
            "court": court_decisions(s, events, viewer),
            "timeline": visible_json(events, None, Event),
            "sound_library": library(s, viewer),
        }

    async def story(self, game_id: str, viewer: str | None) -> Story:
        """The game day by day, for the archive page (``archive_story``)."""
        _, events = await self._finished(game_id)
        return story(events, viewer)

    async def inbox(self, game_id: str, inbox_id: str, viewer: str | None) -> dict[str, Any]:
        """An inbox's messages, if §9.4 opens it to the viewer (``engine.archive.can_open``)."""
        s, events = await self._finished(game_id)
        if inbox_id not in s.inboxes:
            raise ArchiveError(ArchiveErrorCode.UNKNOWN_INBOX, inbox=inbox_id[:80])
        if not rules.can_open(s, inbox_id, viewer):
            status = rules.status(s, inbox_id, viewer)
            raise ArchiveError(ArchiveErrorCode.INBOX_CLOSED, "AMB-33", status=status.value)
        async with self.service.store.reading() as tx:
            rows, _ = await tx.messages(game_id, inbox_id)
        shown = with_edits([MessageView(i, r.author, r.text, r.at) for i, r in enumerate(rows, 1)],
                           edits_of(events, inbox_id))
        return _header(s, inbox_id, viewer) | {"messages": [
            {"seq": r.seq, "author": r.author, "text": m.text, "at": r.at, "edited_at": m.edited_at,
             "versions": [{"text": v.text, "at": v.at} for v in m.versions]}  # every edit kept
            for r, m in zip(rows, shown, strict=True)]}

    async def export(self, game_id: str, viewer: str | None) -> dict[str, Any]:
        """The archive as this viewer may see it, with every inbox open to him, as JSON."""
        page = await self.page(game_id, viewer)
        opened = [await self.inbox(game_id, i["inbox"], viewer)
                  for i in page["inboxes"] if i["can_read"]]
        return {"format": "lepromafia-archive", "version": EXPORT_VERSION, "viewer": viewer,
                **page, "opened_inboxes": opened}

    # --- consents and requests -----------------------------------------------------------

    async def consent(self, game_id: str, viewer: str, inbox_id: str, consent: bool,
                      command_id: str) -> Ack:
        """INBOX-PERS-3, INBOX-SECRET-3: give (or refuse) one's consent for an inbox."""
        return await self.service.execute(
            game_id, GiveArchiveConsent(actor=viewer, inbox=inbox_id, consent=consent), command_id)

    async def request(self, game_id: str, viewer: str, inbox_id: str, command_id: str) -> Ack:
        """AMB-33: open an inbox that opens to anyone who asks."""
        return await self.service.execute(
            game_id, RequestArchive(actor=viewer, inbox=inbox_id), command_id)


# --- pieces ------------------------------------------------------------------------------


def inbox_list(s: GameState, viewer: str | None) -> list[dict[str, Any]]:
    out = [_header(s, inbox_id, viewer) for inbox_id in s.inboxes]
    order = {k.value: i for i, k in enumerate(Kind)}
    out.sort(key=lambda i: (order.get(i["kind"], 99), i["city"] or "", i["inbox"]))
    return out


def _header(s: GameState, inbox_id: str, viewer: str | None) -> dict[str, Any]:
    inbox = s.inboxes[inbox_id]
    policy = POLICY[Kind(inbox.kind)]
    status = rules.status(s, inbox_id, viewer)
    row: dict[str, Any] = {
        "inbox": inbox_id, "kind": inbox.kind, "city": inbox.city, "title": inbox.title,
        "subject": inbox.subject if inbox.kind != Kind.SECRET else None,
        "after_game": policy.after_game.value, "status": status.value,
        "can_read": status in (rules.ArchiveStatus.MEMBER, rules.ArchiveStatus.OPEN),
        "can_request": viewer is not None and status is rules.ArchiveStatus.ON_REQUEST,
        "can_consent": False, "consent": None,
    }
    if policy.after_game in CONSENT_RULES:
        needed = rules.members(s, inbox)
        given = s.archive.consents.get(inbox_id, {})
        row["can_consent"] = viewer is not None and viewer in needed
        row["consent"] = {
            "needed": len(needed), "given": sum(1 for m in needed if given.get(m) is True),
            "refused": any(given.get(m) is False for m in needed),
            "yours": given.get(viewer) if viewer is not None and viewer in needed else None,
        }
    return row


def deal_check(ended: ev.GameEnded | None) -> dict[str, Any] | None:
    """RANDOM-5: the opened lists hash to the commitment published before the game."""
    if ended is None or ended.commitment is None:
        return None
    lists = {city: list(users) for city, users in ended.deal_lists}
    recomputed = commitment(lists, ended.deal_salt)
    return {"lists": lists, "salt": ended.deal_salt, "commitment": ended.commitment,
            "recomputed": recomputed, "verified": verify(lists, ended.deal_salt, ended.commitment)}


def court_decisions(s: GameState, events: Indexed,
                    viewer: str | None) -> list[dict[str, Any]]:
    """Every public Court decision; the judges' single pardon votes (Court inbox) to whoever
    may open a Court inbox now or saw them during the game."""
    court_open = any(i.kind == Kind.COURT and rules.can_open(s, i.id, viewer) for i in s.inboxes.values())
    out = visible_json(events, None, COURT)
    if court_open or viewer is not None:
        out += [event_json(e) | {"seq": seq} for seq, e in events if isinstance(e, ev.PardonVoteCast)
                and (court_open or may_see(e, viewer))]
    out.sort(key=lambda d: d["seq"])
    return out


def _reveal(ended: ev.GameEnded | None) -> dict[str, Any] | None:
    if ended is None:
        return None
    return {"factions": dict(ended.factions), "consigliere": ended.consigliere,
            "commissars": [list(c) for c in ended.commissars]}


def _vote(seq: int, e: ev.VoteCast | ev.JudgeVoteCast) -> dict[str, Any]:
    row = {"seq": seq, "at": e.at.isoformat(), "type": type(e).__name__, "city": e.city,
           "candidate": e.candidate, "voter": e.voter, "keyword": e.keyword, "proxy": e.proxy}
    if isinstance(e, ev.JudgeVoteCast):
        row["in_favour"] = e.in_favour
    return row

