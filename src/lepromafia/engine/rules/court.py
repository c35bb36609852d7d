"""The Supreme Court: its inbox and pardons (COURT, INBOX-COURT, EXEC-15, EXEC-16)."""

from __future__ import annotations

from datetime import timedelta

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..errors import N_, ErrorCode, check
from ..inboxes import Kind, readers
from ..progress import Progress
from ..state import GameState, Stage
from .common import archive_inbox, open_inbox, schedule


def sitting_judges(s: GameState) -> set[str]:
    """COURT-3 (AMB-5): judges of undecided cities (unless decided_city_judge = keeps_seat)."""
    if not s.has_court:
        return set()
    keeps = s.settings.decided_city_judge == "keeps_seat"
    return {
        c.judge for c in s.cities.values()
        if c.judge and s.residents[c.judge].alive and (keeps or c.decided is None)
    }


def refresh_court(p: Progress) -> None:
    """INBOX-COURT-4: whenever a judge changes, a new Court inbox with the current judges;
    everyone is banned in the previous one, and a new judge never sees earlier ones."""
    s = p.state
    if not s.has_court:
        return
    judges = frozenset(sitting_judges(s))
    current = s.current_inbox(Kind.COURT.value)
    if current is not None and s.inboxes[current].members == judges:
        return
    if current is None and not judges:
        return
    generation = 0
    if current is not None:
        generation = s.inboxes[current].generation + 1
        archive_inbox(p, current)
    open_inbox(p, Kind.COURT, "", members=judges, generation=generation)


def court_audience(s: GameState) -> frozenset[str]:
    current = s.current_inbox(Kind.COURT.value)
    return readers(s, current) if current else frozenset({s.arbiter} if s.arbiter else ())


def pardon_possible(s: GameState, city: str) -> bool:
    """COURT-1, COURT-8: a Court with sitting judges, and pardons left today (AMB-5)."""
    c = s.cities[city]
    return bool(sitting_judges(s)) and c.pardons_today < s.settings.pardons_per_city_per_day


def open_window(p: Progress, city: str, candidate: str, ranking: tuple[str, ...]) -> None:
    """COURT-4 (AMB-6): 30 minutes from the posting of the results in the Court inbox."""
    closes = p.now + timedelta(minutes=p.state.settings.pardon_window_minutes)
    p.emit(ev.PardonWindowOpened, PUBLIC, city=city, day=p.state.day, candidate=candidate,
           ranking=ranking, closes_at=closes)
    schedule(p, f"pardon_close:{city}:{p.state.day}:{p.state.cities[city].pardons_today}", closes)


def choose_preset(p: Progress, c: cmd.ChoosePardonPreset) -> None:
    """COURT-5: the Arbiter sets the Court's voting rules before the first pardon vote."""
    s = p.state
    check(c.actor == s.arbiter, ErrorCode.NOT_ARBITER, "COURT-5")
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    check(c.majority in ("of_sitting", "of_votes_cast"), ErrorCode.INVALID_SETTINGS, "COURT-5",
          detail=N_("choose one of the offered majorities"))
    check(not s.pardon_votes_held, ErrorCode.TOO_LATE, "COURT-5")
    p.emit(ev.PardonPresetChosen, only(court_audience(s), s.arbiter), majority=c.majority)


def counts(s: GameState, city: str) -> tuple[int, int, int]:
    """(pardon votes, no-pardon votes, sitting judges) for the city's pending verdict."""
    verdict = s.cities[city].verdict
    assert verdict is not None
    judges = sitting_judges(s)
    votes = {j: v for j, v in verdict.votes.items() if j in judges}
    pardons = sum(1 for v in votes.values() if v)
    return pardons, len(votes) - pardons, len(judges)


def early_outcome(s: GameState, city: str) -> bool | None:
    """AMB-5: final early once a majority is reached, or can no longer be."""
    pardons, refusals, sitting = counts(s, city)
    if s.settings.pardon_majority == "of_votes_cast":
        if pardons + refusals < sitting:
            return None
        return 2 * pardons > pardons + refusals
    if 2 * pardons > sitting:
        return True
    if 2 * (sitting - refusals) <= sitting:
        return False
    return None


def pardoned_at_close(s: GameState, city: str) -> bool:
    """COURT-4: at the window's end abstentions count as 'no pardon'."""
    pardons, refusals, sitting = counts(s, city)
    if s.settings.pardon_majority == "of_votes_cast":
        return 2 * pardons > pardons + refusals
    return 2 * pardons > sitting
