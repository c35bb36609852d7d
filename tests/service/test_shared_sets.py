"""What stays in memory per message is not a copy of what every message shares (issue 17:
at 50 games each post left a 100-name residents set in two render caches and its own
audience in the viewers' streams; every full collection scanned them all).

Cast: ``small_cast()``; in the first city, ``talker`` writes ten messages to the city inbox
(INBOX-GEN-1); the readers' streams and the renderer keep one residents set and one audience.
"""

from __future__ import annotations

from lepromafia.engine import commands as cmd
from lepromafia.service import posts
from lepromafia.service.posts import resident_set
from lepromafia.service.service import GameService
from lepromafia.service.streams import ViewerStreams
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore

from .helpers import at, manual_clock, run, setup_game, small_cast

CAST = small_cast()
CITY = next(iter(CAST.cities))


def test_ten_messages_keep_one_audience_and_one_residents_set(backend: DatabaseConfig) -> None:
    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        await setup_game(svc, "g", CAST)
        clock.set(at(1, "10:05"))
        await svc.sweep()
        streams = ViewerStreams(svc.store)
        svc.broker.observers.append(streams.observe)
        state = await svc.state("g")
        box = state.current_inbox("city", CITY)
        assert box
        talker = state.living(CITY)[0]
        await streams.visible_seqs("g", talker, (await svc.current("g")).version)
        for n in range(10):
            await svc.execute("g", cmd.PostMessage(actor=talker, inbox=box, text=f"@{talker} {n}"), f"m{n}")
        version = (await svc.current("g")).version
        mine = await streams.visible_seqs("g", talker, version)
        kept = streams._games["g"].audiences[-10:]
        assert len(mine) >= 10 and all(a == kept[0] for a in kept)
        assert len({id(a) for a in kept}) == 1, "one audience object for the ten messages"
        cold = ViewerStreams(svc.store)  # read from the store: shared the same way
        await cold.visible_seqs("g", talker, version)
        assert len({id(a) for a in cold._games["g"].audiences[-10:]}) == 1

        later = await svc.state("g")
        assert resident_set(state) is resident_set(later), "equal residents: one set"
        assert resident_set(state) == frozenset(state.residents)
        await svc.close()

    run(scenario())


def test_the_shared_residents_sets_are_bounded() -> None:
    """Sets of many different games never grow the table past its bound."""
    class Fake:
        def __init__(self, n: int) -> None:
            self.residents = {f"g{n}u{i}": None for i in range(3)}

    for n in range(posts.RESIDENT_SETS_MAX + 10):
        resident_set(Fake(n))  # type: ignore[arg-type]
    assert len(posts._RESIDENT_SETS) <= posts.RESIDENT_SETS_MAX
    assert len(posts._BY_MAPPING) <= posts.RESIDENT_SETS_MAX


def test_a_residents_mapping_is_known_by_identity_and_another_by_its_names() -> None:
    """The same mapping answers its set without building one; a new mapping with one more
    resident (a late sign-up) gets its own set, one with the same names the shared one."""
    class State:
        def __init__(self, residents: dict[str, None]) -> None:
            self.residents = residents

    first = State({"anna": None, "boris": None})
    names = resident_set(first)  # type: ignore[arg-type]
    assert names == {"anna", "boris"} and resident_set(first) is names  # type: ignore[arg-type]
    assert resident_set(State(dict(first.residents))) is names  # type: ignore[arg-type]
    grown = State({**first.residents, "vera": None})
    assert resident_set(grown) == {"anna", "boris", "vera"}  # type: ignore[arg-type]
