"""A host duty past its deadline (issue 13: "a host duty is due or overdue"). The deal is
drawn by commit-reveal (RANDOM-4): the reveals are open and the Procurator and the
Consigliere have not revealed. Until the deadline no overdue notice exists; after it
(the sweeper has not fired it yet: the server was down) each of the two gets one, under a
key that a second sweep repeats exactly (so it is written once); the player who
committed is no host and gets none; once a host reveals, his notice no longer holds. The
notice says nothing but that a host duty is overdue."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

from lepromafia.bots.setup import default_cast
from lepromafia.engine import commands as cmd
from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.commands import REQUIREMENTS
from lepromafia.engine.deal import value_digest
from lepromafia.engine.table import Table
from lepromafia.service.notify.kinds import NotifyKind
from lepromafia.service.notify.watch import still_true, watch_rows
from lepromafia.store.projection import GameClock

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=MOSCOW)
CLOCK = GameClock(NOW.timestamp())


def _revealing() -> tuple[Table, dict[str, str], str]:
    """Cities formed and sealed; three commitments and the server's reveal are in."""
    rng = random.Random(7)
    cast = default_cast(1, 6)
    t = Table()
    t.do(cmd.CreateGame(actor=cast.procurator, title="Жребий",
                        settings={"city_count": 1, "population_per_city": 6, "deal_method": "commit_reveal"}),
         NOW)
    t.do(cmd.AppointHost(actor=cast.procurator, office="consigliere", user=cast.consigliere), NOW)
    t.do(cmd.AppointHost(actor=cast.procurator, office="arbiter", user=cast.arbiter), NOW)
    users = next(iter(cast.cities.values()))
    for user in users:
        t.do(cmd.SignUp(actor=user, accepted=REQUIREMENTS, has_contact=True), NOW)
    name = next(iter(cast.cities))
    t.do(cmd.FormCities(actor=cast.procurator, cities=(cmd.CityPlan(name=name, tribune=cast.tribunes[0],
                                                                    residents=users),)), NOW)
    t.do(cmd.SealDeal(actor=cast.consigliere, lists=((name, users),), salt="00" * 16), NOW)
    values = {u: f"{rng.getrandbits(128):032x}" for u in (cast.procurator, cast.consigliere, users[0])}
    for user, value in values.items():
        t.do(cmd.CommitDealEntropy(actor=user, digest=value_digest(value)), NOW)
    server = f"{rng.getrandbits(256):064x}"
    t.do(cmd.OpenDealReveals(actor=cast.procurator, server_digest=value_digest(server)), NOW)
    t.do(cmd.RevealDealEntropy(actor="system", value=server), NOW)
    return t, values, users[0]


def _overdue(t: Table, at: datetime) -> dict[str, dict]:
    rows = [r for r in watch_rows("g", CLOCK, t.game, at) if r["kind"] == NotifyKind.HOST_DUTY_OVERDUE.value]
    return {r["user_id"]: r for r in rows}


def test_a_host_duty_past_its_deadline_is_told_to_each_host_who_holds_it_once() -> None:
    t, values, player = _revealing()
    due = NOW + timedelta(minutes=t.game.settings.deal_reveal_minutes)
    assert _overdue(t, due - timedelta(minutes=1)) == {}
    late = due + timedelta(minutes=5)
    found = _overdue(t, late)
    procurator, consigliere = t.game.procurator, t.game.consigliere
    assert set(found) == {procurator, consigliere}
    assert player not in found
    again = _overdue(t, late + timedelta(minutes=30))
    assert {u: r["key"] for u, r in again.items()} == {u: r["key"] for u, r in found.items()}
    payload = json.loads(found[procurator]["payload"])
    assert still_true(NotifyKind.HOST_DUTY_OVERDUE, t.game, procurator, payload, late)
    t.do(cmd.RevealDealEntropy(actor=procurator, value=values[procurator]), late)
    assert not still_true(NotifyKind.HOST_DUTY_OVERDUE, t.game, procurator, payload, late)
    assert set(_overdue(t, late)) == {consigliere}
