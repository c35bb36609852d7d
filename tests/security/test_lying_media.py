"""F4-2 (SOUND-CONF-4, SOUND-LW-4): a recording's length is read from its audio, not from
a header that may lie.

Scenario of the review: a candidate uploads a Last Word of 3:20 whose header claims one
second — an MP3 with a Xing header claiming 38 frames, and a WAV whose data chunk claims
one second of samples while 3:20 of them follow. Both are measured at 3:20 and refused.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from lepromafia.service.audio_length import mp3_duration_ms, wav_duration_ms
from lepromafia.service.media import MediaErrorCode, measure
from lepromafia.web.i18n import error_message

from ..service import audio_files as audio

FRAME_MS = 24  # MPEG-1 Layer III, 48 kHz: 1152 samples


def xing_frame(claimed_frames: int) -> bytes:
    """A LAME-style first frame: a Xing header claiming ``claimed_frames`` frames."""
    body = bytearray(audio.MP3_FRAME)
    tag = b"Xing" + struct.pack(">I", 0x1) + struct.pack(">I", claimed_frames)
    body[4 + 17:4 + 17 + len(tag)] = tag  # after the mono side information
    return bytes(body)


def lying_mp3(path: Path, seconds: float, claimed_frames: int) -> Path:
    path.write_bytes(xing_frame(claimed_frames) + audio.MP3_FRAME * round(seconds * 1000 / FRAME_MS))
    return path


def lying_wav(path: Path, seconds: float, claimed_seconds: float, rate: int = 8000) -> Path:
    """An 8-bit mono WAV whose RIFF and data sizes claim ``claimed_seconds``."""
    real, claimed = round(rate * seconds), round(rate * claimed_seconds)
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate, 1, 8)
    header = (b"RIFF" + struct.pack("<I", 36 + claimed) + b"WAVE" + b"fmt " + struct.pack("<I", 16)
              + fmt + b"data" + struct.pack("<I", claimed))
    path.write_bytes(header + b"\x80" * real)
    return path


def test_an_mp3_whose_xing_header_claims_one_second_is_measured_at_3_20_and_refused(
        tmp_path: Path) -> None:
    """F4-2, SOUND-LW-4: mutagen believes the Xing header (0:01); the frames say 3:20."""
    from mutagen.mp3 import MP3

    path = lying_mp3(tmp_path / "lw.mp3", 200, claimed_frames=38)
    assert MP3(str(path)).info.length < 1.5, "the header does lie"
    assert abs(measure(path).duration_ms - 200_000) <= FRAME_MS
    assert measure(path).seconds == 200


def test_a_wav_whose_data_chunk_claims_one_second_is_measured_at_3_20(tmp_path: Path) -> None:
    """F4-2: the data chunk says 8 000 bytes; 1 600 000 follow."""
    import wave

    path = lying_wav(tmp_path / "lw.wav", 200, claimed_seconds=1)
    with wave.open(str(path)) as w:
        assert w.getnframes() == 8000, "the header does lie"
    assert measure(path).duration_ms == 200_000


def test_honest_files_measure_as_before(tmp_path: Path) -> None:
    """The frame count and the byte count agree with honest headers (and an honest Xing)."""
    assert mp3_duration_ms(audio.mp3(tmp_path / "a.mp3", 180)) == 180_000
    assert abs(mp3_duration_ms(lying_mp3(tmp_path / "b.mp3", 60, claimed_frames=2500)) - 60_000) <= 24
    assert wav_duration_ms(audio.wav(tmp_path / "c.wav", 95.5)) == 95_500
    # a WAV with a LIST chunk after its data is honest: only the data counts
    path = audio.wav(tmp_path / "d.wav", 2)
    data = path.read_bytes() + b"LIST" + struct.pack("<I", 4) + b"INFO"
    path.write_bytes(data[:4] + struct.pack("<I", len(data) - 8) + data[8:])
    assert wav_duration_ms(path) == 2000


@pytest.mark.parametrize("kind", ["mp3", "wav"])
def test_a_lying_last_word_upload_is_refused_as_too_long(tmp_path: Path, kind: str) -> None:
    """F4-2 end to end through the media library: 422 ``media_too_long`` (3:20)."""
    import random

    from lepromafia.bots.setup import default_cast, setup_game
    from lepromafia.engine.records import SoundKind
    from lepromafia.service.media import LocalBlobStore, MediaError, MediaLibrary

    table = setup_game(random.Random(3), default_cast(2, 6))
    lib = MediaLibrary(LocalBlobStore(tmp_path / "media"))
    path = (lying_mp3(tmp_path / "lw.mp3", 200, 38) if kind == "mp3"
            else lying_wav(tmp_path / "lw.wav", 200, 1))
    with path.open("rb") as f, pytest.raises(MediaError) as err:
        lib.ingest(f, state=table.state, game="g", user=table.state.procurator,
                   kind=SoundKind.CONFRONTATION.value, now=table.state.created_at)
    assert err.value.code is MediaErrorCode.TOO_LONG
    assert "3:20" in error_message("en", err.value)
