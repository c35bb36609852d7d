"""Bots for judges and the Supreme Court: elections, pardons, removal petitions, recusal
(JUDGE, JUDGE-ELECT, JUDGE-REMOVE, JUDGE-RECUSE, COURT), with the illegal probes."""

from __future__ import annotations

from datetime import datetime, timedelta

from ..engine import commands as cmd
from ..engine import events as ev
from ..engine.inboxes import Kind, live_inbox
from ..engine.table import Table
from .base import HOUR, MINUTE, BotBase

GANDHI, HITLER = "Он — Ганди!", "Он — Гитлер!"


class JudgeMoves(BotBase):
    rescheduled: set[tuple[str, int]]

    def on_election_scheduled(self, table: Table, e: ev.JudgeElectionScheduled, now: datetime) -> None:
        if not hasattr(self, "rescheduled"):
            self.rescheduled = set()
        if (e.city, e.number) not in self.rescheduled and self.chance(0.1):
            self.rescheduled.add((e.city, e.number))
            if self.reschedule(table, e, now):
                return  # the new announcement brings the proposals
        self.propose_judges(table, e.city, now)

    def reschedule(self, table: Table, e: ev.JudgeElectionScheduled, now: datetime) -> bool:
        """JUDGE-ELECT-4, TIME-5: the Arbiter moves the polls, with the notice the rules ask."""
        s = table.game
        if not s.arbiter or s.day not in s.plans:
            return False
        opens = e.opens_at + timedelta(minutes=self.rng.choice((15, 30, 60)))
        closes = min(opens + timedelta(hours=self.rng.choice((1, 2))), s.plans[s.day].scheduled_end)
        if closes <= opens:
            return False
        return bool(self.try_do(table, cmd.ScheduleJudgeElection(
            actor=s.arbiter, city=e.city, opens_at=opens, closes_at=closes), now))

    def propose_judges(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        living = s.living(city)
        for user in living:
            if self.chance(0.3):
                self.try_do(table, cmd.ProposeJudge(actor=user, candidate=self.rng.choice(living)), now)
        election = table.game.cities[city].election
        if election is None:
            return
        for candidate in sorted(set(election.proposals.values())):
            if self.chance(0.1):  # JUDGE-ELECT-2 (AMB-9)
                self.try_do(table, cmd.DeclineCandidacy(actor=candidate), now + MINUTE)
        candidates = sorted(set(election.proposals.values()))
        for user in living:
            if candidates and self.chance(0.05):  # JUDGE-ELECT-9 (AMB-10)
                self.try_do(table, cmd.RequestJudgeProxy(
                    actor=user, candidate=self.rng.choice(candidates), in_favour=self.chance(0.7)),
                    now + 2 * MINUTE)
        self.probe_removed_judge(table, city, now + 3 * MINUTE)
        self.probe_spirit_proposing(table, city, now + 3 * MINUTE)

    def probe_removed_judge(self, table: Table, city: str, now: datetime) -> None:
        """Illegal: a judge removed within two days proposed again (JUDGE-REMOVE-8)."""
        s = table.game
        c = s.cities[city]
        window = s.settings.removed_judge_ineligible_days
        recent = [u for u, day in c.removed_on.items() if s.day <= day + window and s.residents[u].alive]
        living = s.living(city)
        if recent and living and self.naughty():
            self.try_illegal(table, cmd.ProposeJudge(actor=self.rng.choice(living),
                                                     candidate=recent[0]), now)

    def probe_spirit_proposing(self, table: Table, city: str, now: datetime) -> None:
        """Illegal: a Spirit has no polling rights (SPIRIT-7)."""
        s = table.game
        living = s.living(city)
        spirits = sorted(s.cities[city].spirits)
        if spirits and living and self.naughty():
            self.try_illegal(table, cmd.ProposeJudge(actor=spirits[0], candidate=living[0]), now)

    def vote_judges(self, table: Table, city: str, candidates: tuple[str, ...], now: datetime) -> None:
        s = table.game
        for voter in s.living(city):
            if self.rng.random() > self.activity:
                continue
            candidate = self.rng.choice(candidates)
            inbox = live_inbox(s, Kind.POLLING, city, candidate)
            if inbox:
                text = GANDHI if self.chance(0.7) else HITLER
                if self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text=text), now) \
                        and self.naughty():  # JUDGE-ELECT-6: irrevocable, once per station
                    again = HITLER if text == GANDHI else GANDHI
                    self.try_illegal(table, cmd.PostMessage(actor=voter, inbox=inbox, text=again),
                                     now + MINUTE)

    def vote_pardons(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        judges = sorted(c.judge for c in s.cities.values() if c.judge and c.decided is None)
        for judge in judges:
            if s.residents[judge].alive and self.rng.random() < self.activity:
                self.try_do(table, cmd.VotePardon(actor=judge, city=city, pardon=self.chance(0.3)), now)
        if s.arbiter and self.naughty():  # COURT-6: the Arbiter does not vote
            self.try_illegal(table, cmd.VotePardon(actor=s.arbiter, city=city, pardon=True), now)

    def choose_preset(self, table: Table, now: datetime) -> None:
        """COURT-5: now and then the Arbiter picks the votes-cast preset before any vote."""
        s = table.game
        if s.has_court and s.arbiter and self.chance(0.2):
            self.try_do(table, cmd.ChoosePardonPreset(actor=s.arbiter, majority="of_votes_cast"), now)

    def judge_day(self, table: Table, city: str, now: datetime) -> None:
        """Day 2+: petitions with confirmations, a rare recusal, the JUDGE-4 probe."""
        s = table.game
        c = s.cities[city]
        if c.judge is None or not s.residents[c.judge].alive:
            return
        living = [u for u in s.living(city) if u != c.judge]
        if living and self.naughty():  # JUDGE-4: a sitting judge is immune
            self.try_illegal(table, cmd.Nominate(actor=self.rng.choice(living), candidate=c.judge), now)
        if self.chance(0.03):
            self.try_do(table, cmd.Recuse(actor=c.judge), now + 5 * MINUTE)
            return
        if living and self.chance(0.2):
            self.petition(table, city, living, now + 10 * MINUTE)

    def petition(self, table: Table, city: str, living: list[str], now: datetime) -> None:
        """JUDGE-REMOVE-1, -2: an organizer and a random number of confirmations."""
        organizer = self.rng.choice(living)
        if not self.try_do(table, cmd.FilePetition(actor=organizer), now):
            return
        others = [u for u in living if u != organizer]
        self.rng.shuffle(others)
        wanted = self.rng.randint(0, min(len(others), 5))
        for i, user in enumerate(others[:wanted]):
            self.try_do(table, cmd.ConfirmPetition(actor=user), now + (i + 1) * MINUTE)
            if table.game.cities[city].petition is None:
                break  # the judge is gone
        petition = table.game.cities[city].petition
        if petition is not None and self.naughty():  # JUDGE-REMOVE-2: one confirmation each
            self.try_illegal(table, cmd.ConfirmPetition(actor=organizer), now + HOUR)
