"""The in-process broker hands each subscriber only the events its viewer may see, and
each delivery's ``after`` says exactly what was offered without a hole (INBOX-GEN-1, §9;
issue 17: the socket fills a hole from the store, and writes at once when there is none)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lepromafia.engine.audience import Audience
from lepromafia.engine.events import Event, MessagePosted
from lepromafia.engine.visibility import visible_to
from lepromafia.service.pubsub import Broker, Delivery, Sink

AT = datetime(2026, 12, 5, tzinfo=UTC)
CAST = (None, "anna", "boris", "vera", "gleb", "dmitry")
"""Viewers: an anonymous visitor and five players."""


def line(inbox: str, *users: str, public: bool = False) -> MessagePosted:
    return MessagePosted(at=AT, audience=Audience(public, frozenset(users)), inbox=inbox,
                         author=users[0] if users else "host", text=f"a line in {inbox}")


def got(sub: Any) -> list[tuple[int, int | None]]:
    return [(d.seq, d.after) for d in sub.drain()]


def test_a_city_line_reaches_its_residents_and_nobody_else() -> None:
    """Anna and Boris live in the city, Vera does not, Gleb watches anonymously: the
    city's line reaches Anna (both her tabs) and Boris; the square's announcement reaches
    all four; the mafia's inbox line only Boris (INBOX-GEN-1)."""
    broker = Broker()
    anna, anna_again, boris, vera, anonymous = (broker.subscribe("g", v) for v in
                                                ("anna", "anna", "boris", "vera", None))
    broker.publish("g", [(1, line("city:north", "anna", "boris")),
                         (2, line("square", public=True)),
                         (3, line("mafia:north", "boris"))])
    assert got(anna) == got(anna_again) == [(1, 0), (2, 1)]
    assert got(boris) == [(1, 0), (2, 1), (3, 2)]
    assert got(vera) == [(2, 0)]  # the city's line was offered and is not hers: no hole
    assert got(anonymous) == [(2, 0)]


def test_a_broken_sequence_tells_every_subscriber_to_ask_the_store() -> None:
    """A relay from another worker was lost (seq 4 never arrives): the next delivery of
    every subscriber says nothing is known before 4, even Vera's, who saw nothing since
    her first line."""
    broker = Broker()
    anna, vera = broker.subscribe("g", "anna"), broker.subscribe("g", "vera")
    broker.publish("g", [(1, line("square", public=True)), (2, line("city:north", "anna")),
                         (3, line("city:north", "anna"))])
    broker.publish("g", [(5, line("square", public=True))])
    assert got(anna) == [(1, 0), (2, 1), (3, 2), (5, 4)]
    assert got(vera) == [(1, 0), (5, 4)]


def test_a_city_s_subscribers_are_looked_up_again_when_a_tab_opens_or_closes() -> None:
    """The broker keeps a city line's subscribers for the next line of the same readers.
    Vera's tab opens after the first line: the second reaches her. Anna's second tab
    closes after it: the third does not reach that tab (INBOX-GEN-1; issue 17, the kept
    audiences)."""
    broker = Broker()
    anna, anna_again = broker.subscribe("g", "anna"), broker.subscribe("g", "anna")
    broker.publish("g", [(1, line("city:north", "anna", "vera"))])
    vera = broker.subscribe("g", "vera")
    broker.publish("g", [(2, line("city:north", "anna", "vera"))])
    anna_again.close()
    broker.publish("g", [(3, line("city:north", "anna", "vera"))])
    assert got(anna) == [(1, 0), (2, 1), (3, 2)]
    assert got(anna_again) == [(1, 0), (2, 1)]
    assert got(vera) == [(2, 1), (3, 2)]


class Reference:
    """A model of the broker: every subscriber offered every event, its own clean run
    kept per subscriber (a broker that skips the subscribers an event is not for must
    give the same)."""

    def __init__(self) -> None:
        self.subs: list[dict[str, Any]] = []

    def subscribe(self, viewer: str | None) -> dict[str, Any]:
        sub = {"viewer": viewer, "offered": None, "clean": None, "got": [], "on": True}
        self.subs.append(sub)
        return sub

    def publish(self, events: list[tuple[int, MessagePosted]]) -> None:
        for sub in self.subs:
            for seq, event in events:
                if not sub["on"]:
                    continue
                if sub["offered"] is None or seq != sub["offered"] + 1:
                    sub["clean"] = seq - 1
                sub["offered"] = seq
                if visible_to(event, sub["viewer"]):
                    sub["got"].append((seq, sub["clean"]))
                    sub["clean"] = seq


audiences = st.one_of(st.just(None), st.frozensets(st.sampled_from(CAST[1:]), max_size=4))
steps = st.lists(st.one_of(
    st.tuples(st.just("subscribe"), st.sampled_from(CAST)),
    st.tuples(st.just("unsubscribe"), st.integers(0, 30)),
    st.tuples(st.just("publish"), st.lists(st.tuples(st.sampled_from([1, 1, 1, 2, 0, -3]), audiences),
                                           min_size=1, max_size=4)),
), max_size=40)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_every_subscriber_gets_what_the_model_gives_it(script: list[Any]) -> None:
    """Random subscriptions, departures and batches — seqs mostly in order, sometimes
    skipping or going back (lost or reordered relays) — give every subscriber the
    deliveries, with the ``after``, of the model."""
    broker, reference = Broker(), Reference()
    pairs: list[tuple[Any, dict[str, Any]]] = []
    seq = 0
    for step in script:
        if step[0] == "subscribe":
            pairs.append((broker.subscribe("g", step[1]), reference.subscribe(step[1])))
        elif step[0] == "unsubscribe" and pairs:
            sub, ref = pairs[step[1] % len(pairs)]
            sub.close()
            ref["on"] = False
        elif step[0] == "publish":
            batch = []
            for move, users in step[1]:
                seq = max(1, seq + move)
                event = line("square", public=True) if users is None else line("city", *sorted(users))
                batch.append((seq, event))
            broker.publish("g", batch)
            reference.publish(batch)
    for sub, ref in pairs:
        delivered: list[Delivery] = list(sub.queue.items)
        assert [(d.seq, d.after) for d in delivered] == ref["got"]
        assert all(visible_to(d.event, sub.viewer) for d in delivered)


class _Writes:
    """A ``WriteHold`` that records when it is held and released among the sinks' calls."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def hold(self) -> None:
        self.log.append("hold")

    def release(self) -> None:
        self.log.append("release")


def test_the_sockets_writes_are_held_while_a_batch_of_several_events_is_published() -> None:
    """Anna's and Boris's city lines are committed together (issue 17): their sockets take
    both deliveries between one hold and its release, so each can write them as one; a
    batch of one event is not held (nothing to join)."""
    log: list[str] = []
    broker = Broker()
    broker.writes = _Writes(log)

    def taking(viewer: str) -> Sink:
        def sink(seq: int, event: Event, after: int | None) -> bool:
            log.append(f"{viewer}:{seq}")
            return True  # taken at once, as a socket's sink takes it

        return sink

    for viewer in ("anna", "boris"):
        broker.subscribe("g", viewer).sink = taking(viewer)
    broker.publish("g", [(1, line("city:north", "anna", "boris")), (2, line("city:north", "boris", "anna"))])
    assert log[0] == "hold" and log[-1] == "release"
    assert sorted(log[1:-1]) == ["anna:1", "anna:2", "boris:1", "boris:2"]
    assert log.index("anna:1") < log.index("anna:2") and log.index("boris:1") < log.index("boris:2")
    log.clear()
    broker.publish("g", [(3, line("city:north", "anna", "boris"))])
    assert sorted(log) == ["anna:3", "boris:3"]
