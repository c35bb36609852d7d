"""COMM-APPT-1, COMM-APPT-6 (issue 10, D10): «Комиссара города назначает Прокуратор при помощи
генератора случайных чисел» — the platform draws; no HTTP caller can supply the draw."""

from __future__ import annotations

from datetime import datetime

from lepromafia.engine import events as ev
from lepromafia.engine import events_host as hev
from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.events import Event
from lepromafia.store import codec

from .conftest import Api, setup_game_via_api, small_cast

CAST = small_cast()


async def all_events(api: Api, game: str) -> list[Event]:
    async with api.web.service.store.reading() as tx:
        rows = await tx.event_rows(game, after=0)
    return [codec.decode_event(codec.loads(row["payload"])) for row in rows]
GAME = "draw"


def test_the_generic_command_endpoint_takes_no_commissar_offer(api: Api) -> None:
    """D10: a chosen draw is refused as an unknown command, whoever sends it."""
    setup_game_via_api(api, GAME, CAST)
    api.advance_to(datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW))
    city = next(iter(CAST.cities))
    r = api.cmd(CAST.procurator, GAME, "OfferCommissar", city=city, draw=3)
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_command"
    assert api.state(GAME).cities[city].offer is None


def test_the_platform_draws_and_seals_the_draw_with_its_pool(api: Api) -> None:
    """COMM-APPT-6: the draw, the pool and the candidate are in the sealed notary record;
    a retried command id repeats the same draw (one offer, not two)."""
    setup_game_via_api(api, GAME, CAST)
    api.advance_to(datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW))
    city = next(iter(CAST.cities))
    body = {"command_id": "offer-1", "city": city}
    first = api.post(CAST.procurator, f"/api/games/{GAME}/random/commissar-offer", body)
    again = api.post(CAST.procurator, f"/api/games/{GAME}/random/commissar-offer", body)
    assert first.status_code == 200 and again.status_code == 200, (first.text, again.text)
    s = api.state(GAME)
    offer = s.cities[city].offer
    assert offer is not None and s.cities[city].offers_made == (offer.candidate,)
    events = api.client.portal.call(all_events, api, GAME)  # type: ignore[union-attr]
    sealed = [e for e in events if isinstance(e, hev.RecordSealed) and e.kind == "commissar_draw"]
    (record,) = sealed
    content = dict(record.content)
    pool = content["pool"].split(",")
    assert content["candidate"] == offer.candidate == pool[int(content["draw"]) % len(pool)]
    assert record.audience.users == {CAST.procurator}
    assert any(isinstance(e, ev.CommissarOffered) for e in events)
