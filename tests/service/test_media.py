"""The Sound Library's media: measured uploads, storage, ranges, and who may hear an entry.

Cast: the bots' default cast (``procurator``, ``tribune1``/``tribune2``, residents
``p01_01``…); files are made in the test at exact durations.
"""

from __future__ import annotations

import io
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from lepromafia.bots.agents import RandomBots
from lepromafia.bots.setup import default_cast, setup_game
from lepromafia.engine.commands_host import AnswerSoundRequest, PublishSoundEntry, RequestSound
from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.records import SoundKind
from lepromafia.engine.state import DeathCause, GameState, Stage
from lepromafia.engine.table import Table, next_deadline
from lepromafia.service.media import (
    LocalBlobStore,
    MediaError,
    MediaErrorCode,
    MediaLibrary,
    MediaLimits,
    library,
    may_play,
    measure,
    parse_range,
)
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.web.i18n import error_message

from . import audio_files as audio
from .helpers import Ids, manual_clock, run, small_cast
from .helpers import setup_game as setup_service_game


def make_library(tmp_path: Path, **limits: Any) -> MediaLibrary:
    return MediaLibrary(LocalBlobStore(tmp_path / "media"), MediaLimits(**limits))


def running_table(settings: dict[str, Any] | None = None, seed: int = 5) -> Table:
    """A 2×6 game played by bots until someone lies in a Cemetery (not a suicide)."""
    rng = random.Random(seed)
    table = setup_game(rng, default_cast(2, 6), settings)
    bots = RandomBots(rng, mischief=0.0)
    while True:
        s = table.game
        if any(not r.alive and r.cause is not DeathCause.SUICIDE for r in s.residents.values()):
            break
        nxt = next_deadline(s)
        assert nxt is not None and s.stage is Stage.RUNNING, "the game ended before a death"
        before = len(table.events)
        table.advance(nxt[1], seed=lambda: rng.randrange(1 << 31))
        bots.react(table, table.events[before:])
    assert table.game.stage is Stage.RUNNING
    return table


def ingest(lib: MediaLibrary, state: GameState, path: Path, kind: str = "confrontation",
           user: str = "tribune1") -> Any:
    with path.open("rb") as f:
        return lib.ingest(f, state=state, game="g", user=user, kind=kind,
                          now=state.created_at)


@pytest.fixture(scope="module")
def table() -> Table:
    return running_table()


# --- measuring --------------------------------------------------------------------------


@pytest.mark.parametrize("make, fmt, ctype", [
    (audio.wav, "wav", "audio/wav"),
    (audio.ogg_opus, "opus", "audio/ogg"),
    (audio.mp3, "mp3", "audio/mpeg"),
    (audio.webm, "webm/A_OPUS", "audio/webm"),
])
def test_the_duration_is_read_from_the_file_in_every_accepted_format(
        tmp_path: Path, make: Any, fmt: str, ctype: str) -> None:
    """SOUND-3: the server measures the recording itself (3:00 exactly)."""
    measured = measure(make(tmp_path / "rec", 180))
    assert (measured.format, measured.content_type) == (fmt, ctype)
    assert measured.duration_ms == 180_000
    assert measured.seconds == 180


def test_a_webm_without_a_duration_header_is_measured_by_its_blocks_and_a_short_header_is_ignored(
        tmp_path: Path) -> None:
    """MediaRecorder writes no Duration: the blocks count; a header claiming 10 s is overruled."""
    assert measure(audio.webm(tmp_path / "a", 95.5)).duration_ms == 95_500
    assert measure(audio.webm(tmp_path / "b", 181, declared=10)).duration_ms == 181_000


@pytest.mark.parametrize("content", [
    b"", "казнить\n".encode() * 100, b"OggS" + b"\x00" * 200, b"\x1a\x45\xdf\xa3garbage",
])
def test_anything_that_is_not_audio_is_rejected_with_a_code(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "renamed.ogg"
    path.write_bytes(content)
    with pytest.raises(MediaError) as err:
        measure(path)
    assert err.value.code in (MediaErrorCode.NOT_AUDIO, MediaErrorCode.EMPTY)
    assert error_message("ru", err.value) and error_message("en", err.value)


def test_a_webm_with_a_video_track_is_not_a_recording_for_the_library(tmp_path: Path) -> None:
    with pytest.raises(MediaError) as err:
        measure(audio.webm(tmp_path / "v", 5, video=True))
    assert err.value.code is MediaErrorCode.NOT_AUDIO


# --- ingesting ----------------------------------------------------------------------------


def test_a_3_00_confrontation_is_stored_and_a_3_01_one_is_rejected(tmp_path: Path, table: Table) -> None:
    """SOUND-CONF-4: at most 3 minutes; nothing of the rejected file is kept."""
    lib = make_library(tmp_path)
    ok = ingest(lib, table.game, audio.wav(tmp_path / "ok.wav", 180))
    assert (ok.duration_seconds, ok.content_type) == (180, "audio/wav")
    assert lib.info(ok.media_id) == ok
    stored = tmp_path / "media" / ok.media_id[:2] / ok.media_id
    assert stored.read_bytes() == (tmp_path / "ok.wav").read_bytes()
    assert stored.stat().st_mode & 0o111 == 0, "a stored file is never executable"
    with pytest.raises(MediaError) as err:
        ingest(lib, table.game, audio.ogg_opus(tmp_path / "long.opus", 181))
    assert (err.value.code, err.value.rule) == (MediaErrorCode.TOO_LONG, "SOUND-CONF-4")
    assert error_message("ru", err.value) == "Запись длится 3:01, а можно не больше 3 мин."
    assert error_message("en", err.value) == "The recording lasts 3:01; the limit is 3 minutes"
    files = [p for p in (tmp_path / "media").rglob("*") if p.is_file()]
    assert len(files) == 2, "only the accepted file and its metadata"


def test_the_last_word_limit_comes_from_its_own_setting(tmp_path: Path) -> None:
    """SOUND-LW-4: last_word_max_minutes, here 2; a 2:30 Last Word is too long."""
    state = running_table({"last_word_max_minutes": 2}).game
    with pytest.raises(MediaError) as err:
        ingest(make_library(tmp_path), state, audio.wav(tmp_path / "lw.wav", 150), kind="last_word")
    assert (err.value.code, err.value.rule, err.value.fields["limit"]) == (
        MediaErrorCode.TOO_LONG, "SOUND-LW-4", 2)


def test_an_upload_over_the_size_limit_stops_at_the_limit(tmp_path: Path, table: Table) -> None:
    lib = make_library(tmp_path, max_bytes=10_000)
    with pytest.raises(MediaError) as err:
        lib.ingest(io.BytesIO(b"\x00" * 20_000), state=table.game, game="g", user="tribune1",
                   kind="confrontation", now=table.game.created_at)
    assert err.value.code is MediaErrorCode.TOO_LARGE and err.value.status == 413
    assert not (tmp_path / "media").exists()


def test_only_hosts_and_a_resident_for_his_last_word_may_upload(tmp_path: Path, table: Table) -> None:
    lib = make_library(tmp_path)
    rec = audio.wav(tmp_path / "r.wav", 3)
    living = table.game.living("Лепроград")[0]
    with pytest.raises(MediaError) as err:
        ingest(lib, table.game, rec, kind="confrontation", user=living)
    assert err.value.code is MediaErrorCode.NOT_ALLOWED
    with pytest.raises(MediaError) as err:
        ingest(lib, table.game, rec, kind="séance", user="procurator")
    assert err.value.code is MediaErrorCode.KIND_INVALID
    assert ingest(lib, table.game, rec, kind="last_word", user=living).duration_seconds == 3


def test_the_same_bytes_twice_are_one_file_with_both_uploaders(tmp_path: Path, table: Table) -> None:
    lib = make_library(tmp_path)
    rec = audio.mp3(tmp_path / "r.mp3", 12)
    first = ingest(lib, table.game, rec, user="tribune1")
    second = ingest(lib, table.game, rec, user="procurator")
    assert first.media_id == second.media_id
    assert {u.user for u in second.uploads} == {"tribune1", "procurator"}


# --- visibility ---------------------------------------------------------------------------


def _publish_seance(lib: MediaLibrary, table: Table, tmp_path: Path) -> tuple[str, str]:
    s = table.game
    dead = next(r for r in s.residents.values() if not r.alive and r.cause is not DeathCause.SUICIDE)
    info = ingest(lib, s, audio.webm(tmp_path / "seance.webm", 60), kind="seance", user="procurator")
    command = lib.publish_command(s, "g", "procurator", kind="seance", media=info.media_id,
                                  participants=(dead.user,))
    assert command.duration_seconds == 60
    table.do(command, table.events[-1].at)
    return info.media_id, dead.city


def test_a_seance_in_a_city_only_library_is_heard_by_its_city_observers_and_hosts_only(
        tmp_path: Path) -> None:
    """SOUND-2 (AMB-29) ``city_only``: residents, observers and hosts of the séance's city."""
    table = running_table({"sound_library_visibility": "city_only"})
    lib = make_library(tmp_path)
    media, city = _publish_seance(lib, table, tmp_path)
    s = table.game
    other = next(name for name in s.cities if name != city)
    own, outsider = s.cities[city].residents[0], s.cities[other].residents[0]
    info = lib.info(media)
    assert info is not None
    for viewer in (own, "procurator", "arbiter", "consigliere", s.cities[other].tribune):
        assert [e["media"] for e in library(s, viewer)] == [media], viewer
        assert may_play(s, "g", info, viewer), viewer
    for viewer in (outsider, None, "stranger"):
        assert library(s, viewer) == [], viewer
        assert not may_play(s, "g", info, viewer), viewer


def test_a_public_library_is_heard_by_everyone_even_anonymously(tmp_path: Path) -> None:
    """SOUND-2: public by default, like the Day Post."""
    table = running_table()
    lib = make_library(tmp_path)
    media, _ = _publish_seance(lib, table, tmp_path)
    info = lib.info(media)
    assert info is not None and may_play(table.game, "g", info, None)
    assert library(table.game, None)[0]["kind"] == SoundKind.SEANCE.value


def test_an_unpublished_upload_is_heard_only_by_its_uploader(tmp_path: Path, table: Table) -> None:
    lib = make_library(tmp_path)
    info = ingest(lib, table.game, audio.wav(tmp_path / "draft.wav", 5), user="tribune1")
    assert may_play(table.game, "g", info, "tribune1")
    assert not may_play(table.game, "g", info, "procurator")
    assert not may_play(table.game, "other-game", info, "tribune1")


def test_publishing_needs_a_file_uploaded_to_this_game(tmp_path: Path, table: Table) -> None:
    lib = make_library(tmp_path)
    with pytest.raises(MediaError) as err:
        lib.publish_command(table.game, "g", "procurator", kind="interrogation", media="f" * 64)
    assert err.value.code is MediaErrorCode.NOT_FOUND
    info = ingest(lib, table.game, audio.wav(tmp_path / "x.wav", 5), user="tribune1")
    with pytest.raises(MediaError):
        lib.publish_command(table.game, "other", "procurator", kind="interrogation", media=info.media_id)


# --- ranges ---------------------------------------------------------------------------------


def test_byte_ranges_as_browsers_send_them(tmp_path: Path) -> None:
    assert parse_range(None, 1000) is None
    assert parse_range("bytes=0-", 1000) == (0, 999)
    assert parse_range("bytes=100-199", 1000) == (100, 199)
    assert parse_range("bytes=900-5000", 1000) == (900, 999)
    assert parse_range("bytes=-100", 1000) == (900, 999)
    assert parse_range("bytes=0-1,5-6", 1000) is None  # several ranges: the whole file
    assert parse_range("items=0-1", 1000) is None
    for bad in ("bytes=1000-", "bytes=5-1"):
        with pytest.raises(MediaError) as err:
            parse_range(bad, 1000)
        assert err.value.status == 416
    store = LocalBlobStore(tmp_path)
    src = tmp_path / "src"
    src.write_bytes(bytes(range(256)) * 1000)
    store.put("a" * 64, src)
    assert b"".join(store.read("a" * 64, 10, 19)) == bytes(range(10, 20))
    assert store.size("a" * 64) == 256_000
    with pytest.raises(MediaError):
        store.exists("../../etc/passwd") or store.size("../../etc/passwd")


# --- the whole flow through the service ----------------------------------------------------


def test_upload_then_publish_through_the_service_carries_the_measured_duration(
        backend: DatabaseConfig, tmp_path: Path) -> None:
    """SOUND-INT-1, SOUND-3: a Tribune's interrogation, 2:59.6 long, is published as 3:00
    (180 s); a forged 181 s command is refused by the engine itself (SOUND-CONF-4)."""

    async def go() -> None:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock) as svc:
            ids = Ids()
            await setup_service_game(svc, "g", small_cast(), ids=ids)
            clock.advance(timedelta(days=3, hours=11))
            await svc.sweep()
            s = await svc.state("g")
            lib = make_library(tmp_path)
            resident = s.cities["Лепроград"].residents[0]
            info = ingest(lib, s, audio.wav(tmp_path / "i.wav", 179.6), kind="interrogation")
            assert info.duration_seconds == 180
            command = lib.publish_command(s, "g", "tribune1", kind="interrogation",
                                          media=info.media_id, participants=(resident,))
            await svc.execute("g", command, ids())
            entry = (await svc.state("g")).records.sound_entries[-1]
            assert (entry.media, entry.duration_seconds, entry.host) == (info.media_id, 180, "tribune1")
            # a confrontation needs a request; the engine's own limit stands behind the upload's
            other = s.cities["Лепроград"].residents[1]
            await svc.execute("g", RequestSound(actor=other, kind="confrontation", target=resident),
                              ids())
            number = (await svc.state("g")).records.sound_requests[-1].number
            await svc.execute("g", AnswerSoundRequest(actor="tribune1", request=number, accept=True), ids())
            with pytest.raises(RuleViolation) as err:
                await svc.execute("g", PublishSoundEntry(
                    actor="tribune1", kind="confrontation", media=info.media_id,
                    duration_seconds=181, request=number), ids())
            assert err.value.code is ErrorCode.SOUND_TOO_LONG

    run(go())
