"""What one seat knows: the game's events, read only through ``visible_to``.

``Ledger`` keeps every event of a game, indexed by kind (and city where one is named),
so a question costs a short list, not the whole log. ``SeatView`` is one seat's window
on it: every fact it returns comes from an event that passes
``engine.visibility.visible_to(event, seat)``, the same check the service applies to a
player's stream. Nothing here reads ``GameState``: a bot that decides from a
``SeatView`` cannot use a fact its seat may not see.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ...engine import events as ev
from ...engine.events import Event
from ...engine.keywords import Keyword
from ...engine.table import Table
from ...engine.visibility import visible_to
from .claims import Claim, parse

E = TypeVar("E", bound=Event)
T = TypeVar("T")

_CITY_INBOX = "city:"


class Ledger:
    """Every event of one game, in order, indexed for the bots' questions."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._kind: dict[type, list[Event]] = defaultdict(list)
        self._city: dict[tuple[type, str], list[Event]] = defaultdict(list)
        self._pos: dict[int, int] = {}
        self.filtered: dict[tuple[Any, ...], tuple[int, list[Any]]] = {}
        """Per seat (or "public"), kind and city: how many of the kind's events were filtered,
        and those that passed. The log only grows, so each event is checked once per seat."""
        self.claim_of: dict[int, Claim | None] = {}
        """A post's claim, parsed once (by the post's identity)."""
        self.derived: dict[tuple[Any, ...], Any] = {}
        """``SeatView.memo``'s answers, keyed by what they were computed from."""

    def sync(self, table: Table) -> None:
        """Take in the events the table logged since the last call."""
        if len(table.events) > len(self.events):
            self.feed(table.events[len(self.events):])

    def feed(self, events: Iterable[Event]) -> None:
        for event in events:
            self._pos[id(event)] = len(self.events)
            self.events.append(event)
            self._kind[type(event)].append(event)
            city = _city_of(event)
            if city is not None:
                self._city[(type(event), city)].append(event)

    def of(self, kind: type[E], city: str | None = None) -> list[E]:
        found = self._kind.get(kind, []) if city is None else self._city.get((kind, city), [])
        return found  # type: ignore[return-value]

    def position(self, event: Event) -> int:
        return self._pos[id(event)]

    @property
    def version(self) -> int:
        return len(self.events)


def _city_of(event: Event) -> str | None:
    if isinstance(event, ev.MessagePosted):
        if event.inbox.startswith(_CITY_INBOX):
            return event.inbox.split(":")[1]
        return None
    city = getattr(event, "city", None)
    return city if isinstance(city, str) else None


class SeatView:
    """One seat's knowledge of the game."""

    def __init__(self, ledger: Ledger, seat: str) -> None:
        self.ledger = ledger
        self.seat = seat

    def seen(self, kind: type[E], city: str | None = None) -> list[E]:
        """The events of ``kind`` this seat may see — the one gate every fact passes.
        The list is shared: read it, never change it."""
        seat = self.seat
        return self._filtered(seat, kind, city, lambda e: visible_to(e, seat))

    def public(self, kind: type[E], city: str | None = None) -> list[E]:
        """Events everyone sees; shared caches are built from these alone (shared list too)."""
        return self._filtered(None, kind, city, lambda e: e.audience.public)

    def _filtered(self, seat: str | None, kind: type[E], city: str | None,
                  passes: Callable[[Event], bool]) -> list[E]:
        source = self.ledger.of(kind, city)
        key = (seat, kind, city)
        done, found = self.ledger.filtered.get(key, (0, []))
        if done < len(source):
            # a new list: the ones handed out stay as they were
            found = found + [e for e in source[done:] if passes(e)]
            self.ledger.filtered[key] = (len(source), found)
        return found

    # --- the seat itself -------------------------------------------------------------

    def memo(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()`` once per ``key``; a key names everything the answer reads (the
        lengths of the event lists it comes from), so a new event makes a new key."""
        derived = self.ledger.derived
        if key not in derived:
            derived[key] = compute()
        return derived[key]  # type: ignore[no-any-return]

    @property
    def home(self) -> str | None:
        formed = self.seen(ev.CitiesFormed)
        return self.memo(("home", self.seat, len(formed)), lambda: self._home(formed))

    def _home(self, formed: list[ev.CitiesFormed]) -> str | None:
        for each in formed:
            for spec in each.cities:
                if self.seat in spec.residents:
                    return spec.name
        return None

    def team(self) -> frozenset[str]:
        """The mafiosi of the seat's city if the seat is one of them (it was dealt them)."""
        home = self.home
        if home is None:
            return frozenset()
        dealt_all = self.seen(ev.MafiaDealt, home)
        honest = self.seen(ev.HonestNoticeIssued, home)

        def team() -> frozenset[str]:
            dealt = [e for e in dealt_all if self.seat in e.mafiosi]
            if not dealt or (honest and self._later(honest[-1], dealt[-1])):
                return frozenset()
            return frozenset(dealt[-1].mafiosi)
        return self.memo(("team", self.seat, home, len(dealt_all), len(honest)), team)

    def is_mafia(self) -> bool:
        return bool(self.team())

    def checks(self) -> dict[str, bool]:
        """The commissar's own answers (COMM-4): target -> is mafia."""
        home = self.home
        if home is None:
            return {}
        return {e.target: e.is_mafia for e in self.seen(ev.CheckAnswered, home)}

    def exposed_commissars(self) -> set[str]:
        """Commissars the mafia was told of (AMBUSH-7, AMBUSH-8)."""
        home = self.home
        if home is None:
            return set()
        return {e.commissar for e in self.seen(ev.CommissarExposed, home)}

    # --- public facts ----------------------------------------------------------------

    def residents(self, city: str) -> tuple[str, ...]:
        for formed in self.public(ev.CitiesFormed):
            for spec in formed.cities:
                if spec.name == city:
                    return spec.residents
        return ()

    def cities(self) -> list[str]:
        for formed in self.public(ev.CitiesFormed):
            return [spec.name for spec in formed.cities]
        return []

    def deaths(self, city: str) -> dict[str, ev.ResidentDied]:
        """The dead of ``city`` (a shared dict: read it, never change it)."""
        died = self.public(ev.ResidentDied, city)
        return self.memo(("deaths", city, len(died)), lambda: {e.user: e for e in died})

    def living(self, city: str) -> list[str]:
        dead = self.deaths(city)
        formed = self.public(ev.CitiesFormed)
        living = self.memo(("living", city, len(formed), len(dead)),
                           lambda: tuple(u for u in self.residents(city) if u not in dead))
        return list(living)

    def tallies(self, city: str) -> list[ev.VotingClosed]:
        return self.public(ev.VotingClosed, city)

    def decided(self) -> set[str]:
        return {e.city for e in self.public(ev.CityDecided)}

    def mafia_count(self, city: str) -> int:
        for done in self.public(ev.DealCompleted):
            return dict(done.mafia_counts).get(city, 0)
        return 0

    def judge(self, city: str) -> str | None:
        """The sitting judge as the Day Post names him (JUDGE-ELECT-15)."""
        judge: str | None = None
        changes: list[Event] = [*self.public(ev.JudgeElectionClosed, city),
                                *self.public(ev.JudgeRemoved, city), *self.public(ev.JudgeRecused, city)]
        for e in sorted(changes, key=self.ledger.position):
            judge = e.elected if isinstance(e, ev.JudgeElectionClosed) else None
        if judge is not None and judge in self.deaths(city):
            return None
        return judge

    def immune_today(self, city: str, day: int) -> set[str]:
        return {e.user for e in self.public(ev.MafiosoDisclosed, city) if e.immunity_day == day}

    # --- what the city inbox says ----------------------------------------------------

    def claims(self, city: str) -> list[Claim]:
        posts = self.seen(ev.MessagePosted, city)
        key = ("claims", self.seat, city)
        done, found = self.ledger.filtered.get(key, (0, []))
        if done < len(posts):
            found = found + [c for c in map(self._claim, posts[done:]) if c is not None]
            self.ledger.filtered[key] = (len(posts), found)
        return list(found)

    def _claim(self, post: ev.MessagePosted) -> Claim | None:
        cache = self.ledger.claim_of
        key = id(post)
        if key not in cache:
            cache[key] = parse(post.author, post.text)
        return cache[key]

    def live_votes(self, city: str, day: int) -> dict[str, set[str]]:
        """Candidate -> voters with an active «казнить» now, as the voting inboxes show it (EXEC-18)."""
        active: dict[str, set[str]] = defaultdict(set)
        opened = [e for e in self.public(ev.VotingOpened, city) if e.day == day]
        if not opened:
            return active
        since = self.ledger.position(opened[-1])
        for vote in self.seen(ev.VoteCast, city):
            if self.ledger.position(vote) < since:
                continue
            if vote.keyword == Keyword.EXECUTE.value:
                active[vote.candidate].add(vote.voter)
            else:
                active[vote.candidate].discard(vote.voter)
        return active

    def _later(self, a: Event, b: Event) -> bool:
        return self.ledger.position(a) > self.ledger.position(b)
