"""Audio files of exact durations, made here (no downloads): WAV by ``wave``, Ogg/Opus
pages by mutagen's ``OggPage``, a run of MPEG-1 Layer III frames, and a minimal WebM
(EBML) as the browser's MediaRecorder writes it (a Segment and Clusters of unknown size,
no Duration element, 20 ms Opus packets)."""

from __future__ import annotations

import struct
import wave
from pathlib import Path

from mutagen.ogg import OggPage


def wav(path: Path, seconds: float, rate: int = 8000) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(rate)
        w.writeframes(b"\x80" * round(rate * seconds))
    return path


def ogg_opus(path: Path, seconds: float, pre_skip: int = 312) -> Path:
    head = b"OpusHead" + struct.pack("<BBHIhB", 1, 1, pre_skip, 48000, 0, 0)
    tags = b"OpusTags" + struct.pack("<I", 4) + b"test" + struct.pack("<I", 0)
    pages = []
    for sequence, (packet, granule) in enumerate(
            [(head, 0), (tags, 0), (b"\xf8\xff\xfe", pre_skip + round(48000 * seconds))]):
        page = OggPage()
        page.packets = [packet]
        page.serial = 1
        page.sequence = sequence
        page.position = granule
        page.first = sequence == 0
        page.last = sequence == 2
        pages.append(page.write())
    path.write_bytes(b"".join(pages))
    return path


MP3_FRAME = b"\xff\xfb\x94\xc0" + b"\x00" * 380
"""MPEG-1 Layer III, 128 kbit/s, 48 kHz, mono: 384 bytes and 1152 samples (24 ms)."""


def mp3(path: Path, seconds: float) -> Path:
    path.write_bytes(MP3_FRAME * round(seconds / 0.024))
    return path


# --- WebM ---------------------------------------------------------------------------------


def _id(element: int) -> bytes:
    return element.to_bytes((element.bit_length() + 7) // 8, "big")


def _size(n: int) -> bytes:
    return (n | (1 << 56)).to_bytes(8, "big")  # an 8-byte EBML size


UNKNOWN_SIZE = b"\x01\xff\xff\xff\xff\xff\xff\xff"


def _el(element: int, payload: bytes) -> bytes:
    return _id(element) + _size(len(payload)) + payload


def _uint(element: int, value: int) -> bytes:
    return _el(element, value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big"))


def webm(path: Path, seconds: float, *, video: bool = False, declared: float | None = None) -> Path:
    """An audio-only WebM with one Opus track and 20 ms packets, in 1-second Clusters."""
    header = _el(0x1A45DFA3, _uint(0x4286, 1) + _el(0x4282, b"webm") + _uint(0x4287, 4))
    info = _uint(0x2AD7B1, 1_000_000) + _el(0x4D80, b"test")
    if declared is not None:
        info += _el(0x4489, struct.pack(">d", declared * 1000))
    track = _uint(0xD7, 1) + _uint(0x83, 2) + _el(0x86, b"A_OPUS")
    tracks = _el(0xAE, track)
    if video:
        tracks += _el(0xAE, _uint(0xD7, 2) + _uint(0x83, 1) + _el(0x86, b"V_VP8"))
    body = _el(0x1549A966, info) + _el(0x1654AE6B, tracks)
    packets = round(seconds / 0.020)
    for start in range(0, packets, 50):
        cluster = _uint(0xE7, start * 20)
        for i in range(start, min(start + 50, packets)):
            relative = (i - start) * 20
            block = b"\x81" + relative.to_bytes(2, "big") + b"\x80" + b"\xf8\xff\xfe"
            cluster += _el(0xA3, block)
        body += _id(0x1F43B675) + UNKNOWN_SIZE + cluster
    path.write_bytes(header + _id(0x18538067) + UNKNOWN_SIZE + body)
    return path
