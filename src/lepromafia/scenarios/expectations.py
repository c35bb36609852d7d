"""Expectations: what must hold after a step. Each check yields (what, expected, actual).

Checks read the engine's own record (state and events) and its visibility and inbox
policy functions; nothing here re-implements a rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum
from typing import Any

from ..engine import events as ev
from ..engine import events_host as hev
from ..engine.audience import Audience
from ..engine.deal import verify
from ..engine.inboxes import can_post, can_read
from ..engine.state import GameState, PhaseKind
from ..engine.visibility import visible_to
from ..engine.votes import tallies
from .inbox_names import resolve
from .model import ScenarioError
from .times import show


@dataclass(frozen=True)
class Mismatch:
    what: str
    expected: Any
    actual: Any


@dataclass
class Facts:
    state: GameState
    events: list[ev.Event]
    step_events: list[ev.Event]
    parse_time: Callable[[object], datetime]


Check = Callable[[Facts, Any], Iterator[Mismatch]]
CHECKS: dict[str, Check] = {}


def _check(name: str) -> Callable[[Check], Check]:
    def register(fn: Check) -> Check:
        CHECKS[name] = fn
        return fn

    return register


def run(facts: Facts, expect: Any) -> list[Mismatch]:
    if not isinstance(expect, dict):
        raise ScenarioError("'expect' must be a mapping of expectations")
    found: list[Mismatch] = []
    for key, value in expect.items():
        check = CHECKS.get(key)
        if check is None:
            raise ScenarioError(f"unknown expectation {key!r}; known: {sorted(CHECKS)}")
        found.extend(check(facts, value))
    return found


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"expectation {what!r} needs a mapping")
    return value


def _resident(facts: Facts, user: str, what: str) -> Any:
    resident = facts.state.residents.get(str(user))
    if resident is None:
        raise ScenarioError(f"{what}: {user!r} is not a resident")
    return resident


def _city(facts: Facts, name: str, what: str) -> Any:
    city = facts.state.cities.get(str(name))
    if city is None:
        raise ScenarioError(f"{what}: no city {name!r}")
    return city


# --- life and death -------------------------------------------------------------------


@_check("alive")
def _alive(facts: Facts, users: Any) -> Iterator[Mismatch]:
    for user in users:
        r = _resident(facts, user, "alive")
        if not r.alive:
            cause = r.cause.value if r.cause else "?"
            yield Mismatch(f"alive {user}", "alive", f"dead ({cause}, {r.died_in})")


@_check("dead")
def _dead(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    items = spec.items() if isinstance(spec, dict) else ((u, None) for u in spec)
    for user, want in items:
        r = _resident(facts, user, "dead")
        if r.alive:
            yield Mismatch(f"dead {user}", want or "dead", "alive")
            continue
        if want is None:
            continue
        want = want if isinstance(want, dict) else {"cause": want}
        actual = {"cause": r.cause.value if r.cause else None, "in": r.died_in,
                  "faction": r.faction.value if r.faction else None}
        for key, value in want.items():
            if key not in actual:
                raise ScenarioError(f"dead {user}: unknown key {key!r}; use cause, in, faction")
            if actual[key] != value:
                yield Mismatch(f"dead {user} {key}", value, actual[key])


@_check("living")
def _living(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    for name, count in _mapping(spec, "living").items():
        _city(facts, name, "living")
        actual = len(facts.state.living(name))
        if actual != count:
            yield Mismatch(f"living residents of {name}", count, actual)


@_check("living_mafia")
def _living_mafia(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    for name, count in _mapping(spec, "living_mafia").items():
        _city(facts, name, "living_mafia")
        actual = len(facts.state.living_mafia(name))
        if actual != count:
            yield Mismatch(f"living mafiosi of {name}", count, actual)


@_check("mafia")
def _mafia(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    for name, users in _mapping(spec, "mafia").items():
        _city(facts, name, "mafia")
        actual = sorted(facts.state.mafiosi(name))
        if actual != sorted(users):
            yield Mismatch(f"mafiosi of {name}", sorted(users), actual)


@_check("mafia_count")
def _mafia_count(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    for name, count in _mapping(spec, "mafia_count").items():
        actual = _city(facts, name, "mafia_count").mafia_count
        if actual != count:
            yield Mismatch(f"mafia count of {name}", count, actual)


# --- votes ----------------------------------------------------------------------------


def _tally_of(facts: Facts, candidate: str) -> ev.Tally | None:
    """The candidate's tally: the live count while voting is open, else the last published."""
    r = _resident(facts, candidate, "tally")
    book = facts.state.cities[r.city].voting
    if book is not None and not book.closed and candidate in book.candidates:
        return next(t for t in tallies(book, facts.state.cities[r.city].immune) if t.candidate == candidate)
    for event in reversed(facts.events):
        if isinstance(event, ev.VotingClosed) and event.city == r.city:
            for t in event.tallies:
                if t.candidate == candidate:
                    return t
    return None


def _tally_field(field: str, as_set: bool) -> Check:
    label = "tally" if field == "votes" else field

    def check(facts: Facts, spec: Any) -> Iterator[Mismatch]:
        for candidate, want in _mapping(spec, label).items():
            t = _tally_of(facts, str(candidate))
            if t is None:
                yield Mismatch(f"{label} of {candidate}", want, "never a candidate")
                continue
            actual = getattr(t, field)
            if as_set:
                actual, want = sorted(actual), sorted(want)
            if field == "last_vote_at":
                want = facts.parse_time(want) if want is not None else None
                actual_show = show(actual) if actual else None
                if actual != want:
                    yield Mismatch(f"{label} of {candidate}", show(want) if want else None, actual_show)
                continue
            if actual != want:
                yield Mismatch(f"{label} of {candidate}", want, actual)

    return check


CHECKS["tally"] = _tally_field("votes", as_set=False)
CHECKS["voters"] = _tally_field("voters", as_set=True)
CHECKS["changed_minds"] = _tally_field("changed_minds", as_set=True)
CHECKS["last_vote_at"] = _tally_field("last_vote_at", as_set=False)


def _last_close(facts: Facts, city: str) -> ev.VotingClosed | None:
    for event in reversed(facts.events):
        if isinstance(event, ev.VotingClosed) and event.city == city:
            return event
    return None


def _close_field(field: str) -> Check:
    def check(facts: Facts, spec: Any) -> Iterator[Mismatch]:
        for name, want in _mapping(spec, field).items():
            _city(facts, name, field)
            closed = _last_close(facts, str(name))
            if closed is None:
                yield Mismatch(f"{field} in {name}", want, "no vote has closed there")
                continue
            actual = getattr(closed, field)
            if isinstance(actual, tuple):
                actual = list(actual)
                if field == "lot":
                    actual, want = sorted(actual), sorted(want or [])
            if actual != want:
                yield Mismatch(f"{field} in {name} (vote of day {closed.day})", want, actual)

    return check


CHECKS["condemned"] = _close_field("condemned")
CHECKS["ranking"] = _close_field("ranking")
CHECKS["lot"] = _close_field("lot")


# --- offices and outcome ----------------------------------------------------------------


def _city_attr(attr: str, convert: Callable[[Any], Any] = lambda v: v) -> Check:
    def check(facts: Facts, spec: Any) -> Iterator[Mismatch]:
        for name, want in _mapping(spec, attr).items():
            actual = convert(getattr(_city(facts, name, attr), attr))
            if actual != want:
                yield Mismatch(f"{attr} of {name}", want, actual)

    return check


CHECKS["commissar"] = _city_attr("commissar")
CHECKS["godfather"] = _city_attr("godfather")
CHECKS["city_outcome"] = _city_attr("decided", lambda v: v.value if v else None)


@_check("game_result")
def _game_result(facts: Facts, want: Any) -> Iterator[Mismatch]:
    actual = facts.state.result.value if facts.state.result else None
    if actual != want:
        yield Mismatch("game result", want, actual)


@_check("winning_mafia")
def _winning_mafia(facts: Facts, want: Any) -> Iterator[Mismatch]:
    if sorted(facts.state.winning_mafia) != sorted(want):
        yield Mismatch("winning mafia", sorted(want), sorted(facts.state.winning_mafia))


@_check("game_over")
def _game_over(facts: Facts, want: Any) -> Iterator[Mismatch]:
    actual = facts.state.phase is PhaseKind.OVER
    if actual != want:
        yield Mismatch("game over", want, actual)


@_check("touring")
def _touring(facts: Facts, want: Any) -> Iterator[Mismatch]:
    if facts.state.touring_city != want:
        yield Mismatch("touring city", want, facts.state.touring_city)


@_check("phase")
def _phase(facts: Facts, want: Any) -> Iterator[Mismatch]:
    s = facts.state
    actual = s.phase.value if s.phase in (PhaseKind.PREGAME, PhaseKind.OVER) else f"{s.phase.value} {s.day}"
    if actual != want:
        yield Mismatch("phase", want, actual)


@_check("deadlines")
def _deadlines(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    for key, want in _mapping(spec, "deadlines").items():
        due = facts.state.deadlines.get(key)
        expected = facts.parse_time(want) if want is not None else None
        if due != expected:
            yield Mismatch(f"deadline {key}", show(expected) if expected else None,
                           show(due) if due else None)


@_check("deal_verifies")
def _deal_verifies(facts: Facts, want: Any) -> Iterator[Mismatch]:
    ended = [e for e in facts.events if isinstance(e, ev.GameEnded)]
    if not ended:
        yield Mismatch("deal verifies (RANDOM-5)", want, "the game has not ended")
        return
    e = ended[-1]
    actual = e.commitment is not None and verify(dict(e.deal_lists), e.deal_salt, e.commitment)
    if actual != want:
        yield Mismatch("published lists match the commitment (RANDOM-5)", want, actual)


# --- events and visibility --------------------------------------------------------------


def _event_type(name: Any) -> type[ev.Event]:
    cls = getattr(ev, str(name), None) or getattr(hev, str(name), None)
    if not (isinstance(cls, type) and issubclass(cls, ev.Event)):
        raise ScenarioError(f"unknown event type {name!r} (see engine/events.py)")
    return cls


def matching(facts: Facts, matcher: Any) -> list[ev.Event]:
    if not isinstance(matcher, dict) or "event" not in matcher:
        raise ScenarioError(f"an event matcher needs 'event: <Type>' and fields, got {matcher!r}")
    fields = {k: v for k, v in matcher.items() if k not in ("event", "count", "this_step")}
    cls = _event_type(matcher["event"])
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(fields) - names)
    if unknown:
        raise ScenarioError(f"{cls.__name__} has no field(s) {unknown}; fields: {sorted(names)}")
    pool = facts.step_events if matcher.get("this_step") else facts.events
    return [
        e for e in pool
        if isinstance(e, cls) and all(_same(getattr(e, k), v, facts) for k, v in fields.items())
    ]


def _same(actual: Any, want: Any, facts: Facts) -> bool:
    if isinstance(actual, datetime):
        return want is not None and actual == facts.parse_time(want)
    if isinstance(actual, date):
        return str(actual) == str(want)
    if isinstance(actual, Enum):
        return bool(actual.value == want)
    if isinstance(actual, Audience):
        raise ScenarioError("match 'audience' with 'visible', not as a field")
    if isinstance(actual, frozenset | set):
        return isinstance(want, list) and actual == set(want)
    if isinstance(actual, tuple | list):
        return (
            isinstance(want, list) and len(actual) == len(want)
            and all(_same(a, w, facts) for a, w in zip(actual, want, strict=True))
        )
    if dataclasses.is_dataclass(actual) and not isinstance(actual, type):
        return isinstance(want, dict) and all(
            hasattr(actual, k) and _same(getattr(actual, k), v, facts) for k, v in want.items()
        )
    return bool(actual == want)


def _describe(matcher: dict[str, Any]) -> str:
    rest = ", ".join(f"{k}={v!r}" for k, v in matcher.items() if k not in ("event", "count", "this_step"))
    return f"{matcher['event']}({rest})"


@_check("happened")
def _happened(facts: Facts, matchers: Any) -> Iterator[Mismatch]:
    for matcher in matchers:
        found = matching(facts, matcher)
        want = matcher.get("count")
        if want is None and not found:
            yield Mismatch(f"happened {_describe(matcher)}", "at least one such event", "none")
        elif want is not None and len(found) != want:
            yield Mismatch(f"happened {_describe(matcher)}", f"{want} such event(s)", len(found))


@_check("not_happened")
def _not_happened(facts: Facts, matchers: Any) -> Iterator[Mismatch]:
    for matcher in matchers:
        found = matching(facts, matcher)
        if found:
            yield Mismatch(f"not happened {_describe(matcher)}", "no such event", _brief(found[0]))


def _brief(event: ev.Event) -> str:
    fields = {f.name: getattr(event, f.name) for f in dataclasses.fields(event) if f.name != "audience"}
    return f"{type(event).__name__}({', '.join(f'{k}={v!r}' for k, v in fields.items() if k != 'at')})"


VISIBLE_KEYS = {"viewer", "sees", "not_sees", "reads", "not_reads", "posts", "not_posts"}


@_check("visible")
def _visible(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    for item in spec if isinstance(spec, list) else [spec]:
        item = _mapping(item, "visible")
        unknown = sorted(set(item) - VISIBLE_KEYS)
        if unknown or "viewer" not in item:
            raise ScenarioError(f"visible: needs 'viewer'; allowed keys {sorted(VISIBLE_KEYS)}")
        yield from _one_viewer(facts, item)


def _one_viewer(facts: Facts, item: dict[str, Any]) -> Iterator[Mismatch]:
    viewer = item["viewer"]
    who = f"viewer {viewer}"
    for matcher in item.get("sees", []):
        found = matching(facts, matcher)
        if not found:
            yield Mismatch(f"{who} sees {_describe(matcher)}", "such an event to exist", "none happened")
        elif not any(visible_to(e, viewer) for e in found):
            yield Mismatch(f"{who} sees {_describe(matcher)}", "visible", "hidden from him")
    for matcher in item.get("not_sees", []):
        found = matching(facts, matcher)
        if not found:  # a secret that does not exist proves nothing
            yield Mismatch(f"{who} does not see {_describe(matcher)}", "such an event to exist",
                           "none happened")
        for e in found:
            if visible_to(e, viewer):
                yield Mismatch(f"{who} does not see {_describe(matcher)}", "hidden", f"visible: {_brief(e)}")
                break
    now = facts.events[-1].at  # the moment of the step: a ban may have expired (HOST-ARB-3)

    def posts(state: GameState, inbox: str, user: str | None) -> bool:
        return can_post(state, inbox, user, now=now)

    probes: list[tuple[str, bool, Callable[[GameState, str, str | None], bool]]] = [
        ("reads", True, can_read), ("not_reads", False, can_read),
        ("posts", True, posts), ("not_posts", False, posts),
    ]
    for key, want, probe in probes:
        for name in item.get(key, []):
            inbox = resolve(facts.state, str(name), viewer)
            actual = probe(facts.state, inbox, viewer)
            if actual != want:
                verb = "read" if probe is can_read else "post in"
                yield Mismatch(f"{who} may {verb} {name!r} ({inbox})", want, actual)


# --- judges, the Court, citizens, ambush ----------------------------------------------------


CHECKS["judge"] = _city_attr("judge")
CHECKS["immune"] = _city_attr("immune", sorted)
CHECKS["spirits"] = _city_attr("spirits", sorted)
CHECKS["observers"] = _city_attr("observers", sorted)
CHECKS["ambush_nights"] = _city_attr("ambush_nights", sorted)
CHECKS["ambushes"] = _city_attr("ambushes", lambda v: {m: t for m, t in v})
CHECKS["pending_verdict"] = _city_attr("verdict", lambda v: v.candidate if v else None)


def _sorted_want(check: Check) -> Check:
    """Lists are compared as sets: the order of the expected names does not matter."""

    def wrapped(facts: Facts, spec: Any) -> Iterator[Mismatch]:
        spec = {k: sorted(v) if isinstance(v, list) else v for k, v in _mapping(spec, "?").items()}
        return check(facts, spec)

    return wrapped


for _key in ("immune", "spirits", "observers", "ambush_nights"):
    CHECKS[_key] = _sorted_want(CHECKS[_key])


@_check("court_members")
def _court_members(facts: Facts, want: Any) -> Iterator[Mismatch]:
    from ..engine.rules.court import sitting_judges

    actual = sorted(sitting_judges(facts.state))
    if actual != sorted(want or []):
        yield Mismatch("sitting judges (COURT-3)", sorted(want or []), actual)


@_check("removal_threshold")
def _removal_threshold(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    from ..engine.rules.judges import removal_threshold

    for name, want in _mapping(spec, "removal_threshold").items():
        _city(facts, name, "removal_threshold")
        actual = removal_threshold(facts.state, str(name))
        if actual != want:
            yield Mismatch(f"removal threshold of {name} (JUDGE-REMOVE-2, -3)", want, actual)


def _last(facts: Facts, cls: type[ev.Event], city: str) -> Any:
    for event in reversed(facts.events):
        if isinstance(event, cls) and getattr(event, "city", None) == city:
            return event
    return None


VERDICT_KEYS = {"candidate", "pardoned", "pardon_votes", "no_pardon_votes", "day"}


@_check("verdict")
def _verdict(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    """The city's last Court verdict: ``{A: {candidate: C, pardoned: true}}``, ``{A: null}``."""
    for name, want in _mapping(spec, "verdict").items():
        _city(facts, name, "verdict")
        found = _last(facts, ev.VerdictReached, str(name))
        if want is None or found is None:
            if want is not None or found is not None:
                yield Mismatch(f"verdict in {name}", want, _brief(found) if found else None)
            continue
        want = _mapping(want, "verdict")
        unknown = sorted(set(want) - VERDICT_KEYS)
        if unknown:
            raise ScenarioError(f"verdict: unknown key(s) {unknown}; use {sorted(VERDICT_KEYS)}")
        for key, value in want.items():
            if getattr(found, key) != value:
                yield Mismatch(f"verdict in {name}: {key}", value, getattr(found, key))


@_check("elected")
def _elected(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    """The result of the city's last judge election: the elected judge, or null."""
    for name, want in _mapping(spec, "elected").items():
        _city(facts, name, "elected")
        found = _last(facts, ev.JudgeElectionClosed, str(name))
        if found is None:
            yield Mismatch(f"judge election in {name}", want, "no election has closed there")
        elif found.elected != want:
            yield Mismatch(f"judge elected in {name} (election {found.number})", want, found.elected)


@_check("judge_tally")
def _judge_tally(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    """A candidate's last published polling result: ``{A1: {for: 4, against: 3, net: 1}}``."""
    for candidate, want in _mapping(spec, "judge_tally").items():
        r = _resident(facts, str(candidate), "judge_tally")
        found = None
        for event in reversed(facts.events):
            if isinstance(event, ev.JudgeElectionClosed) and event.city == r.city:
                found = next((t for t in event.tallies if t.candidate == candidate), None)
                if found:
                    break
        if found is None:
            yield Mismatch(f"judge tally of {candidate}", want, "never a judge candidate")
            continue
        actual = {"for": len(found.votes_for), "against": len(found.votes_against), "net": found.net,
                  "last_for_at": show(found.last_for_at) if found.last_for_at else None}
        for key, value in _mapping(want, "judge_tally").items():
            if key not in actual:
                raise ScenarioError(f"judge_tally: unknown key {key!r}; use {sorted(actual)}")
            if key == "last_for_at" and value is not None:
                value = show(facts.parse_time(value))
            if actual[key] != value:
                yield Mismatch(f"judge tally of {candidate}: {key}", value, actual[key])


@_check("petition")
def _petition(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    """The city's removal petition: ``{A: {organizer: O, confirmations: 4}}`` (living
    confirmations, the organizer's included), or ``{A: null}``."""
    for name, want in _mapping(spec, "petition").items():
        petition = _city(facts, name, "petition").petition
        if petition is None or want is None:
            if (petition is None) != (want is None):
                yield Mismatch(f"petition in {name}", want, "none" if petition is None else "one")
            continue
        actual = {"organizer": petition.organizer, "judge": petition.judge, "day": petition.day,
                  "confirmations": sum(1 for u in petition.confirmations if facts.state.residents[u].alive)}
        for key, value in _mapping(want, "petition").items():
            if key not in actual:
                raise ScenarioError(f"petition: unknown key {key!r}; use {sorted(actual)}")
            if actual[key] != value:
                yield Mismatch(f"petition in {name}: {key}", value, actual[key])


@_check("impeachment_needed")
def _impeachment_needed(facts: Facts, spec: Any) -> Iterator[Mismatch]:
    """IMPEACH-1: the signatures a demand against the city's Tribune needs now."""
    from ..engine.rules.cases import needed_signatures

    for name, want in _mapping(spec, "impeachment_needed").items():
        _city(facts, name, "impeachment_needed")
        actual = needed_signatures(facts.state, str(name))
        if actual != want:
            yield Mismatch(f"impeachment signatures needed in {name} (IMPEACH-1)", want, actual)
