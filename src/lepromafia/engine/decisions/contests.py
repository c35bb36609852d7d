"""HOST-PROC-5, POST-2, AMB-42: the Procurator's charades and contests, carried in the Day Post,
and the record of who took part."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..audience import PUBLIC
from ..commands import Command
from ..decision import AuditLine, host_decision
from ..errors import N_, ErrorCode, check
from ..events_host import HostDecision
from ..progress import Progress
from ..records import Contest
from ..rules.common import require_procurator, require_running
from ..rules.host import MAX_TITLE, text_of
from ..state import GameState, Stage

_C = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_C)
class PublishContest(Command):
    """HOST-PROC-5: a charade or contest, published in today's Day Post."""

    title: str
    text: str


@dataclass(**_C)
class ContestPublished(HostDecision):
    """HOST-PROC-5, POST-2: carried in the Day Post of ``day``."""

    contest: int
    day: int
    title: str
    text: str


def _published(state: GameState, e: ContestPublished) -> GameState:
    contest = Contest(number=e.contest, day=e.day, title=e.title)
    return replace(state, records=replace(state.records, contests=(*state.records.contests, contest)))


@host_decision(
    "publish_contest", office="procurator", command=PublishContest, event=ContestPublished,
    rule="HOST-PROC-5", title=N_("Charades and contests"),
    explain=N_("A charade or contest appears under today's Day Post."), evolve=_published,
    labels={"title": N_("Title"), "text": N_("Text")}, limits={"title": MAX_TITLE, "text": 20000},
    audit=AuditLine("day_post", N_("Published the contest «{title}» for Day {day}"),
                    lambda e: {"title": e.title, "day": e.day}),
    bespoke_form=True)
def publish_contest(p: Progress, c: PublishContest) -> None:
    s = p.state
    require_procurator(s, c.actor)
    require_running(s)
    title = text_of(s, c.title, limit=MAX_TITLE)
    text = text_of(s, c.text)
    p.emit(ContestPublished, PUBLIC, host=c.actor, rule="HOST-PROC-5", reason="",
           contest=len(s.records.contests) + 1, day=s.day, title=title, text=text)


@dataclass(**_C)
class RecordContestResults(Command):
    contest: int
    participants: tuple[str, ...]
    results: str
    consequences: str = ""


@dataclass(**_C)
class ContestResultsRecorded(HostDecision):
    """AMB-42: participation recorded; consequences are the Procurator's words, not a rule."""

    contest: int
    participants: tuple[str, ...]
    absent: tuple[str, ...]
    results: str
    consequences: str


def _results(state: GameState, e: ContestResultsRecorded) -> GameState:
    contests = tuple(replace(x, results_recorded=True) if x.number == e.contest else x
                     for x in state.records.contests)
    return replace(state, records=replace(state.records, contests=contests))


@host_decision(
    "contest_results", office="procurator", command=RecordContestResults,
    event=ContestResultsRecorded, rule="AMB-42", title=N_("Contest results"),
    explain=N_("Record who took part and the results; no penalty follows by itself."),
    evolve=_results,
    labels={"contest": N_("Contest"), "participants": N_("Participants"), "results": N_("Results"),
            "consequences": N_("Consequences")},
    limits={"results": 20000},
    audit=AuditLine("day_post", N_("Recorded the results of contest {contest}: {present} took part, "
                                   "{absent} did not"),
                    lambda e: {"contest": e.contest, "present": len(e.participants),
                               "absent": len(e.absent)}),
    bespoke_form=True)
def record_contest_results(p: Progress, c: RecordContestResults) -> None:
    """AMB-42: participation is recorded; no automatic penalty follows."""
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    contest = next((x for x in s.records.contests if x.number == c.contest), None)
    check(contest is not None, ErrorCode.UNKNOWN_RECORD)
    assert contest is not None
    check(not contest.results_recorded, ErrorCode.ALREADY_DECIDED, "HOST-PROC-5")
    participants = tuple(dict.fromkeys(c.participants))
    for user in participants:
        check(user in s.residents, ErrorCode.NOT_A_PARTICIPANT, "HOST-PROC-5", user=user)
    living = [u for name in s.cities for u in s.living(name)]
    absent = tuple(u for u in living if u not in participants)
    p.emit(ContestResultsRecorded, PUBLIC, host=c.actor, rule="AMB-42", reason="",
           contest=c.contest, participants=participants, absent=absent,
           results=text_of(s, c.results), consequences=text_of(s, c.consequences, required=False))
