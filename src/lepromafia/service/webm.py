"""The duration of an audio-only WebM (Matroska) file, the browser's MediaRecorder format.

mutagen reads every other format the Sound Library takes but not Matroska, and a browser
recording often has no Duration element at all (it is written live). So the duration is
measured from the blocks themselves: the span of their timecodes plus the last block's
length, and, for Opus, the sum of every packet's length read from its TOC byte
(RFC 6716 §3.1). The largest of these and the declared Duration counts, so a file cannot
make itself shorter by its header alone.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from typing import BinaryIO

EBML = 0x1A45DFA3
DOC_TYPE = 0x4282
SEGMENT = 0x18538067
INFO = 0x1549A966
TIMECODE_SCALE = 0x2AD7B1
DURATION = 0x4489
TRACKS = 0x1654AE6B
TRACK_ENTRY = 0xAE
TRACK_NUMBER = 0xD7
TRACK_TYPE = 0x83
CODEC_ID = 0x86
CLUSTER = 0x1F43B675
CLUSTER_TIMECODE = 0xE7
SIMPLE_BLOCK = 0xA3
BLOCK_GROUP = 0xA0
BLOCK = 0xA1
BLOCK_DURATION = 0x9B

LEVEL1 = frozenset({0x114D9B74, INFO, TRACKS, CLUSTER, 0x1C53BB6B, 0x1941A469, 0x1043A770,
                    0x1254C367})
"""Segment children: where an element of unknown size (a live Cluster) ends."""
UNKNOWN = -1
MAX_ELEMENT = 1 << 40
TRACK_AUDIO, TRACK_VIDEO = 2, 1


class NotWebm(ValueError):
    """Not an audio-only WebM file that can be measured."""


@dataclass
class _Scan:
    scale_ns: int = 1_000_000
    declared: float = 0.0
    audio_tracks: set[int] | None = None
    opus_tracks: set[int] | None = None
    has_video: bool = False
    first_tc: int | None = None
    last_tc: int = 0
    last_len_ns: int = 0
    opus_ns: int = 0
    blocks: int = 0


def _vint(f: BinaryIO, keep_marker: bool) -> tuple[int, int]:
    """An EBML variable-length integer: (value, width). UNKNOWN for an all-ones size."""
    first = f.read(1)
    if not first:
        raise EOFError
    b = first[0]
    width = 1
    mask = 0x80
    while width <= 8 and not b & mask:
        mask >>= 1
        width += 1
    if width > 8:
        raise NotWebm("bad EBML number")
    rest = f.read(width - 1)
    if len(rest) != width - 1:
        raise EOFError
    value = b if keep_marker else b & (mask - 1)
    for x in rest:
        value = (value << 8) | x
    if not keep_marker and value == (1 << (7 * width)) - 1:
        return UNKNOWN, width
    return value, width


def _header(f: BinaryIO) -> tuple[int, int]:
    element, _ = _vint(f, keep_marker=True)
    size, _ = _vint(f, keep_marker=False)
    if size > MAX_ELEMENT:
        raise NotWebm("element too large")
    return element, size


def _uint(data: bytes) -> int:
    return int.from_bytes(data, "big") if data else 0


def _float(data: bytes) -> float:
    if len(data) == 4:
        return float(struct.unpack(">f", data)[0])
    if len(data) == 8:
        return float(struct.unpack(">d", data)[0])
    return 0.0


def _read(f: BinaryIO, size: int) -> bytes:
    if size == UNKNOWN or size > 1 << 24:
        raise NotWebm("a leaf element of unusable size")
    data = f.read(size)
    if len(data) != size:
        raise EOFError
    return data


def opus_packet_ns(packet: bytes) -> int:
    """RFC 6716 §3.1: a packet's length from its TOC byte (and frame count byte)."""
    if not packet:
        return 0
    toc = packet[0]
    config = toc >> 3
    if config < 12:
        frame_us = (10_000, 20_000, 40_000, 60_000)[config % 4]
    elif config < 16:
        frame_us = (10_000, 20_000)[config % 2]
    else:
        frame_us = (2_500, 5_000, 10_000, 20_000)[config % 4]
    code = toc & 3
    if code == 0:
        frames = 1
    elif code in (1, 2):
        frames = 2
    else:
        frames = packet[1] & 0x3F if len(packet) > 1 else 0
    return frame_us * frames * 1000


def measure_webm(f: BinaryIO) -> tuple[int, str]:
    """(duration in milliseconds, codec id) of an audio-only WebM; raises NotWebm."""
    try:
        return _measure(f)
    except EOFError:
        raise NotWebm("truncated") from None


def _measure(f: BinaryIO) -> tuple[int, str]:
    element, size = _header(f)
    if element != EBML:
        raise NotWebm("no EBML header")
    header = _read(f, size)
    if b"webm" not in header and b"matroska" not in header:
        raise NotWebm("not a WebM document")
    element, size = _header(f)
    if element != SEGMENT:
        raise NotWebm("no Segment")
    scan = _Scan()
    codecs: dict[int, str] = {}
    pending: tuple[int, int] | None = None
    while True:
        if pending is not None:
            element, size = pending
            pending = None
        else:
            try:
                element, size = _header(f)
            except EOFError:
                break
        if element == INFO:
            _info(f, size, scan)
        elif element == TRACKS:
            _tracks(f, size, scan, codecs)
        elif element == CLUSTER:
            pending = _cluster(f, size, scan)
        elif size == UNKNOWN:
            raise NotWebm("an element of unknown size")
        else:
            f.seek(size, 1)
    if scan.has_video or not scan.audio_tracks:
        raise NotWebm("no audio track, or a video track")
    block_ns = 0
    if scan.first_tc is not None:
        block_ns = (scan.last_tc - scan.first_tc) * scan.scale_ns + scan.last_len_ns
    declared_ns = int(scan.declared * scan.scale_ns)
    total_ns = max(block_ns, declared_ns, scan.opus_ns)
    if scan.blocks == 0 or total_ns <= 0:
        raise NotWebm("no audio blocks")
    codec = next(iter(codecs[t] for t in sorted(scan.audio_tracks) if t in codecs), "")
    return (total_ns + 500_000) // 1_000_000, codec


def _children(f: BinaryIO, size: int) -> list[tuple[int, bytes]]:
    end = f.tell() + size
    out = []
    while f.tell() < end:
        element, child = _header(f)
        out.append((element, _read(f, child)))
    return out


def _info(f: BinaryIO, size: int, scan: _Scan) -> None:
    if size == UNKNOWN:
        raise NotWebm("Info of unknown size")
    for element, data in _children(f, size):
        if element == TIMECODE_SCALE and _uint(data) > 0:
            scan.scale_ns = _uint(data)
        elif element == DURATION:
            scan.declared = max(0.0, _float(data))


def _tracks(f: BinaryIO, size: int, scan: _Scan, codecs: dict[int, str]) -> None:
    if size == UNKNOWN:
        raise NotWebm("Tracks of unknown size")
    scan.audio_tracks = set()
    scan.opus_tracks = set()
    for element, data in _children(f, size):
        if element != TRACK_ENTRY:
            continue
        fields = dict(_children(io.BytesIO(data), len(data)))
        number = _uint(fields.get(TRACK_NUMBER, b""))
        kind = _uint(fields.get(TRACK_TYPE, b""))
        codec = fields.get(CODEC_ID, b"").decode("ascii", "replace")
        if kind == TRACK_VIDEO:
            scan.has_video = True
        elif kind == TRACK_AUDIO:
            scan.audio_tracks.add(number)
            codecs[number] = codec
            if codec == "A_OPUS":
                scan.opus_tracks.add(number)


def _cluster(f: BinaryIO, size: int, scan: _Scan) -> tuple[int, int] | None:
    """Read one Cluster; for one of unknown size, return the header that ended it."""
    end = None if size == UNKNOWN else f.tell() + size
    cluster_tc = 0
    while end is None or f.tell() < end:
        try:
            element, child = _header(f)
        except EOFError:
            return None
        if end is None and element in LEVEL1:
            return element, child
        if element == CLUSTER_TIMECODE:
            cluster_tc = _uint(_read(f, child))
        elif element == SIMPLE_BLOCK:
            _block(_read(f, child), cluster_tc, None, scan)
        elif element == BLOCK_GROUP:
            data = _read(f, child)
            fields = dict(_children(io.BytesIO(data), len(data)))
            duration = fields.get(BLOCK_DURATION)
            if BLOCK in fields:
                _block(fields[BLOCK], cluster_tc, _uint(duration) if duration else None, scan)
        elif child == UNKNOWN:
            raise NotWebm("an element of unknown size inside a Cluster")
        else:
            f.seek(child, 1)
    return None


def _block(data: bytes, cluster_tc: int, duration: int | None, scan: _Scan) -> None:
    body = io.BytesIO(data)
    track, width = _vint(body, keep_marker=False)
    if scan.audio_tracks is None or track not in scan.audio_tracks or len(data) < width + 3:
        return
    relative = int.from_bytes(data[width:width + 2], "big", signed=True)
    flags = data[width + 2]
    tc = cluster_tc + relative
    payload = data[width + 3:]
    packet_ns = 0
    if scan.opus_tracks and track in scan.opus_tracks and not flags & 0x06:  # no lacing
        packet_ns = opus_packet_ns(payload)
        scan.opus_ns += packet_ns
    scan.blocks += 1
    if scan.first_tc is None or tc < scan.first_tc:
        scan.first_tc = tc
    if tc >= scan.last_tc:
        scan.last_tc = tc
        scan.last_len_ns = duration * scan.scale_ns if duration is not None else packet_ns
