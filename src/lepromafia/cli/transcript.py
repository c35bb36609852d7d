"""A finished game's event log as a readable transcript in the style of the Day Post.

``transcript(events, lang)`` is pure: it keeps only what an anonymous visitor may see
(``visible_to(event, None)``, RULES.md §9) and turns it into titled sections. Secrets
appear only in the closing archive section, built from ``GameEnded`` alone (§9.4,
RANDOM-5). ``render(sections)`` dresses the sections in Rich panels for the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from babel.dates import format_date
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from ..engine import events as ev
from ..engine.calendar import MOSCOW
from ..engine.deal import verify
from ..engine.visibility import visible_to
from ..web.i18n import N_, translate

TALLIES_WITH_VOTERS = 3
"""Leading candidates shown with their counted voters; the rest only with a number."""

# --- words -----------------------------------------------------------------------------

WORDS: dict[str, str] = {
    "game": N_("Game “{title}”"),
    "procurator": N_("Procurator: {user}"),
    "host": N_("{office}: {user}"),
    "office_arbiter": N_("Supreme Arbiter"),
    "office_consigliere": N_("Consigliere"),
    "city": N_("{city}: tribune {tribune}, {count} residents"),
    "sealed": N_("City lists sealed with the notary, published hash: {hash}"),
    "mafia_counts": N_("Mafiosi per city: {counts}"),
    "started": N_("The game starts on {date}."),
    "post": N_("Day Post {day} — {date}"),
    "first_day": N_("First day: no executions; commissars are appointed tonight (START-1, START-2)."),
    "quiet_night": N_("Nobody died last night."),
    "killed": N_("Killed last night:"),
    "death": N_("  {user} ({city}) — {faction}"),
    "yesterday": N_("Yesterday's results:"),
    "executed": N_("  {city}: {user} executed — {faction}"),
    "not_executed": N_("  {city}: no execution ({reason})"),
    "not_executed_plain": N_("  {city}: no execution"),
    "tour": N_("Tonight the mafia of {city} tours."),
    "no_tour": N_("No tour tonight."),
    "decided_list": N_("Decided cities: {cities}"),
    "votes": N_("Day {day}: execution votes"),
    "vote_city": N_("{city} — {count} candidates"),
    "tally": N_("  {candidate}: {votes} “execute” — {voters}"),
    "rest": N_("  others: {items}"),
    "zero": N_("  no votes: {names}"),
    "changed": N_("  changed their mind (“don't execute”), candidate ← voters: {items}"),
    "lot": N_("  tie — lot (seed {seed}) among {names}"),
    "condemned": N_("  ⇒ {user} executed — {faction}"),
    "nobody": N_("  ⇒ nobody executed ({reason})"),
    "court": N_("  before the Supreme Court: {user}, pardon window until {time}"),
    "pardoned": N_("  the Supreme Court pardoned {user} ({pro}:{con})"),
    "upheld": N_("  the Supreme Court did not pardon {user} ({pro}:{con})"),
    "pardoned_no_runner_up": N_("the only candidate was pardoned"),
    "suicide": N_("  {city}: {user} committed suicide — {faction}"),
    "judge_elected": N_("{city}: judge {user} elected"),
    "judge_failed": N_("{city}: the judge election failed"),
    "no_candidates": N_("nobody was nominated"),
    "no_eligible_candidate": N_("no eligible candidate"),
    "night": N_("Night {night}"),
    "night_line": N_("Commissar checks: {opened}–{closed}; mafia decisions fixed at {fixed}."),
    "morning": N_("Morning of day {day}"),
    "city_decided": N_("{city} is decided: {outcome}."),
    "result": N_("The result"),
    "result_fixed": N_("The game's result is fixed (WIN-5)"),
    "days": N_("The game lasted {day} days."),
    "result_line": N_("Result: {outcome}."),
    "score": N_("Score by city:"),
    "score_line": N_("  {city}: {outcome}"),
    "winning_mafia": N_("Winning mafia: {cities} (WIN-2)."),
    "archive": N_("The archives open"),
    "consigliere": N_("Consigliere: {user}"),
    "no_consigliere": N_("There was no Consigliere."),
    "commissars": N_("Commissars: {items}"),
    "no_commissars": N_("There were no commissars."),
    "mafiosi": N_("Mafia of {city}: {names}"),
    "position": N_("{user} (#{n}, {state})"),
    "alive": N_("alive"),
    "dead": N_("dead"),
    "commitment": N_("Published hash of the lists: {hash}"),
    "verified": N_("✓ The sealed lists and salt hash to the published commitment (RANDOM-5)."),
    "mismatch": N_("✗ The sealed lists do NOT match the published commitment!"),
    "mafia": N_("mafia"),
    "honest": N_("honest resident"),
    "o_mafia": N_("the mafia wins"),
    "o_honest": N_("the honest citizens win"),
    "o_draw": N_("a draw"),
    "o_playing": N_("still playing"),
}
"""The transcript's phrases by role: English msgids, translated through the web catalogs."""


def words(lang: str) -> dict[str, str]:
    """``WORDS`` in ``lang``."""
    return {key: translate(lang, msgid) for key, msgid in WORDS.items()}


@dataclass(frozen=True, slots=True)
class Section:
    """One block of the transcript: a Day Post, a day's votes, a night, the archive..."""

    kind: str
    title: str
    lines: tuple[str, ...]


def public_events(events: Iterable[ev.Event]) -> list[ev.Event]:
    """What an anonymous visitor may see (§9), in log order."""
    return [e for e in events if visible_to(e, None)]


def transcript(events: Iterable[ev.Event], lang: str = "ru") -> list[Section]:
    """The public transcript of a game log; secrets only after ``GameEnded``."""
    writer = _Writer(words(lang), lang)
    for event in public_events(events):
        writer.feed(event)
    return writer.finish()


# --- the writer ----------------------------------------------------------------------


@dataclass
class _Open:
    kind: str
    title: str
    lines: list[str] = field(default_factory=list)


class _Writer:
    def __init__(self, words: dict[str, str], lang: str) -> None:
        self.w = words
        self.lang = lang
        self.sections: list[Section] = []
        self.current: _Open | None = None
        self.cities: list[str] = []
        self.day = 0
        self.no_execution: dict[tuple[int, str], str] = {}
        """(day, city) -> why nobody was executed (NoExecution, EXEC-2)."""
        self.morning_deaths: list[ev.ResidentDied] = []
        self.morning_lines: list[str] = []
        self.night_lines: dict[str, datetime] = {}
        self.dead: set[str] = set()
        self.decided: dict[str, str] = {}
        self.result_fixed: ev.GameResultFixed | None = None
        self.pending_result: Section | None = None

    # small helpers
    def t(self, key: str, **fields: object) -> str:
        return self.w[key].format(**fields)

    def faction(self, value: str) -> str:
        return self.w.get(value, value)

    def outcome(self, value: str) -> str:
        return self.w.get(f"o_{value}", value)

    def date(self, at: datetime) -> str:
        return format_date(at.astimezone(MOSCOW).date(), "d MMMM y", locale=self.lang)

    @staticmethod
    def clock(at: datetime) -> str:
        return at.astimezone(MOSCOW).strftime("%H:%M")

    def open(self, kind: str, title: str) -> _Open:
        self.close()
        self.current = _Open(kind, title)
        return self.current

    def close(self) -> None:
        if self.current is not None:
            c = self.current
            self.sections.append(Section(c.kind, c.title, tuple(c.lines)))
            self.current = None

    def add(self, *lines: str) -> None:
        if self.current is None:
            self.open("news", "")
        assert self.current is not None
        self.current.lines.extend(lines)

    def finish(self) -> list[Section]:
        self.flush_morning()
        self.emit_pending_result()
        self.close()
        return self.sections

    def flush_morning(self) -> None:
        """Night deaths and decisions of a morning that got no Day Post (the game ended)."""
        if not self.morning_deaths and not self.morning_lines:
            return
        self.open("post", self.t("morning", day=self.day + 1))
        if self.morning_deaths:
            self.add(self.t("killed"))
            self.add(*(self.t("death", user=d.user, city=d.city, faction=self.faction(d.faction))
                       for d in self.morning_deaths))
        self.add(*self.morning_lines)
        self.morning_deaths, self.morning_lines = [], []
        self.emit_pending_result()

    # the events
    def feed(self, e: ev.Event) -> None:
        handler = getattr(self, f"on_{type(e).__name__}", None)
        if handler is not None:
            handler(e)

    def on_GameCreated(self, e: ev.GameCreated) -> None:
        self.open("intro", self.t("game", title=e.title))
        self.add(self.t("procurator", user=e.procurator))

    def on_HostAppointed(self, e: ev.HostAppointed) -> None:
        # Only public appointments reach here: never the Consigliere's (HOST-CONS-5).
        self.add(self.t("host", office=self.w.get(f"office_{e.office}", e.office), user=e.user))

    def on_CitiesFormed(self, e: ev.CitiesFormed) -> None:
        for spec in e.cities:
            self.cities.append(spec.name)
            self.add(self.t("city", city=spec.name, tribune=spec.tribune, count=len(spec.residents)))

    def on_DealSealed(self, e: ev.DealSealed) -> None:
        self.add(self.t("sealed", hash=e.commitment))

    def on_DealCompleted(self, e: ev.DealCompleted) -> None:
        self.add(self.t("mafia_counts", counts=", ".join(f"{c} {n}" for c, n in e.mafia_counts)))

    def on_GameStarted(self, e: ev.GameStarted) -> None:
        self.add(self.t("started", date=format_date(e.first_day, "d MMMM", locale=self.lang)))

    def on_DayStarted(self, e: ev.DayStarted) -> None:
        self.day = e.day

    def on_DayPostPublished(self, e: ev.DayPostPublished) -> None:
        """POST-2, HOST-PROC-3: night deaths with faction, yesterday, the tour (TOUR-2)."""
        self.morning_deaths = []
        self.open("post", self.t("post", day=e.day, date=self.date(e.at)))
        if e.day == 1:
            self.add(self.t("first_day"))
        elif e.night_deaths:
            self.add(self.t("killed"))
            self.add(*(self.t("death", user=d.user, city=d.city, faction=self.faction(d.faction))
                       for d in e.night_deaths))
        else:
            self.add(self.t("quiet_night"))
        if e.executions or e.no_execution:
            self.add(self.t("yesterday"))
            self.add(*(self.t("executed", city=d.city, user=d.user, faction=self.faction(d.faction))
                       for d in e.executions))
            for city in e.no_execution:
                reason = self.no_execution.get((e.day - 1, city), "")
                self.add(self.t("not_executed", city=city, reason=reason) if reason
                         else self.t("not_executed_plain", city=city))
        self.add(*self.morning_lines)
        self.morning_lines = []
        if e.day > 1:
            self.add(self.t("tour", city=e.touring_city) if e.touring_city else self.t("no_tour"))
        if e.decided:
            names = ", ".join(f"{c} ({self.outcome(o)})" for c, o in e.decided)
            self.add(self.t("decided_list", cities=names))
        self.emit_pending_result()

    def votes_section(self, day: int) -> None:
        title = self.t("votes", day=day)
        if self.current is None or self.current.title != title:
            self.open("votes", title)

    def on_VotingOpened(self, e: ev.VotingOpened) -> None:
        self.votes_section(e.day)

    def on_VotingClosed(self, e: ev.VotingClosed) -> None:
        """EXEC-9, EXEC-10, EXEC-14: tallies with counted voters, mind changes, the lot."""
        self.votes_section(e.day)
        self.add(self.t("vote_city", city=e.city, count=len(e.tallies)))
        place = {c: i for i, c in enumerate(e.ranking)}
        ranked = sorted(e.tallies, key=lambda t: (place.get(t.candidate, len(place)), -t.votes))
        voted = [t for t in ranked if t.votes]
        for tally in voted[:TALLIES_WITH_VOTERS]:
            self.add(self.t("tally", candidate=tally.candidate, votes=tally.votes,
                            voters=", ".join(tally.voters)))
        if voted[TALLIES_WITH_VOTERS:]:
            rest = ", ".join(f"{t.candidate} {t.votes}" for t in voted[TALLIES_WITH_VOTERS:])
            self.add(self.t("rest", items=rest))
        zero = [t.candidate for t in ranked if not t.votes]
        if zero:
            self.add(self.t("zero", names=", ".join(zero)))
        changed = [f"{t.candidate} ← {', '.join(t.changed_minds)}" for t in ranked if t.changed_minds]
        if changed:
            self.add(self.t("changed", items="; ".join(changed)))
        if e.lot:
            self.add(self.t("lot", seed=e.lot_seed, names=", ".join(e.lot)))

    def on_NoExecution(self, e: ev.NoExecution) -> None:
        reason = self.w.get(e.reason, e.reason)
        if e.reason == "no_candidates":
            self.votes_section(e.day)
            self.add(self.t("vote_city", city=e.city, count=0))
        self.add(self.t("nobody", reason=reason))
        self.no_execution[(e.day, e.city)] = reason

    def on_PardonWindowOpened(self, e: ev.PardonWindowOpened) -> None:
        """COURT-4: the condemned before the Court."""
        self.add(self.t("court", user=e.candidate, time=self.clock(e.closes_at)))

    def on_VerdictReached(self, e: ev.VerdictReached) -> None:
        """COURT-7, EXEC-16: the verdict, public at once."""
        key = "pardoned" if e.pardoned else "upheld"
        self.add(self.t(key, user=e.candidate, pro=e.pardon_votes, con=e.no_pardon_votes))

    def on_JudgeElectionClosed(self, e: ev.JudgeElectionClosed) -> None:
        """JUDGE-ELECT-15: the result of a judge election."""
        if e.elected:
            self.add(self.t("judge_elected", city=e.city, user=e.elected))
        else:
            self.add(self.t("judge_failed", city=e.city))

    def on_ResidentDied(self, e: ev.ResidentDied) -> None:
        self.dead.add(e.user)
        faction = self.faction(e.faction)
        if e.cause == "suicide":
            self.add(self.t("suicide", city=e.city, user=e.user, faction=faction))
        elif e.cause == "execution":
            self.add(self.t("condemned", user=e.user, faction=faction))
        else:  # night deaths are published with the next Day Post (SEC-8)
            self.morning_deaths.append(e)

    def on_CityDecided(self, e: ev.CityDecided) -> None:
        self.decided[e.city] = e.outcome
        line = self.t("city_decided", city=e.city, outcome=self.outcome(e.outcome))
        if self.morning_deaths or (self.current and self.current.kind == "night"):
            self.morning_lines.append(line)
        else:
            self.add(line)

    def on_NightStarted(self, e: ev.NightStarted) -> None:
        self.emit_pending_result()
        self.open("night", self.t("night", night=e.night))
        self.night_lines = {}

    def on_ChecksOpened(self, e: ev.ChecksOpened) -> None:
        self.night_lines["opened"] = e.at

    def on_ChecksClosed(self, e: ev.ChecksClosed) -> None:
        self.night_lines["closed"] = e.at

    def on_DecisionsClosed(self, e: ev.DecisionsClosed) -> None:
        n = self.night_lines
        if "opened" in n and "closed" in n:
            self.add(self.t("night_line", opened=self.clock(n["opened"]), closed=self.clock(n["closed"]),
                            fixed=self.clock(e.at)))

    def on_GameResultFixed(self, e: ev.GameResultFixed) -> None:
        """WIN-1..5: the overall result, fixed as soon as it cannot change; play goes on."""
        self.result_fixed = e
        lines = [self.t("result_line", outcome=self.outcome(e.result)), self.t("score")]
        lines += [self.t("score_line", city=c, outcome=self.outcome(o)) for c, o in e.score]
        if e.winning_mafia:
            lines.append(self.t("winning_mafia", cities=", ".join(e.winning_mafia)))
        self.pending_result = Section("result", self.t("result_fixed"), tuple(lines))

    def emit_pending_result(self) -> None:
        if self.pending_result is not None:
            self.close()
            self.sections.append(self.pending_result)
            self.pending_result = None

    def on_GameEnded(self, e: ev.GameEnded) -> None:
        """§9.4, HOST-CONS-5, RANDOM-5: the secrets open only now."""
        self.pending_result = None  # the closing result below repeats it
        self.flush_morning()
        self.open("result", self.t("result"))
        self.add(self.t("result_line", outcome=self.outcome(e.result)), self.t("score"))
        self.add(*(self.t("score_line", city=c, outcome=self.outcome(o))
                   for c, o in sorted(self.decided.items(), key=self.city_order)))
        if self.result_fixed and self.result_fixed.winning_mafia:
            self.add(self.t("winning_mafia", cities=", ".join(self.result_fixed.winning_mafia)))
        self.add(self.t("days", day=self.day))
        self.open("archive", self.t("archive"))
        self.add(self.t("consigliere", user=e.consigliere) if e.consigliere else self.t("no_consigliere"))
        if e.commissars:
            self.add(self.t("commissars", items=", ".join(f"{c} — {u}" for c, u in e.commissars)))
        else:
            self.add(self.t("no_commissars"))
        self.add(*self.mafia_lines(e))
        lists = {city: users for city, users in e.deal_lists}
        self.add(self.t("commitment", hash=e.commitment))
        ok = e.commitment is not None and verify(lists, e.deal_salt, e.commitment)
        self.add(self.t("verified") if ok else self.t("mismatch"))

    def city_order(self, item: tuple[str, str]) -> int:
        return self.cities.index(item[0]) if item[0] in self.cities else len(self.cities)

    def mafia_lines(self, e: ev.GameEnded) -> list[str]:
        """Each city's mafiosi with their number in the sealed list (RANDOM-4)."""
        mafia = {u for u, f in e.factions if f == "mafia"}
        dead = self.dead
        lines = []
        for city, order in e.deal_lists:
            names = [
                self.t("position", user=u, n=i,
                       state=self.w["dead"] if u in dead else self.w["alive"])
                for i, u in enumerate(order, start=1) if u in mafia
            ]
            lines.append(self.t("mafiosi", city=city, names=", ".join(names)))
        return lines



_STYLES = {
    "intro": "cyan",
    "post": "bold yellow",
    "votes": "blue",
    "night": "dim",
    "result": "bold magenta",
    "archive": "bold green",
}


def render(sections: Sequence[Section], lang: str = "ru") -> list[RenderableType]:
    """Rich panels, one per section; factions coloured."""
    w = words(lang)
    out: list[RenderableType] = []
    for s in sections:
        body = Text("\n".join(s.lines))
        body.highlight_words([w["mafia"]], "bold red")
        body.highlight_words([w["honest"]], "green")
        body.highlight_words(["⇒"], "bold")
        style = _STYLES.get(s.kind, "white")
        if s.kind == "night":
            out.append(Text(f"— {s.title}: " + " ".join(s.lines), style="dim"))
            continue
        out.append(Panel(Group(body), title=s.title, title_align="left", border_style=style))
    return out
