"""The web demo (review M8): its vote lasts at least two real minutes, its days after the first
start at 06:00, the visitor's seat «demo» is never moved against by the bots, and a finished
game is followed by the next one.

Cast: ``cli.demo_serve.live_cast()`` — Лепроград (demo, p1_02 … p1_08), Глюкоград, Баянск, the
Procurator «procurator». Rules: TIME-4 (the Procurator sets a day's start), EXEC-3, EXEC-5,
MAFIA-KILL-1 (a kill order on «demo» becomes «no kill»).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from lepromafia.cli import demo_serve, demo_sound
from lepromafia.cli.demo_serve import HUMAN_SEAT, DemoBots, demo_scale, live_id
from lepromafia.engine import commands as cmd
from lepromafia.engine.state import NO_KILL

from .conftest import Api, make_api


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    monkeypatch.setenv("LEPROMAFIA_MEDIA_DIR", str(tmp_path / "media"))  # the seeded recordings
    yield from make_api(tmp_path, time_scale=720.0)


def test_a_newcomer_finds_recordings_to_play_in_the_demo_sound_library_m13(demo: Api) -> None:
    """Review m13, SOUND-INT-1, SOUND-2: a fresh demo game opens with one interrogation per
    city, each held by its Tribune with one of its residents; a visitor who is not logged in
    sees them on the Sound Library page and can play each (a WAV of its measured length).
    Seeding again adds nothing."""
    web = demo.web
    demo.client.portal.call(demo_serve._new_live_game, web, live_id(1), 1, random.Random(3))  # type: ignore[union-attr]
    s = demo.state(live_id(1))
    entries = s.records.sound_entries
    assert [(e.kind.value, e.city, e.host) for e in entries] == [
        ("interrogation", "Лепроград", "tribune1"), ("interrogation", "Глюкоград", "tribune2"),
        ("interrogation", "Баянск", "tribune3")]
    assert all(e.participants[0] in s.cities[e.city].residents and e.duration_seconds >= 12
               for e in entries)
    for e in entries:  # the library is read city by city
        page = demo.client.get(f"/games/{live_id(1)}/sound", params={"city": e.city}).text
        assert page.count('data-testid="sound-entry"') == 1 and 'data-testid="player"' in page
        assert e.participants[0] in page and any(notes in page for _c, _r, notes in demo_sound.SEEDS)
    for e in entries:
        played = demo.client.get(f"/api/games/{live_id(1)}/sound/media/{e.media}")
        assert played.status_code == 200 and played.content[:4] == b"RIFF"
        assert played.headers["content-type"].startswith("audio/")
    again = demo.client.portal.call(demo_sound.seed_sound_library, web, live_id(1))  # type: ignore[union-attr]
    assert again == 0 and len(demo.state(live_id(1)).records.sound_entries) == 3


def test_the_demo_vote_lasts_at_least_two_real_minutes_and_days_start_at_six(demo: Api) -> None:
    """At the server's 720× the demo game runs slower, so that 15:30–23:50 of game time is
    150 real seconds; Day 2 is set to start at 06:00 by the Procurator (TIME-4)."""
    web = demo.web
    demo.client.portal.call(demo_serve._new_live_game, web, live_id(1), 1, random.Random(3))  # type: ignore[union-attr]
    s = demo.state(live_id(1))
    assert s.settings.default_vote_opens == "15:30" and s.settings.default_vote_closes == "23:50"
    meta = demo.client.portal.call(web.queries.current, live_id(1)).meta  # type: ignore[union-attr]
    window = timedelta(hours=8, minutes=20).total_seconds() / meta.clock.scale
    assert window >= 120 and meta.clock.scale == demo_scale(720.0) < 720
    demo.client.portal.call(demo_serve._mornings, web, live_id(1), "procurator")  # type: ignore[union-attr]
    assert demo.state(live_id(1)).day_starts.get(2) == "06:00"


class Stop(Exception):
    pass


class Recorder:
    def __init__(self) -> None:
        self.sent: list[cmd.Command] = []

    async def __call__(self, game: str, command: cmd.Command, command_id: str) -> Any:
        self.sent.append(command)


@pytest.mark.parametrize("command, sent", [
    (cmd.Nominate(actor="p1_02", candidate=HUMAN_SEAT), None),
    (cmd.Nominate(actor="p1_02", candidate="p1_03"), "p1_03"),
    (cmd.DeclareKill(actor="p1_02", target=HUMAN_SEAT), NO_KILL),
    (cmd.PostMessage(actor="p1_02", inbox="voting:Лепроград/demo/2:0", text="казнить"), None),
    (cmd.PostMessage(actor="p1_02", inbox="city:Лепроград:1", text="Кто?"), "Кто?"),
])
def test_the_demo_bots_never_move_against_the_visitor(demo: Api, command: cmd.Command, sent: Any) -> None:
    """EXEC-3, EXEC-5, MAFIA-KILL-1: no nomination of «demo», no «казнить» in his voting inbox,
    a kill of him becomes «no kill»; everything else passes unchanged."""
    recorder = Recorder()
    bots = DemoBots(demo.web.service, "g", random.Random(1), humans={HUMAN_SEAT},
                    protected=frozenset({HUMAN_SEAT}), execute=recorder)

    class Box:
        def __init__(self, kind: str, subject: str | None) -> None:
            self.kind, self.subject = kind, subject

    bots.state = type("S", (), {"inboxes": {"voting:Лепроград/demo/2:0": Box("voting", HUMAN_SEAT),
                                             "city:Лепроград:1": Box("city", None)}})()  # type: ignore[assignment]
    demo.client.portal.call(bots.do, command)  # type: ignore[union-attr]
    got = [getattr(c, "candidate", None) or getattr(c, "target", None) or getattr(c, "text", None)
           for c in recorder.sent]
    assert got == ([] if sent is None else [sent])


def test_a_finished_demo_game_is_followed_by_the_next(demo: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop: ``keep_live_demo`` creates ``demo-live`` and lets the bots play it; once they
    stop (the game finished), the next one, ``demo-live-2``, is created."""
    created: list[str] = []
    played: list[str] = []

    async def new(web: Any, game_id: str, n: int, rng: Any) -> None:
        created.append(game_id)
        if len(created) == 2:
            raise Stop  # the endless loop ends here

    async def play(web: Any, game_id: str, rng: Any, poll: float) -> None:
        played.append(game_id)

    async def absent(web: Any, game_id: str) -> bool:
        return False

    async def running(web: Any, game_id: str) -> str:
        return "running"

    monkeypatch.setattr(demo_serve, "_new_live_game", new)
    monkeypatch.setattr(demo_serve, "_play", play)
    monkeypatch.setattr(demo_serve, "_exists", absent)
    monkeypatch.setattr(demo_serve, "_stage_of", running)
    with pytest.raises(Stop):
        demo.client.portal.call(demo_serve.keep_live_demo, demo.web, random.Random(1), 0.0)  # type: ignore[union-attr]
    assert created == ["demo-live", "demo-live-2"] and played == ["demo-live"]
