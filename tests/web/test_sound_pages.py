"""The Sound Library and archive pages over HTTP: who sees what, the forms and their errors.

Cast: ``procurator``, ``tribune1`` (Лепроград), ``tribune2`` (Лепросицилия), residents
``p01_01``… and ``p02_01``…; a game the bots played until the first death, imported into
the app's store (so the Cemetery has someone for a séance), and for the archive a game the
bots played to its end. Rules: SOUND-2, SOUND-3, SOUND-INT-1, SOUND-SEANCE-1, HOST-PROC-4,
ROLE-CIT-5, SOUND-CONF-4, §9.4 (INBOX-PERS-3, AMB-33), RANDOM-5.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from lepromafia.bots.agents import RandomBots
from lepromafia.bots.setup import default_cast, setup_game
from lepromafia.engine.state import DeathCause, Stage
from lepromafia.engine.table import Table, next_deadline

from ..service import audio_files as audio
from ..service.finished_game import PERSONAL_TEXT, FinishedGame, import_game, play_finished_game
from .conftest import Api
from .sound_app import make_sound_api

LEPROGRAD, SICILY = "Лепроград", "Лепросицилия"


def game_with_the_dead(settings: dict[str, Any] | None = None, seed: int = 0) -> tuple[Table, str]:
    """The bots play until the first death that is not a suicide; the game still runs."""
    rng = random.Random(seed)
    table = setup_game(rng, default_cast(2, 6), settings)
    bots = RandomBots(rng, mischief=0.0)
    for _ in range(2000):
        dead = sorted(u for u, r in table.game.residents.items()
                      if not r.alive and r.cause is not DeathCause.SUICIDE)
        if dead:
            assert table.game.stage is Stage.RUNNING
            return table, dead[0]
        nxt = next_deadline(table.game)
        assert nxt is not None
        before = len(table.events)
        table.advance(nxt[1], seed=lambda: rng.randrange(1 << 31))
        bots.react(table, table.events[before:])
    raise AssertionError("nobody died")


def users_of(table: Table) -> list[str]:
    s = table.game
    return [s.procurator, *(c.tribune for c in s.cities.values()), *s.residents]


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_sound_api(tmp_path)


def start(api: Api, settings: dict[str, Any] | None = None) -> tuple[Table, str]:
    table, dead = game_with_the_dead(settings)
    api.client.portal.call(import_game, api.web.service.store, "g", table)  # type: ignore[union-attr]
    api.clock.set(table.events[-1].at)
    for user in users_of(table):
        api.register(user)
    return table, dead


def page(api: Api, user: str | None, url: str, status: int = 200) -> str:
    r = api.client.get(url, headers=api.headers(user))
    assert r.status_code == status, (url, r.status_code, r.text[:500])
    return str(r.text)


def submit(api: Api, user: str, url: str, action: str, data: dict[str, str]) -> Any:
    """Post a page's form as a browser would: with a CSRF token from that page."""
    html = page(api, user, url)
    token = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert token, "the page has a form"
    return api.client.post(action, data={**data, "csrf_token": token.group(1)},
                           headers=api.headers(user), follow_redirects=False)


def flash(api: Api) -> str:
    from urllib.parse import unquote

    return unquote(api.client.cookies.get("lp_flash") or "")


def upload(api: Api, user: str, path: Path, kind: str) -> Any:
    with path.open("rb") as f:
        return api.client.post("/api/games/g/sound/media", headers=api.headers(user),
                               files={"file": (path.name, f, "application/octet-stream")},
                               data={"kind": kind})


def test_a_published_interrogation_is_listed_with_its_player_for_everyone(api: Api, tmp_path: Path) -> None:
    """SOUND-INT-1, SOUND-3, SOUND-2 (public): tribune1 uploads a 0:30 interrogation of a
    living citizen, publishes it from the page; an anonymous visitor sees kind, day,
    participant, host, duration and an <audio> pointing at the range-serving media URL."""
    table, _dead = start(api)
    citizen = next(u for u in table.game.living(LEPROGRAD))
    media = upload(api, "tribune1", audio.wav(tmp_path / "i.wav", 30), "interrogation").json()["media"]
    draft = page(api, "tribune1", f"/games/g/sound?city={LEPROGRAD}&kind=interrogation&media={media}")
    assert 'data-testid="draft"' in draft and "0:30" in draft
    assert 'data-testid="draft"' not in page(
        api, "tribune2", f"/games/g/sound?media={media}"), "a draft is its uploader's alone"
    r = submit(api, "tribune1", f"/games/g/sound?media={media}", "/games/g/sound/publish",
               {"media": media, "kind": "interrogation", "participant": citizen, "city": LEPROGRAD})
    assert r.status_code == 303 and "Запись опубликована" in flash(api)
    html = page(api, None, f"/games/g/sound?city={quote(LEPROGRAD)}")
    entry = html[html.index('data-testid="sound-entry"'):]
    assert 'data-kind="interrogation"' in html
    assert citizen in entry and "tribune1" in entry and "0:30" in entry and "День 2" in entry
    assert f'src="/api/games/g/sound/media/{media}"' in entry
    assert 'data-testid="sound-entry"' not in page(api, None, f"/games/g/sound?city={quote(SICILY)}")


def test_a_seance_in_a_city_only_library_is_heard_only_in_its_city(api: Api, tmp_path: Path) -> None:
    """SOUND-2 (city_only), HOST-PROC-4, SOUND-SEANCE-1: the Procurator holds a séance with
    a dead resident; his city's residents and the hosts see it, the other city and an
    anonymous visitor do not — neither on the page nor by the media URL."""
    table, dead = start(api, {"sound_library_visibility": "city_only"})
    city = table.game.residents[dead].city
    other = SICILY if city == LEPROGRAD else LEPROGRAD
    neighbour = next(u for u in table.game.living(city))
    stranger = next(u for u in table.game.living(other))
    media = upload(api, "procurator", audio.wav(tmp_path / "s.wav", 12), "seance").json()["media"]
    r = submit(api, "procurator", f"/games/g/sound?media={media}", "/games/g/sound/publish",
               {"media": media, "kind": "seance", "participant": dead})
    assert r.status_code == 303 and "Запись опубликована" in flash(api), flash(api)
    url = f"/games/g/sound?city={quote(city)}"
    for viewer in (neighbour, "procurator", "tribune1", "tribune2"):
        html = page(api, viewer, url)
        assert 'data-kind="seance"' in html and dead in html, viewer
    for viewer in (stranger, None):
        html = page(api, viewer, url)
        assert 'data-testid="library-closed"' in html and 'data-kind="seance"' not in html
    assert api.get(stranger, f"/api/games/g/sound/media/{media}").status_code == 404
    assert api.get(neighbour, f"/api/games/g/sound/media/{media}").status_code == 200


def test_a_refused_publish_shows_the_coded_error_and_publishes_nothing(api: Api, tmp_path: Path) -> None:
    """SOUND-INT-1: a Tribune interrogates only in his city; the page shows the code."""
    table, _dead = start(api)
    stranger = next(u for u in table.game.living(SICILY))
    media = upload(api, "tribune1", audio.wav(tmp_path / "i.wav", 5), "interrogation").json()["media"]
    r = submit(api, "tribune1", f"/games/g/sound?media={media}", "/games/g/sound/publish",
               {"media": media, "kind": "interrogation", "participant": stranger})
    assert r.status_code == 303 and "not_handler" in flash(api)
    html = page(api, "tribune1", r.headers["location"])
    assert 'data-testid="error"' in html and "not_handler" in html and "SOUND-INT-1" in html
    assert api.state("g").records.sound_entries == ()


def test_a_citizen_follows_his_confrontation_request_through_the_pages(api: Api) -> None:
    """ROLE-CIT-5, SOUND-CONF-3: asked of the Tribune, forwarded to the Procurator, accepted;
    the requester sees each state on his page."""
    table, _dead = start(api)
    asker, target = table.game.living(LEPROGRAD)[:2]
    tribune = table.game.cities[LEPROGRAD].tribune
    r = submit(api, asker, "/games/g/sound", "/games/g/sound/request",
               {"kind": "confrontation", "target": target})
    assert r.status_code == 303 and "Заявка отправлена" in flash(api)

    def state_seen() -> str:
        html = page(api, asker, "/games/g/sound")
        return re.findall(r'data-testid="request-state">([^<]+)<', html)[0]

    assert state_seen() == "подана"
    held = page(api, tribune, "/games/g/sound")
    assert 'data-testid="held-requests"' in held and 'data-testid="forward"' in held
    assert submit(api, tribune, "/games/g/sound", "/games/g/sound/forward", {"request": "1"}).status_code == 303
    assert state_seen() == "передана Прокуратору"
    assert submit(api, "procurator", "/games/g/sound", "/games/g/sound/answer",
                  {"request": "1", "accept": "1"}).status_code == 303
    assert state_seen() == "принята"
    bad = submit(api, tribune, "/games/g/sound", "/games/g/sound/forward", {"request": "1"})
    assert bad.status_code == 303 and "not_handler" in flash(api)


# --- the archive -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def played() -> FinishedGame:
    return play_finished_game()


@pytest.fixture
def finished(api: Api, played: FinishedGame) -> FinishedGame:
    api.client.portal.call(import_game, api.web.service.store, "done", played.table)  # type: ignore[union-attr]
    s = played.table.game
    for user in {played.writer, *played.secret_members, "tribune1", s.cities[SICILY].residents[4]}:
        api.register(user)
    return played


def rows(html: str) -> dict[str, str]:
    """inbox id -> status, as the archive page shows them."""
    return dict(re.findall(r'data-inbox="([^"]+)" data-status="([^"]+)"', html))


def test_the_archive_page_shows_the_deal_check_votes_and_export(api: Api, finished: FinishedGame) -> None:
    """RANDOM-5: a check mark for the verified deal; every vote with its time; the export."""
    html = page(api, None, "/games/done/archive")
    assert 'data-testid="deal-check" data-verified="true"' in html and "✓" in html
    assert 'data-testid="votes"' in html and 'href="/api/games/done/archive/export"' in html
    assert 'data-testid="roles"' in html
    running = page(api, None, "/games/nope/archive", status=404)
    assert "not_found" in running


def test_who_may_open_what_after_the_game(api: Api, finished: FinishedGame) -> None:
    """§9.4 for an anonymous visitor, a former resident and a former host: the deal's notary
    open to all (RANDOM-5); mafia and City inboxes to whoever asks (an anonymous visitor
    cannot ask); a personal inbox waits for its resident; a secret inbox for every member."""
    s = finished.table.game
    mafia = next(i for i in s.inboxes.values() if i.kind == "mafia")
    notary = next(i for i in s.inboxes.values() if i.kind == "notary" and i.title == "RANDOM-2")
    city = next(i for i in s.inboxes.values() if i.kind == "city")
    anonymous = rows(page(api, None, "/games/done/archive"))
    resident = s.cities[SICILY].residents[4]
    former = rows(page(api, resident, "/games/done/archive"))
    host = rows(page(api, "tribune1", "/games/done/archive"))
    assert anonymous[notary.id] == former[notary.id] == host[notary.id] == "open"
    assert anonymous[mafia.id] == host[mafia.id] == "open"
    assert anonymous[finished.personal] == former[finished.personal] == "awaiting_consent"
    assert anonymous[finished.secret] == "awaiting_consent"
    assert anonymous[city.id] == "on_request"
    assert host[city.id] == "member" and host[finished.personal] == "member", "tribune1 read them"
    assert former[f"personal:{resident}:0"] == "member" and former[finished.personal] == "awaiting_consent"
    html = page(api, resident, "/games/done/archive")
    assert 'data-testid="request-access"' in html
    assert 'data-testid="request-access"' not in page(api, None, "/games/done/archive")
    closed = page(api, None, f"/games/done/archive/inbox?inbox={quote(finished.personal, safe='')}", status=403)
    assert "archive_inbox_closed" in closed and PERSONAL_TEXT not in closed


def test_consent_given_opens_a_personal_inbox_and_refused_keeps_it_closed(
        api: Api, finished: FinishedGame) -> None:
    """INBOX-PERS-3: the resident refuses — closed; then gives — open to everyone."""
    writer = finished.writer
    url = f"/games/done/archive/inbox?inbox={quote(finished.personal, safe='')}"
    mine = page(api, writer, "/games/done/archive")
    assert 'data-testid="consent-give"' in mine and 'data-testid="consent-refuse"' in mine
    r = submit(api, writer, "/games/done/archive", "/games/done/archive/consent",
               {"inbox": finished.personal, "consent": "0"})
    assert r.status_code == 303 and "Ответ записан" in flash(api)
    assert rows(page(api, None, "/games/done/archive"))[finished.personal] == "closed"
    assert PERSONAL_TEXT not in page(api, None, url, status=403)
    submit(api, writer, "/games/done/archive", "/games/done/archive/consent",
           {"inbox": finished.personal, "consent": "1"})
    assert rows(page(api, None, "/games/done/archive"))[finished.personal] == "open"
    assert PERSONAL_TEXT in page(api, None, url)


def test_a_former_resident_asks_for_a_city_inbox(api: Api, finished: FinishedGame) -> None:
    """AMB-33: the City inbox opens to whoever asks, and only to him."""
    s = finished.table.game
    asker = s.cities[SICILY].residents[4]
    city = next(i for i in s.inboxes.values() if i.kind == "city" and i.city == LEPROGRAD)
    r = submit(api, asker, "/games/done/archive", "/games/done/archive/request", {"inbox": city.id})
    assert r.status_code == 303 and "Доступ открыт" in flash(api)
    assert rows(page(api, asker, "/games/done/archive"))[city.id] == "open"
    assert rows(page(api, None, "/games/done/archive"))[city.id] == "on_request"


def test_the_day_post_links_the_entries_published_that_day(api: Api, tmp_path: Path) -> None:
    """Issue 6, SOUND-2: tribune1 publishes an interrogation on day 2; the game page's Day 2
    post lists it (kind, city, participant, duration) with a link to its library anchor,
    for an anonymous visitor too; the Day 1 post lists nothing."""
    table, _dead = start(api)
    citizen = next(u for u in table.game.living(LEPROGRAD))
    media = upload(api, "tribune1", audio.wav(tmp_path / "i.wav", 42), "interrogation").json()["media"]
    r = submit(api, "tribune1", f"/games/g/sound?media={media}", "/games/g/sound/publish",
               {"media": media, "kind": "interrogation", "participant": citizen, "city": LEPROGRAD})
    assert r.status_code == 303 and "Запись опубликована" in flash(api)
    html = page(api, None, "/games/g")
    cards = re.findall(r'<article class="card daypost.*?</article>', html, re.S)
    day = table.game.day
    latest = next(c for c in cards if f'id="daypost-{day}"' in c)
    sound = latest[latest.index('data-testid="daypost-sound"'):]
    assert f'href="/games/g/sound?city={quote(LEPROGRAD)}#entry-1"' in sound
    assert "допрос" in sound and LEPROGRAD in sound and citizen in sound and "0:42" in sound
    assert all('data-testid="daypost-sound"' not in c for c in cards if c is not latest)
    assert 'data-testid="daypost-sound"' in page(api, None, "/games/g/part/posts")


def test_the_archive_timeline_reads_as_sentences(api: Api, finished: FinishedGame) -> None:
    """§9.4, M7: the public timeline tells the common events in words (here Russian): the
    days, each public death with its faction and cause, every city's fate and the game's end;
    no raw type name or field dump is left (the bookkeeping events stay in the export)."""
    html = page(api, None, "/games/done/archive")
    timeline = html[html.index('data-testid="timeline"'):]
    timeline = timeline[:timeline.index("</ol>")]
    cells = dict(re.findall(r'<li data-type="(\w+)">(?:<time[^>]*>[^<]*</time> · )?([^<]*)</li>', timeline))
    assert cells["DayStarted"].startswith("Начался день")
    assert cells["GameEnded"].startswith("Игра окончена: ")
    for kind in ("DayPostPublished", "VotingClosed", "CityDecided"):
        assert kind in cells, kind
    assert not re.search(r">\s*[A-Z][a-z]+[A-Z]\w*\s*<", timeline), "no event class names"
    assert "{'" not in html and "DeadlineScheduled" not in html
    s = finished.table.game
    dead = [(u, r) for u, r in s.residents.items() if not r.alive]
    assert dead
    words = {"execution": "казнён", "night_kill": "убит ночью", "suicide": "покончил с собой"}
    faction = {"mafia": "мафия", "honest": "честный"}
    for user, r in dead:
        assert r.cause is not None and r.faction is not None
        assert f"{user} ({r.city}) {words[r.cause.value]}; {faction[r.faction.value]}." in timeline, user
    outcome = {"honest": "победа честных", "mafia": "победа мафии", "draw": "ничья"}
    for name, c in s.cities.items():
        assert c.decided is not None
        assert f"Судьба города {name} решена: {outcome[c.decided.value]}." in timeline
