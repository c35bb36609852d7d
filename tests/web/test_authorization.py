"""The authorization matrix through the API: each office and role does exactly its own
actions and reads exactly its own inboxes; the contact barrier (PLAYER-4, SEC-13)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from lepromafia.engine.state import Stage
from lepromafia.service.accounts import AccountService
from lepromafia.store.codec import COMMAND_TYPES
from lepromafia.web.api.commands import COMMANDS

from .conftest import Api, at, contact_of, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "matrix"


@pytest.fixture(scope="module")
def day1(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("matrix"))):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def seats() -> list[str]:
    return [CAST.procurator, CAST.consigliere, CAST.arbiter, *CAST.tribunes,
            *(u for us in CAST.cities.values() for u in us)]


def test_every_engine_command_but_the_schedulers_has_an_endpoint() -> None:
    """PublishSoundEntry is published only through /sound/entries, which measures the file
    (SOUND-CONF-4, SOUND-LW-4): a client cannot state a duration. PostComment has its own
    endpoint, which checks the community registry ban first (PLAYER-7, POST-2); a commissar
    offer goes through /random/commissar-offer, whose draw no caller supplies (COMM-APPT-1)."""
    assert set(COMMANDS) == set(COMMAND_TYPES) - {"FireDeadline", "PublishSoundEntry", "PostComment",
                                                  "OfferCommissar"}


def test_each_seat_lists_and_reads_exactly_its_own_inboxes(day1: Api) -> None:
    """INBOX-GEN-1, INBOX-MAFIA-1, INBOX-CITY-1, INBOX-PERS-1, HOST-*: no god view."""
    s = day1.state(GAME)
    mafia_a, mafia_b = s.current_inbox("mafia", A), s.current_inbox("mafia", B)
    city_a, city_b = s.current_inbox("city", A), s.current_inbox("city", B)
    office, bar = s.current_inbox("office"), s.current_inbox("bar")
    listed = {u: {i["inbox"] for i in day1.get(u, f"/api/games/{GAME}/inboxes").json()} for u in seats()}
    for user in seats():
        for inbox in s.inboxes:
            r = day1.get(user, f"/api/games/{GAME}/inboxes/{inbox}")
            assert (r.status_code == 200) == (inbox in listed[user]), (user, inbox, r.status_code)
    assert {mafia_a, mafia_b, bar} <= listed[CAST.consigliere] and city_a not in listed[CAST.consigliere]
    procurator = listed[CAST.procurator]
    assert {office, bar} <= procurator and not {mafia_a, mafia_b, city_a} & procurator
    assert {city_a, office} <= listed[CAST.tribunes[0]] and not {city_b, mafia_a} & listed[CAST.tribunes[0]]
    assert office in listed[CAST.arbiter] and not {mafia_a, bar} & listed[CAST.arbiter]
    for user in CAST.cities[A]:
        own = s.current_inbox("personal", user)
        assert city_a in listed[user] and own in listed[user] and city_b not in listed[user]
        assert (mafia_a in listed[user]) == s.is_mafia(user)
        assert not {mafia_b, bar, office} & listed[user]
    assert day1.get(None, f"/api/games/{GAME}/inboxes").json()["error"]["code"] == "unauthenticated"


def test_each_seat_does_exactly_its_own_actions(day1: Api) -> None:
    """HOST-PROC (commissar offers, day starts), ROLE-OBS-2 (only citizens observe)."""
    s = day1.state(GAME)
    for user in seats():
        r = day1.cmd(user, GAME, "SetDayStart", day=3, time="11:00")
        assert (r.status_code == 200) == (user == CAST.procurator), (user, r.text)
        if user != CAST.procurator:
            assert r.status_code == 403 and r.json()["error"]["code"] == "not_procurator"
    for user in seats():
        r = day1.cmd(user, GAME, "RequestObservation", city=B)
        assert (r.status_code == 200) == (user in CAST.cities[A]), (user, r.text)
    honest = next(u for u in CAST.cities[A] if not s.is_mafia(u))
    mafioso = next(u for u in CAST.cities[A] if s.is_mafia(u))
    r = day1.cmd(mafioso, GAME, "DeclareKill", target=honest)  # a night act by day
    assert r.status_code == 409
    r = day1.cmd(honest, GAME, "CheckResident", target=mafioso)
    assert r.status_code in (403, 409) and r.json()["error"]["code"] in ("not_commissar", "checks_not_open")
    r = day1.cmd(honest, GAME, "PostMessage", inbox=s.current_inbox("mafia", A), text="кто тут?")
    assert r.status_code in (403, 404)
    r = day1.post(honest, f"/api/games/{GAME}/commands/PostMessage",
                  {"command_id": "x1", "actor": CAST.procurator, "inbox": "office::0", "text": "hi"})
    assert r.status_code == 422 and "actor" in r.json()["error"]["message"]  # never from the body


def test_a_command_id_is_idempotent_per_user(day1: Api) -> None:
    s = day1.state(GAME)
    user = CAST.cities[A][0]
    body = {"command_id": "same", "inbox": s.current_inbox("city", A), "text": "привет"}
    first = day1.post(user, f"/api/games/{GAME}/commands/PostMessage", body).json()
    again = day1.post(user, f"/api/games/{GAME}/commands/PostMessage", body).json()
    assert first == again and first["event_count"] == 1
    other = day1.post(user, f"/api/games/{GAME}/commands/PostMessage", {**body, "text": "другое"})
    assert other.status_code == 409 and other.json()["error"]["code"] == "command_id_reused"
    neighbour = day1.post(CAST.cities[A][1], f"/api/games/{GAME}/commands/PostMessage", body)
    assert neighbour.status_code == 200 and neighbour.json()["event_count"] == 1
    # positions in each actor's own stream: his message is the last event he has seen
    assert first["last_seq"] == first["first_seq"]
    mine = day1.get(user, f"/api/games/{GAME}/events", limit=5000).json()
    assert mine[first["last_seq"] - 1]["event"]["text"] == "привет"


def test_contacts_reach_only_the_procurator_and_the_residents_tribune(day1: Api) -> None:
    """PLAYER-4, SEC-13: encrypted at rest, every access logged, never after the game."""
    subject = CAST.cities[A][2]
    path = f"/api/games/{GAME}/contacts/{subject}"
    allowed = {CAST.procurator, CAST.tribunes[0]}
    for user in seats():
        r = day1.get(user, path)
        if user in allowed:
            assert r.status_code == 200 and r.json()["contact"] == contact_of(subject)
        else:
            assert r.status_code == 403 and r.json()["error"]["code"] == "contact_forbidden", user
    log = day1.client.portal.call(day1.web.accounts.store.contact_access_log, GAME)  # type: ignore[union-attr]
    assert len(log) == len(seats()) and {e["viewer"] for e in log if e["granted"]} == allowed
    stored = day1.client.portal.call(day1.web.accounts.store.contact, GAME, subject)  # type: ignore[union-attr]
    assert stored is not None and "SECRET" not in stored  # ciphertext at rest
    over = dataclasses.replace(day1.state(GAME), stage=Stage.FINISHED)
    assert not AccountService.may_read_contact(over, CAST.procurator, subject)


def test_a_banned_user_cannot_sign_up(day1: Api) -> None:
    """PLAYER-7: the registry, recorded by a host, enforced at sign-up."""
    day1.register("outlaw")
    r = day1.post(CAST.cities[A][0], f"/api/games/{GAME}/sanctions", {"user": "outlaw", "reason": "омерта"})
    assert r.status_code == 403
    r = day1.post(CAST.procurator, f"/api/games/{GAME}/sanctions",
                  {"user": "outlaw", "reason": "нарушил омерту", "rule": "OMERTA-2"})
    assert r.status_code == 201
    day1.register("hostx")
    g2 = day1.post("hostx", "/api/games", {"game_id": "g2", "title": "Второй", "command_id": "c"})
    assert g2.status_code == 201
    r = day1.post("outlaw", "/api/games/g2/signup",
                  {"accepted": ["active"], "contact": "+7 1", "command_id": "s"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "banned"
    # OMERTA-2 (D8): while the game runs, the Procurator and the player only
    assert day1.get(None, "/api/sanctions").json() == []
    assert day1.get(CAST.cities[A][0], "/api/sanctions").json() == []
    assert [b["user"] for b in day1.get(CAST.procurator, "/api/sanctions").json()] == ["outlaw"]
    assert [b["user"] for b in day1.get("outlaw", "/api/sanctions").json()] == ["outlaw"]
