"""The demo's Sound Library (review m13): when a demo game starts, each city's Tribune has
already held one short interrogation (SOUND-INT-1, HOST-PROC-4: a host calls a citizen on
his own initiative), so a newcomer finds recordings to play from any seat.

The recordings are made here, with the standard library (``wave``): a few seconds of soft
tones, not speech. They go through the same path as a host's upload — the media library
measures and stores them, the engine command carries the measured length and the engine
decides who may publish what.
"""

from __future__ import annotations

import io
import math
import wave
from datetime import datetime

from ..engine.calendar import MOSCOW
from ..service.media import MediaLibrary
from ..web.deps import Web

RATE = 8000

SEEDS: tuple[tuple[int, int, str], ...] = (
    (0, 1, "Допрос перед первым днём: кто что видел в ночь заселения."),
    (1, 0, "Трибун расспрашивает первого жителя о его соседях."),
    (2, 2, "Короткий разговор о планах на голосование."),
)
"""(city index, resident index, notes): one interrogation per city of the demo's cast."""


def tones(seconds: int, pitch: float) -> bytes:
    """A WAV of ``seconds`` of a soft tone that rises and falls every second."""
    frames = bytearray()
    for n in range(RATE * seconds):
        t = n / RATE
        swell = 0.5 - 0.5 * math.cos(2 * math.pi * t)
        frames.append(128 + round(40 * swell * math.sin(2 * math.pi * pitch * t)))
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(RATE)
        w.writeframes(bytes(frames))
    return out.getvalue()


async def seed_sound_library(web: Web, game_id: str, media: MediaLibrary | None = None) -> int:
    """Publish the demo's interrogations in ``game_id`` (idempotent: a game that has entries
    gets none). ``media`` is the web's media library (by default the one it reads from the
    environment, as ``web/api/sound.media_library`` does). Returns how many were published."""
    library = media or MediaLibrary.from_env()
    s = await web.service.state(game_id)
    if s.records.sound_entries:
        return 0
    cities = list(s.cities.values())
    published = 0
    for number, (city_index, resident_index, notes) in enumerate(SEEDS, 1):
        if city_index >= len(cities):
            continue
        city = cities[city_index]
        target = city.residents[resident_index % len(city.residents)]
        now = datetime.fromtimestamp(web.service.clock.now(), MOSCOW)
        info = library.ingest(io.BytesIO(tones(8 + 4 * number, 330.0 + 55 * number)), state=s,
                              game=game_id, user=city.tribune, kind="interrogation", now=now)
        command = library.publish_command(s, game_id, city.tribune, kind="interrogation",
                                          media=info.media_id, participants=(target,), notes=notes)
        await web.service.execute(game_id, command, f"demo-sound-{game_id}-{number}")
        s = await web.service.state(game_id)
        published += 1
    return published
