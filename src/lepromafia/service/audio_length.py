"""Durations read from the audio itself, never from a header that may lie (F4-2).

- MP3: every MPEG audio frame is counted and its samples summed; a Xing, Info or VBRI
  header (an encoder's claim about the frame count) is skipped, not believed.
- WAV: the duration is the sample bytes actually in the file. A ``data`` chunk that
  claims fewer bytes than follow it (with nothing chunk-shaped after) counts all of them.
"""

from __future__ import annotations

import struct
from pathlib import Path

_BITRATES = {  # (version is MPEG-1, layer) -> kbit/s by index 1..14
    (True, 1): (32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (True, 2): (32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (True, 3): (32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (False, 1): (32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (False, 2): (8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (False, 3): (8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}
_ENCODER_TAGS = (b"Xing", b"Info", b"VBRI")


def _frame(header: bytes) -> tuple[int, int, int] | None:
    """``(length in bytes, samples, sample rate)`` of the frame starting with ``header``."""
    if len(header) < 4 or header[0] != 0xFF or header[1] & 0xE0 != 0xE0:
        return None
    version = (header[1] >> 3) & 3  # 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    layer = 4 - ((header[1] >> 1) & 3)  # 1, 2 or 3
    bitrate_index = header[2] >> 4
    rate_index = (header[2] >> 2) & 3
    if version == 1 or layer == 4 or bitrate_index in (0, 15) or rate_index == 3:
        return None
    mpeg1 = version == 3
    bitrate = _BITRATES[(mpeg1, layer)][bitrate_index - 1] * 1000
    rate = _RATES[version][rate_index]
    padding = (header[2] >> 1) & 1
    if layer == 1:
        return (12 * bitrate // rate + padding) * 4, 384, rate
    samples = 1152 if (layer == 2 or mpeg1) else 576
    return samples // 8 * bitrate // rate + padding, samples, rate


def _id3_end(data: bytes) -> int:
    if data[:3] != b"ID3" or len(data) < 10:
        return 0
    size = 0
    for byte in data[6:10]:
        size = (size << 7) | (byte & 0x7F)
    return 10 + size + (10 if data[5] & 0x10 else 0)


def mp3_duration_ms(path: Path) -> int:
    """The summed duration of every MPEG audio frame in the file (0 if none)."""
    data = path.read_bytes()
    pos = _id3_end(data)
    samples_ms = 0.0
    frames = 0
    while pos + 4 <= len(data):
        found = _frame(data[pos:pos + 4])
        if found is None:
            if frames and data[pos:pos + 3] == b"TAG":
                break  # the ID3v1 trailer
            nxt = data.find(b"\xff", pos + 1)  # lost sync: look for the next frame
            if nxt < 0:
                break
            pos = nxt
            continue
        length, samples, rate = found
        if length < 4:
            break
        body = data[pos + 4:pos + min(length, 64)]
        if not (frames == 0 and any(tag in body for tag in _ENCODER_TAGS)):
            samples_ms += samples * 1000 / rate
        frames += 1
        pos += length
    return round(samples_ms)


def wav_duration_ms(path: Path) -> int | None:
    """The duration of the sample bytes in the file; None if it is not a RIFF/WAVE file."""
    data = path.read_bytes()
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos = 12
    byte_rate = 0
    while pos + 8 <= len(data):
        chunk, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        start = pos + 8
        if chunk == b"fmt " and size >= 16:
            byte_rate = struct.unpack("<I", data[start + 8:start + 12])[0]
        elif chunk == b"data":
            end = start + size
            if end > len(data) or not _chunks_to_end(data, end + (size & 1)):
                end = len(data)  # the header's size lies: the bytes that are there count
            return round((end - start) * 1000 / byte_rate) if byte_rate else None
        pos = start + size + (size & 1)
    return None


def _chunks_to_end(data: bytes, pos: int) -> bool:
    """What follows is nothing, or well-formed chunks that end exactly at the file's end."""
    while pos + 8 <= len(data):
        chunk = data[pos:pos + 4]
        if not all(32 <= c < 127 for c in chunk):
            return False
        size = struct.unpack("<I", data[pos + 4:pos + 8])[0]
        pos += 8 + size + (size & 1)
    return pos == len(data) or pos == len(data) + 1
