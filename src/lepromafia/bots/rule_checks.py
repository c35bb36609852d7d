"""Invariants of the full rule set (engine II), checked event by event over a whole log.

``RuleTracker`` remembers what a single event cannot show (who was removed when, which
nights had ambushes, which cities are restoring, pardons granted) and names every
breach of: JUDGE-4, JUDGE-6/TOUR-4, AMBUSH-11, JUDGE-REMOVE-8, SPIRIT-4/5/7, COURT-3
(one pardon per city per day), COURT-8, INBOX-COURT-1/4, RESTORE-7, MAFIA-DISCLOSE-1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import events as ev
from ..engine.events import Event
from ..engine.inboxes import Kind
from ..engine.rules.court import sitting_judges
from ..engine.state import GameState


def _paused(s: GameState, city: str) -> bool:
    """RESTORE-7: from the restoration until the next day starts."""
    c = s.cities.get(city)
    return c is not None and c.restoration is not None and c.restoration.began_day is not None


@dataclass
class RuleTracker:
    removed: dict[tuple[str, str], int] = field(default_factory=dict)
    """(city, judge) -> day of removal (JUDGE-REMOVE-8)."""
    ambushed: set[tuple[str, int]] = field(default_factory=set)
    """(city, night) on which the city's mafia stood in ambush (AMBUSH-11)."""
    pardons: dict[tuple[str, int], int] = field(default_factory=dict)
    judges_at_vote: dict[tuple[str, int], str | None] = field(default_factory=dict)
    """(city, day) -> the sitting judge when the execution vote opened (JUDGE-4)."""

    def before(self, s: GameState, e: Event) -> list[str]:
        """Breaches ``e`` commits in state ``s`` (the state before it)."""
        problems: list[str] = []
        if isinstance(e, ev.NominationMade):
            city = s.cities[e.city]
            if e.candidate == city.judge:
                problems.append(f"sitting judge {e.candidate} nominated (JUDGE-4)")
            if e.nominator in city.spirits:
                problems.append(f"Spirit {e.nominator} nominated (SPIRIT-4)")
            if e.candidate in city.spirits:
                problems.append(f"Spirit {e.candidate} was nominated (SPIRIT-4)")
            if e.candidate in city.immune:
                problems.append(f"disclosed {e.candidate} nominated on his immunity day (MAFIA-DISCLOSE-1)")
            if _paused(s, e.city):
                problems.append(f"a nomination in restoring {e.city} (RESTORE-7)")
        elif isinstance(e, ev.VotingOpened):
            judge = s.cities[e.city].judge
            self.judges_at_vote[(e.city, e.day)] = judge
            if judge in e.candidates:
                problems.append(f"sitting judge {judge} stands for execution (JUDGE-4)")
            if _paused(s, e.city):
                problems.append(f"an execution vote in restoring {e.city} (RESTORE-7)")
        elif isinstance(e, ev.VoteCast):
            r = s.residents[e.voter]
            if not r.alive and e.voter not in s.cities[e.city].spirits:
                problems.append(f"dead {e.voter} voted, not a Spirit today (SPIRIT-5)")
        elif isinstance(e, ev.ResidentDied):
            problems.extend(self._death(s, e))
        elif isinstance(e, ev.NightDecisionFixed):
            problems.extend(self._decision(s, e))
        elif isinstance(e, ev.TourAnnounced):
            if e.city is not None and _paused(s, e.city):
                problems.append(f"restoring {e.city} tours (RESTORE-7)")
        elif isinstance(e, ev.CheckAnswered):
            if _paused(s, e.city):
                problems.append(f"a check in restoring {e.city} (RESTORE-7)")
        elif isinstance(e, ev.AmbushesFixed):
            if e.ambushes:
                self.ambushed.add((e.city, e.night))
        elif isinstance(e, ev.JudgeRemoved):
            self.removed[(e.city, e.judge)] = s.day
        elif isinstance(e, ev.JudgeProposed | ev.JudgeElectionClosed | ev.PollingOpened):
            problems.extend(self._election(s, e))
        elif isinstance(e, ev.JudgeVoteCast):
            if not s.residents[e.voter].alive:
                problems.append(f"dead {e.voter} voted for a judge (INBOX-POLL-1, SPIRIT-7)")
        elif isinstance(e, ev.PetitionFiled | ev.PetitionConfirmed | ev.ObserverJoined):
            user = e.organizer if isinstance(e, ev.PetitionFiled) else e.user
            if not s.residents[user].alive:
                problems.append(f"dead {user} {type(e).__name__} (ROLE-DEAD-3, SPIRIT-7)")
        elif isinstance(e, ev.PardonVoteCast):
            if e.judge not in sitting_judges(s):
                problems.append(f"{e.judge} voted a pardon without a seat (COURT-8)")
        elif isinstance(e, ev.VerdictReached) and e.pardoned:
            key = (e.city, s.day)
            self.pardons[key] = self.pardons.get(key, 0) + 1
            if self.pardons[key] > s.settings.pardons_per_city_per_day:
                problems.append(f"a second pardon in {e.city} on day {s.day} (COURT-3)")
        return problems

    def _death(self, s: GameState, e: ev.ResidentDied) -> list[str]:
        problems: list[str] = []
        city = s.cities[e.city]
        if e.cause == "execution":
            # JUDGE-4 bars the judge of the vote's opening; one elected while condemned
            # is a gap in the rules (reported; docs/decisions.md).
            if e.user == city.judge and self.judges_at_vote.get((e.city, s.day)) == e.user:
                problems.append(f"sitting judge {e.user} executed (JUDGE-4)")
            if _paused(s, e.city):
                problems.append(f"an execution in restoring {e.city} (RESTORE-7)")
        if e.cause == "night_kill" and e.user == city.judge:
            killers = {k for v, k in s.pending_kills if v == e.user}
            if killers - {e.city}:
                problems.append(f"touring mafia killed judge {e.user} (TOUR-4, JUDGE-6)")
            if e.city in killers and (e.city, s.day) in self.ambushed:  # before DayStarted: day = night
                problems.append(f"judge {e.user} killed on an ambush night (AMBUSH-11)")
        return problems

    def _decision(self, s: GameState, e: ev.NightDecisionFixed) -> list[str]:
        problems: list[str] = []
        if _paused(s, e.city):
            problems.append(f"a night decision in restoring {e.city} (RESTORE-7)")
        if e.target is None:
            return problems
        home = s.residents[e.target].city
        if _paused(s, home):
            problems.append(f"a kill in restoring {home} (RESTORE-7)")
        judge = s.cities[home].judge
        if e.tour and e.target == judge:
            problems.append(f"a touring kill of judge {judge} (TOUR-4)")
        if not e.tour and e.target == judge and s.cities[e.city].ambushes:
            problems.append(f"judge {judge} killed on an ambush night (AMBUSH-11)")
        return problems

    def _election(self, s: GameState, e: Event) -> list[str]:
        who: tuple[str, ...]
        if isinstance(e, ev.JudgeProposed):
            city, who = e.city, (e.candidate,)
            if e.proposer in s.cities[city].spirits:
                return [f"Spirit {e.proposer} proposed a judge (SPIRIT-7)"]
        elif isinstance(e, ev.PollingOpened):
            city, who = e.city, e.candidates
        else:
            assert isinstance(e, ev.JudgeElectionClosed)
            city, who = e.city, (e.elected,) if e.elected else ()
        window = s.settings.removed_judge_ineligible_days
        return [
            f"{user}, removed on day {self.removed[(city, user)]}, stands on day {s.day} (JUDGE-REMOVE-8)"
            for user in who
            if (city, user) in self.removed and s.day <= self.removed[(city, user)] + window
        ]


def court_problems(s: GameState) -> list[str]:
    """INBOX-COURT-1, -4: the live Court inbox holds exactly the sitting judges."""
    if s.stage.value != "running":
        return []
    judges = frozenset(sitting_judges(s))
    current = s.current_inbox(Kind.COURT.value)
    if current is None:
        return [f"no Court inbox for judges {sorted(judges)} (INBOX-COURT-4)"] if judges else []
    members = s.inboxes[current].members
    if members != judges:
        return [f"Court inbox members {sorted(members)} are not the sitting judges {sorted(judges)} "
                "(INBOX-COURT-1)"]
    return []
