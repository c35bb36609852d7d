# ruff: noqa: E501 - the description table reads best one entry per line
"""The hosts' audit log (§9.1 p.4, issue 12): every host decision the event log records, as
typed rows, per host and for the Procurator over all hosts.

A row is built from one event the viewer may see (``outbound.visible``, the one audience
filter) and from nothing else but the command that caused it: who issued it (the store's
``audit_log`` of host commands) or, for a step the platform takes on an office's behalf
(the Day Post, a default vote schedule, an offer that lapses), "the platform". Its words
come only from the event's own fields, so a row can never say more than the event it
describes. Contact reads (SEC-13) come from the account store's access log.

Who reads what: the Procurator every host's rows he may see; every other host his own rows,
the platform's steps for his office, and (a Tribune) what a stand-in did for his city.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from ..engine import events as ev
from ..engine.calendar import MOSCOW
from ..engine.decision import DECISIONS, AuditLine, Decision
from ..engine.errors import N_, CodedError, CodeEnum
from ..engine.events import Event
from ..engine.state import GameState
from ..store.event_store import HostCommandRow
from .outbound import visible

PLATFORM = "platform"
OFFICES = ("procurator", "tribune", "arbiter", "consigliere")

KINDS: dict[str, str] = {
    "appointment": N_("Appointments"),
    "setup": N_("Cities, the deal and the start"),
    "calendar": N_("Calendar"),
    "vote": N_("Vote schedules"),
    "day_post": N_("Day Posts and contests"),
    "commissar": N_("Commissar offers"),
    "court": N_("Court and judge elections"),
    "disclosure": N_("Disclosures"),
    "sanction": N_("Sanctions and bans"),
    "case": N_("Impeachments, complaints and cases"),
    "delegation": N_("Delegations"),
    "mafia": N_("The mafia's rules"),
    "relay": N_("Relays between mafias"),
    "sound": N_("Sound Library"),
    "restoration": N_("Restorations"),
    "discussion": N_("Comments"),
    "record": N_("Sealed records"),
    "contact": N_("Contact reads"),
}
"""Each row's kind (the filter's choices) and its words (English msgids)."""

WORDS = (
    N_("a majority of the sitting judges"), N_("a majority of the votes cast"),
    N_("plurality"), N_("majority"), N_("unanimity"), N_("no kill"),
    N_("replace the Tribune"), N_("a bonus to the initiators"), N_("unfounded"),
    N_("insignificant (the reasons stay sealed)"), N_("confrontation"), N_("interrogation"),
    N_("last word"), N_("séance"), N_("for life"),
)
"""Values the rows carry as words (fields named in ``AuditText.words``): declared for the extractor."""

_TERM_WORDS = {
    "of_sitting": "a majority of the sitting judges", "of_votes_cast": "a majority of the votes cast",
    "no_kill": "no kill", "replace": "replace the Tribune", "bonus": "a bonus to the initiators",
    "insignificant": "insignificant (the reasons stay sealed)", "last_word": "last word",
    "seance": "séance",
}


class AuditErrorCode(CodeEnum):
    NOT_A_HOST = "audit_not_a_host", 403, N_("Only the game's hosts keep an audit log; you hold no host office in this game")
    BAD_FILTER = "audit_bad_filter", 422, N_("There is no such choice for «{field}» in this game")


class AuditError(CodedError):
    code: AuditErrorCode

    def __init__(self, code: AuditErrorCode, **fields: Any) -> None:
        super().__init__(code, "", **fields)


@dataclass(frozen=True)
class AuditText:
    """A sentence to translate: an English msgid and its fields. Fields named in ``words``
    are msgids themselves; those named in ``inboxes`` are inbox ids (the page names them)."""

    msgid: str
    fields: tuple[tuple[str, str], ...] = ()
    words: tuple[str, ...] = ()
    inboxes: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuditRow:
    number: int
    """The row's place in the viewer's log (1, 2, 3, …): never the game's global seq."""
    at: datetime
    """Moscow time."""
    office: str
    """The office it was done as (``OFFICES``), whoever did it."""
    person: str | None
    """Who did it; None when the platform took the step on the office's behalf."""
    stand_in: bool
    """A Tribune's act done by his stand-in (HOST-TRIB-2)."""
    city: str | None
    day: int
    """The game day (0 before Day 1); at night, the night's number."""
    night: bool
    kind: str
    what: AuditText
    rule: str
    note: str = ""
    """The host's own words (the decision's reason), as the event carries them."""


@dataclass(frozen=True)
class AuditFilter:
    day: int | None = None
    city: str | None = None
    kind: str | None = None


@dataclass(frozen=True)
class AuditView:
    rows: tuple[AuditRow, ...]
    total: int
    """Rows before the filter."""
    days: tuple[int, ...]
    cities: tuple[str, ...]
    kinds: tuple[str, ...]
    procurator: bool
    """The viewer reads all hosts' rows (else only his own)."""


# --- the description table ------------------------------------------------------------


def hhmm(moment: datetime) -> str:
    return moment.astimezone(MOSCOW).strftime("%d.%m %H:%M")


def ddmm(day: date | None) -> str:
    return day.strftime("%d.%m.%Y") if day else ""


def _t(msgid: str, *, words: tuple[str, ...] = (), inboxes: tuple[str, ...] = (), **fields: Any) -> AuditText:
    return AuditText(msgid, tuple((k, str(v)) for k, v in fields.items()), words, inboxes)


def _word(value: str) -> str:
    return _TERM_WORDS.get(value, value)


@dataclass(frozen=True)
class Entry:
    kind: str
    office: str | None
    """None: the office the person held when he did it (a signature)."""
    rule: str | Callable[[Any], str]
    describe: Callable[[Any], AuditText]
    platform: bool = False
    """The platform may take this step on the office's behalf (rows with no person)."""
    when: Callable[[Any], bool] = field(default=lambda e: True)


def _offer_outcome(e: ev.CommissarOfferResolved) -> AuditText:
    if e.lapsed:
        return _t(N_("Offer {attempt} in {city} lapsed and counts as a refusal"), attempt=e.attempt, city=e.city)
    if e.accepted:
        return _t(N_("Offer {attempt} in {city} was accepted"), attempt=e.attempt, city=e.city)
    return _t(N_("Offer {attempt} in {city} was refused"), attempt=e.attempt, city=e.city)







def _check(e: ev.CheckAnswered) -> AuditText:
    if e.is_mafia:
        return _t(N_("Answered the check in {city}: {target} is a mafioso"), city=e.city, target=e.target)
    return _t(N_("Answered the check in {city}: {target} is not a mafioso"), city=e.city, target=e.target)


OFFICE_WORDS = {"procurator": N_("Procurator"), "tribune": N_("Tribune"),
                "arbiter": N_("Supreme Arbiter"), "consigliere": N_("Consigliere")}

TABLE: dict[type[Event], Entry] = {
    ev.HostAppointed: Entry("appointment", "procurator", "HOST-PROC-1", lambda e: _t(
        N_("Appointed {user}: {office}"), words=("office",), user=e.user,
        office=OFFICE_WORDS.get(e.office, e.office))),
    ev.CitiesFormed: Entry("setup", "procurator", "CITY-3", lambda e: _t(
        N_("Formed the cities: {cities}"), cities=", ".join(
            f"{c.name} ({len(c.residents)})" for c in e.cities))),
    ev.DealSealed: Entry("setup", "consigliere", "RANDOM-3", lambda e: _t(
        N_("Sealed the shuffled lists; commitment {digest}…"), digest=e.commitment[:12])),
    ev.MafiaNumbersNamed: Entry("setup", "procurator", "RANDOM-4", lambda e: _t(
        N_("Named the mafia's numbers for {city}: {numbers}"), city=e.city,
        numbers=", ".join(map(str, e.numbers)))),
    ev.DealRevealsOpened: Entry("setup", "procurator", "RANDOM-4", lambda e: _t(
        N_("Closed the commitments of the deal; reveals until {until}"), until=hhmm(e.closes_at))),
    ev.GameStarted: Entry("setup", "procurator", "START-0", lambda e: _t(
        N_("Started the game; Day 1 is {date}"), date=ddmm(e.first_day))),
    ev.DayStartSet: Entry("calendar", "procurator", "TIME-4", lambda e: _t(
        N_("Set the start of Day {day} at {time}"), day=e.day, time=e.time)),
    ev.LongDayDeclared: Entry("calendar", "procurator", "TIME-3", lambda e: _t(
        N_("Declared Day {day} a long day of {length} days"), day=e.day, length=e.length_days)),
    ev.DayShortened: Entry("calendar", "procurator", "TIME-2", lambda e: _t(
        N_("Shortened Day {day}: it ends at {end}; the next day starts at {next}"), day=e.day,
        end=hhmm(e.end_at), next=hhmm(e.next_start_at))),
    ev.VoteScheduled: Entry("vote", "tribune", "TIME-7", lambda e: _t(
        N_("Scheduled the execution vote of Day {day}: {opens} – {closes}; nominations until {nominations}"),
        day=e.day, opens=hhmm(e.opens_at), closes=hhmm(e.closes_at),
        nominations=hhmm(e.nominations_close_at)), platform=True),
    ev.DayPostPublished: Entry("day_post", "procurator", "HOST-PROC-3", lambda e: _t(
        N_("Published the Day Post of Day {day}"), day=e.day), platform=True),
    ev.CommissarOffered: Entry("commissar", "procurator", "COMM-APPT-1", lambda e: _t(
        N_("Offered the commissar's badge in {city} to {candidate} (attempt {attempt})"),
        city=e.city, candidate=e.candidate, attempt=e.attempt), platform=True),
    ev.CommissarOfferResolved: Entry("commissar", "procurator", "COMM-APPT-7", _offer_outcome, platform=True),
    ev.CommissarAppointed: Entry("commissar", "procurator", "COMM-APPT-5", lambda e: _t(
        N_("{commissar} took the commissar's office in {city}"), commissar=e.commissar, city=e.city),
        platform=True),
    ev.CommissarAppointmentFailed: Entry("commissar", "procurator", "COMM-APPT-3", lambda e: _t(
        N_("{city} has no commissar: every offer was refused"), city=e.city), platform=True),
    ev.JudgeElectionScheduled: Entry("court", "arbiter", "JUDGE-ELECT-4", lambda e: _t(
        N_("Scheduled judge election {number} in {city}: {opens} – {closes}"), number=e.number,
        city=e.city, opens=hhmm(e.opens_at), closes=hhmm(e.closes_at)), platform=True),
    ev.PardonPresetChosen: Entry("court", "arbiter", "COURT-5", lambda e: _t(
        N_("Set how the Court pardons: {majority}"), words=("majority",), majority=_word(e.majority))),
    ev.MafiosoDisclosed: Entry("disclosure", "procurator", "MAFIA-DISCLOSE-3", lambda e: _t(
        N_("Confirmed the disclosure of mafioso {user} ({city}); immune on Day {day}"), user=e.user,
        city=e.city, day=e.immunity_day)),
    ev.CommissarDisclosed: Entry("disclosure", "procurator", "COMM-DISCLOSE-3", lambda e: _t(
        N_("Confirmed the disclosure of the commissar of {city}"), city=e.city)),
    ev.RestorationProposed: Entry("restoration", "procurator", "RESTORE-T2", lambda e: _t(
        N_("Proposed to restore {city} as {new_name}"), city=e.city, new_name=e.new_name)),
    ev.RestorationSigned: Entry("restoration", None, "RESTORE-T2", lambda e: _t(
        N_("Signed the restoration of {city}"), city=e.city)),
    ev.RestorationListSealed: Entry("restoration", "consigliere", "RESTORE-3", lambda e: _t(
        N_("Sealed the new list of {city} ({count} mafiosi to deal)"), city=e.city, count=e.mafia_count)),
    ev.GodfatherElected: Entry("mafia", "consigliere", "GODFATHER-3", lambda e: _t(
        N_("Appointed {godfather} Godfather of {city}"), godfather=e.godfather, city=e.city),
        when=lambda e: e.appointed),
    ev.CheckAnswered: Entry("mafia", "consigliere", "COMM-4", _check),
}
"""Every event a host's decision (or the platform's step for an office) leaves in the log:
its kind, the office it belongs to, the rule it applies and its words. The decisions declared
with ``@host_decision`` bring their own lines (``entries``): every [HOST] decision does.
``tests/web/test_audit_log.py`` fails on a ``HostDecision`` class without a row."""


def _shown(value: Any) -> Any:
    if isinstance(value, datetime):
        return hhmm(value)
    return ddmm(value) if isinstance(value, date) else value


def _entry(line: AuditLine | None, office: str, rule: str) -> Entry | None:
    if line is None:
        return None
    return Entry(line.kind, None if line.any_office else office, line.rule or rule, lambda e: _t(
        line.msgid(e), words=line.words, inboxes=line.inboxes,
        **{k: _shown(v) for k, v in line.fields(e).items() if v is not None}), platform=line.platform)


def _declared(d: Decision) -> dict[type[Event], Entry]:
    """The audit rows of a declared decision: its own event's and each further one's."""
    lines = ((d.event, d.audit, d.rule), *((r.event, r.audit, r.rule or d.rule) for r in d.also))
    return {event: entry for event, line, rule in lines
            if (entry := _entry(line, d.office, rule)) is not None}


def entries() -> dict[type[Event], Entry]:
    """``TABLE`` and the declared decisions' lines (read at each build: a decision declared
    later is in the log too)."""
    found: dict[type[Event], Entry] = {}
    for d in DECISIONS.values():
        found.update(_declared(d))
    return {**found, **TABLE}


# --- building the rows ------------------------------------------------------------------


@dataclass(frozen=True)
class ContactRead:
    """One line of the contact access log (SEC-13), in game time."""

    at: datetime
    viewer: str
    subject: str
    granted: bool


def _city_of(event: Event) -> str | None:
    for name in ("city", "from_city"):
        value = getattr(event, name, None)
        if isinstance(value, str):
            return value
    return None


def _office_of(state: GameState, person: str, city: str | None) -> tuple[str, bool]:
    """The office ``person`` holds (the first, for a combination) and whether he acted as a
    stand-in Tribune for ``city``."""
    if person == state.procurator:
        return "procurator", False
    if person == state.consigliere:
        return "consigliere", False
    if person == state.arbiter:
        return "arbiter", False
    if city is not None and city in state.cities and state.cities[city].tribune != person \
            and person in state.tribunes():
        return "tribune", True
    return "tribune", False


def _holder(state: GameState, office: str, city: str | None) -> str | None:
    if office == "procurator":
        return state.procurator
    if office == "consigliere":
        return state.consigliere
    if office == "arbiter":
        return state.arbiter
    return state.cities[city].tribune if city is not None and city in state.cities else None


def _timeline(events: Sequence[tuple[int, Event]]) -> list[tuple[int, int, bool]]:
    """(seq, day, night) at every DayStarted and NightStarted: the game day of any seq."""
    marks: list[tuple[int, int, bool]] = []
    for seq, e in events:
        if isinstance(e, ev.DayStarted):
            marks.append((seq, e.day, False))
        elif isinstance(e, ev.NightStarted):
            marks.append((seq, e.night, True))
    return marks


def _day_at(marks: list[tuple[int, int, bool]], seq: int) -> tuple[int, bool]:
    day, night = 0, False
    for mark, d, n in marks:
        if mark > seq:
            break
        day, night = d, n
    return day, night


def _day_at_time(events: Sequence[tuple[int, Event]], moment: datetime) -> tuple[int, bool]:
    day, night = 0, False
    for _seq, e in events:
        if e.at > moment:
            break
        if isinstance(e, ev.DayStarted):
            day, night = e.day, False
        elif isinstance(e, ev.NightStarted):
            day, night = e.night, True
    return day, night


def _issuers(commands: Iterable[HostCommandRow]) -> list[HostCommandRow]:
    return sorted(commands, key=lambda c: c.first_seq)


def _issuer(commands: list[HostCommandRow], seq: int) -> HostCommandRow | None:
    lo, hi = 0, len(commands)
    while lo < hi:
        mid = (lo + hi) // 2
        if commands[mid].first_seq <= seq:
            lo = mid + 1
        else:
            hi = mid
    found = commands[lo - 1] if lo else None
    return found if found is not None and found.first_seq <= seq <= found.last_seq else None


def may_keep(state: GameState, viewer: str | None) -> bool:
    return viewer is not None and viewer in state.hosts()


def entitled(state: GameState, viewer: str, row: AuditRow) -> bool:
    """Whose rows a host reads (beyond seeing the event): the Procurator every host's; any
    other host his own, the platform's steps for his office, and his city's stand-in's."""
    if viewer == state.procurator:
        return True
    if row.person == viewer:
        return True
    holder = _holder(state, row.office, row.city)
    return holder == viewer and (row.person is None or row.stand_in)


def build(state: GameState, events: Sequence[tuple[int, Event]], commands: Iterable[HostCommandRow],
          contact_reads: Iterable[ContactRead], viewer: str | None) -> list[AuditRow]:
    """The viewer's audit rows, oldest first (unfiltered by day, city or kind).

    :raises AuditError: NOT_A_HOST for anyone who holds no host office in the game.
    """
    if not may_keep(state, viewer):
        raise AuditError(AuditErrorCode.NOT_A_HOST)
    assert viewer is not None
    issuers = _issuers(commands)
    hosts = state.hosts()
    marks = _timeline(events)
    found: list[tuple[datetime, int, AuditRow]] = []
    table = entries()
    for seq, e in visible(events, viewer, tuple(table)):
        entry = table[type(e)]
        if not entry.when(e):
            continue
        issuer = _issuer(issuers, seq)
        person = issuer.actor if issuer is not None and issuer.actor in hosts | {state.procurator} else None
        if person is None and not entry.platform:
            continue  # a player's own act or an automatic consequence: not a host's decision
        city = _city_of(e)
        if person is not None:
            acted_as, stand_in = _office_of(state, person, city)
            office = entry.office or acted_as
            stand_in = stand_in and office == "tribune"
        else:
            office, stand_in = entry.office or "procurator", False
        day, night = _day_at(marks, seq)
        rule = entry.rule(e) if callable(entry.rule) else entry.rule
        row = AuditRow(number=0, at=e.at.astimezone(MOSCOW), office=office, person=person,
                       stand_in=stand_in, city=city, day=day, night=night, kind=entry.kind,
                       what=entry.describe(e), rule=rule, note=str(getattr(e, "reason", "") or ""))
        if entitled(state, viewer, row):
            found.append((row.at, seq, row))
    for i, read in enumerate(contact_reads):
        if read.viewer != viewer and viewer != state.procurator:
            continue
        resident = state.residents.get(read.subject)
        city = resident.city if resident else None
        office, _ = _office_of(state, read.viewer, city)
        day, night = _day_at_time(events, read.at)
        what = (_t(N_("Read the contact of {user}"), user=read.subject) if read.granted
                else _t(N_("Asked for the contact of {user} and was refused"), user=read.subject))
        found.append((read.at, 1 << 60 | i, AuditRow(
            number=0, at=read.at.astimezone(MOSCOW), office=office, person=read.viewer, stand_in=False,
            city=city, day=day, night=night, kind="contact", what=what, rule="SEC-13")))
    found.sort(key=lambda item: (item[0], item[1]))
    return [_numbered(row, i) for i, (_at, _seq, row) in enumerate(found, 1)]


def _numbered(row: AuditRow, number: int) -> AuditRow:
    from dataclasses import replace

    return replace(row, number=number)


def view(state: GameState, rows: list[AuditRow], viewer: str, wanted: AuditFilter) -> AuditView:
    """Apply the filter; an unknown choice is refused (BAD_FILTER) rather than ignored."""
    cities = tuple(sorted({r.city for r in rows if r.city} | set(state.cities)))
    if wanted.kind is not None and wanted.kind not in KINDS:
        raise AuditError(AuditErrorCode.BAD_FILTER, field="kind")
    if wanted.city is not None and wanted.city not in cities:
        raise AuditError(AuditErrorCode.BAD_FILTER, field="city")
    if wanted.day is not None and not 0 <= wanted.day <= max(state.day, 0):
        raise AuditError(AuditErrorCode.BAD_FILTER, field="day")
    kept = tuple(r for r in rows
                 if (wanted.day is None or r.day == wanted.day)
                 and (wanted.city is None or r.city == wanted.city)
                 and (wanted.kind is None or r.kind == wanted.kind))
    return AuditView(rows=kept, total=len(rows), days=tuple(range(0, max(state.day, 0) + 1)),
                     cities=cities, kinds=tuple(k for k in KINDS if any(r.kind == k for r in rows)),
                     procurator=viewer == state.procurator)
