"""The archives after the game (§9.4, RANDOM-5, AMB-33, INBOX-PERS-3, INBOX-SECRET-3).

A 2×6 game is played to its end by the bots (``finished_game``): ``p01_01`` wrote in his
personal inbox on Day 1, and three residents kept a secret inbox. The expected §9.4
status of each kind of inbox is written out below, independently of the engine's table.
"""

from __future__ import annotations

from typing import Any

import pytest

from lepromafia.engine.deal import commitment
from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.inboxes import readers
from lepromafia.engine.state import Stage
from lepromafia.service.archive import ArchiveError, ArchiveErrorCode, Archives
from lepromafia.service.clock import ManualClock
from lepromafia.service.errors import ServiceError, ServiceErrorCode
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.web.i18n import error_message

from .finished_game import PERSONAL_TEXT, SECRET_TEXT, FinishedGame, import_game, play_finished_game
from .helpers import Ids, run, setup_game, small_cast

OUTSIDER_STATUS = {
    # §9.4 as written, for someone who was not a member: "open to anyone who asks" and
    # "on request" (AMB-33) are one click away; personal and secret inboxes need consent;
    # the RANDOM notary opens by itself (RANDOM-5); the voting inboxes are gone.
    "mafia": "open", "office": "open", "bar": "open", "removal": "open",
    "city": "on_request", "cemetery": "on_request", "court": "on_request", "police": "on_request",
    "impeachment": "on_request", "offer": "on_request", "line": "on_request",
    "personal": "awaiting_consent", "secret": "awaiting_consent",
    "voting": "closed", "polling": "closed",
}


@pytest.fixture(scope="module")
def game() -> FinishedGame:
    return play_finished_game()


def expected(game: FinishedGame, inbox_id: str, viewer: str | None) -> str:
    s = game.table.game
    inbox = s.inboxes[inbox_id]
    if viewer is not None and viewer in readers(s, inbox_id):
        return "member"
    if inbox.kind == "notary":
        return "open" if inbox.title == "RANDOM-2" else "closed"
    return OUTSIDER_STATUS[inbox.kind]


def with_archives(backend: DatabaseConfig, game: FinishedGame, body: Any) -> None:
    async def go() -> None:
        clock = ManualClock(game.table.events[-1].at)
        async with GameService.running(backend, clock=clock) as svc:
            await import_game(svc.store, "g", game.table)
            await body(Archives(svc))

    run(go())


def test_each_kind_of_visitor_sees_exactly_what_9_4_opens_to_him(
        backend: DatabaseConfig, game: FinishedGame) -> None:
    """§9.4: an anonymous visitor, a former resident and a former host (the Procurator)."""
    s = game.table.game
    resident = s.cities["Лепросицилия"].residents[3]
    kinds_seen: set[str] = set()

    async def body(archives: Archives) -> None:
        for viewer in (None, resident, "procurator", "tribune2", game.writer):
            page = await archives.page("g", viewer)
            assert {i["inbox"] for i in page["inboxes"]} == set(s.inboxes)
            for row in page["inboxes"]:
                kinds_seen.add(row["kind"])
                assert row["status"] == expected(game, row["inbox"], viewer), (viewer, row)
                assert row["can_read"] is (row["status"] in ("member", "open"))
                assert row["can_request"] is (viewer is not None and row["status"] == "on_request")
                if row["can_read"]:
                    await archives.inbox("g", row["inbox"], viewer)
                else:
                    with pytest.raises(ArchiveError) as err:
                        await archives.inbox("g", row["inbox"], viewer)
                    assert err.value.code is ArchiveErrorCode.INBOX_CLOSED

    with_archives(backend, game, body)
    assert {"city", "personal", "mafia", "cemetery", "office", "bar", "voting", "notary",
            "secret", "police"} <= kinds_seen


def test_asking_opens_an_on_request_inbox_to_the_one_who_asked(
        backend: DatabaseConfig, game: FinishedGame) -> None:
    """AMB-33: a former resident asks for the other city's inbox; it opens to him only."""
    s = game.table.game
    asker = s.cities["Лепроград"].residents[5]
    mafia = next(i.id for i in s.inboxes.values() if i.kind == "city" and i.city == "Лепросицилия"
                 and asker not in readers(s, i.id))

    async def body(archives: Archives) -> None:
        with pytest.raises(ArchiveError):
            await archives.inbox("g", mafia, asker)
        await archives.request("g", asker, mafia, "ask-1")
        opened = await archives.inbox("g", mafia, asker)
        assert opened["status"] == "open"
        with pytest.raises(ArchiveError):
            await archives.inbox("g", mafia, "tribune1")
        with pytest.raises(RuleViolation) as err:  # a personal inbox does not open by asking
            await archives.request("g", asker, game.personal, "ask-2")
        assert err.value.code is ErrorCode.ARCHIVE_CLOSED

    with_archives(backend, game, body)


def test_consent_given_opens_a_personal_inbox_and_refused_keeps_it_closed(
        backend: DatabaseConfig, game: FinishedGame) -> None:
    """INBOX-PERS-3: only the resident's consent opens his personal inbox to outsiders."""

    async def body(archives: Archives) -> None:
        with pytest.raises(ArchiveError):
            await archives.inbox("g", game.personal, None)
        await archives.consent("g", game.writer, game.personal, False, "no-1")
        row = _row(await archives.page("g", None), game.personal)
        assert row["status"] == "closed" and row["consent"]["refused"]
        with pytest.raises(ArchiveError):
            await archives.inbox("g", game.personal, None)
        await archives.consent("g", game.writer, game.personal, True, "yes-1")
        opened = await archives.inbox("g", game.personal, None)
        assert [m["text"] for m in opened["messages"]] == [PERSONAL_TEXT]
        with pytest.raises(RuleViolation) as err:  # nobody consents for someone else
            await archives.consent("g", "tribune1", game.personal, True, "forged-1")
        assert err.value.code is ErrorCode.NOT_A_MEMBER

    with_archives(backend, game, body)


def test_a_secret_inbox_opens_only_with_every_members_consent(
        backend: DatabaseConfig, game: FinishedGame) -> None:
    """INBOX-SECRET-3: all members must consent; one refusal keeps it closed."""
    a, b, c = game.secret_members
    outsider = game.table.game.cities["Лепросицилия"].residents[4]

    async def body(archives: Archives) -> None:
        await archives.consent("g", a, game.secret, True, "s1")
        await archives.consent("g", b, game.secret, True, "s2")
        row = _row(await archives.page("g", outsider), game.secret)
        assert row["status"] == "awaiting_consent"
        assert row["consent"] == {"needed": 3, "given": 2, "refused": False, "yours": None}
        assert row["subject"] is None, "an outsider is not told who organised it"
        with pytest.raises(ArchiveError):
            await archives.inbox("g", game.secret, outsider)
        mine = _row(await archives.page("g", c), game.secret)
        assert mine["can_consent"] and mine["consent"]["yours"] is None and mine["status"] == "member"
        await archives.consent("g", c, game.secret, True, "s3")
        opened = await archives.inbox("g", game.secret, outsider)
        assert [m["text"] for m in opened["messages"]] == [SECRET_TEXT]
        await archives.consent("g", b, game.secret, False, "s4")  # a member changes his mind
        assert _row(await archives.page("g", outsider), game.secret)["status"] == "closed"

    with_archives(backend, game, body)


def test_the_page_has_the_timeline_every_vote_the_court_and_a_verified_deal(
        backend: DatabaseConfig, game: FinishedGame) -> None:
    """RANDOM-5: the sealed lists recompute to the commitment; every vote has its time."""
    table = game.table
    votes = [e for e in table.events if type(e).__name__ == "VoteCast"]
    public = [e for e in table.events if e.audience.public]

    async def body(archives: Archives) -> None:
        page = await archives.page("g", None)
        assert page["result"] == table.game.result.value  # type: ignore[union-attr]
        deal = page["deal"]
        assert deal["verified"] and deal["recomputed"] == deal["commitment"] == table.game.deal.commitment
        assert commitment(deal["lists"], deal["salt"]) == deal["commitment"]
        assert len(page["votes"]) == len(votes) > 0
        assert all(v["at"] and v["voter"] and v["keyword"] for v in page["votes"])
        assert len(page["timeline"]) == len(public)
        assert [c["type"] for c in page["court"]] == [
            type(e).__name__ for e in table.events
            if type(e).__name__ in ("PardonWindowOpened", "VerdictReached", "JudgeRemoved",
                                    "JudgeRecused", "PetitionConfirmed", "JudgeElectionClosed")
            and e.audience.public]
        assert set(page["reveal"]["factions"]) == set(table.game.residents)
        export = await archives.export("g", None)
        assert export["format"] == "lepromafia-archive"
        assert {i["inbox"] for i in export["opened_inboxes"]} == {
            i["inbox"] for i in page["inboxes"] if i["can_read"]}
        import json

        text = json.dumps(export, ensure_ascii=False)
        assert "contact" not in text and "has_contact" not in text

    with_archives(backend, game, body)


def test_the_archives_stay_shut_while_the_game_runs(backend: DatabaseConfig) -> None:
    """§9.4 applies after the game only; a running game refuses consents through the engine."""

    async def go() -> None:
        async with GameService.running(backend) as svc:
            await setup_game(svc, "live", small_cast(), ids=Ids())
            archives = Archives(svc)
            with pytest.raises(ArchiveError) as err:
                await archives.page("live", None)
            assert err.value.code is ArchiveErrorCode.NOT_FINISHED
            assert error_message("ru", err.value) == "Архивы игры «live» откроются, когда игра закончится"
            state = await svc.state("live")
            assert state.stage is Stage.RUNNING
            personal = next(i.id for i in state.inboxes.values() if i.kind == "personal")
            with pytest.raises(RuleViolation) as rv:
                await archives.consent("live", state.inboxes[personal].subject or "", personal, True, "c")
            assert rv.value.code is ErrorCode.WRONG_STAGE

    run(go())


def test_a_finished_game_still_refuses_every_other_command(
        backend: DatabaseConfig, game: FinishedGame) -> None:
    from lepromafia.engine import commands as cmd

    async def body(archives: Archives) -> None:
        with pytest.raises(ServiceError) as err:
            await archives.service.execute("g", cmd.PostMessage(
                actor=game.writer, inbox=game.personal, text="после игры"), "late")
        assert err.value.code is ServiceErrorCode.GAME_FINISHED

    with_archives(backend, game, body)


def _row(page: dict[str, Any], inbox: str) -> dict[str, Any]:
    return next(i for i in page["inboxes"] if i["inbox"] == inbox)
