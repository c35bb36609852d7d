"""Sound Library media: uploads measured and stored, playback by range, who may hear what.

The engine knows an entry only as a media id and a duration (``records.SoundEntry``).
Here an upload becomes that pair: the file is identified (mutagen for Ogg/Opus, Ogg/Vorbis,
MP3, M4A and WAV; ``webm`` for the browser's WebM), its real duration is read from the
file — never the client's claim — and checked against the kind's limit (SOUND-CONF-4,
SOUND-LW-4), then stored content-addressed (``sha256``) in a ``BlobStore``. Publishing
sends the engine's ``PublishSoundEntry`` with that id and the measured duration, so the
engine checks the limit a second time.

Who may hear an entry is SOUND-2 (AMB-29): everyone, or with ``city_only`` the city's
residents, observers and hosts (``engine.rules.sound.library_audience``). A file no entry
of the game uses is heard only by whoever uploaded it there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from ..engine.commands_host import PublishSoundEntry
from ..engine.errors import N_, CodedError, CodeEnum
from ..engine.records import RequestState, SoundEntry, SoundKind, SoundRequest
from ..engine.rules.sound import handler_user, library_audience
from ..engine.state import GameState, Stage
from .audio_length import mp3_duration_ms, wav_duration_ms
from .outbound import admits
from .webm import NotWebm, measure_webm

CHUNK = 1 << 16
MEDIA_ID_LENGTH = 64


# --- errors ---------------------------------------------------------------------------


class MediaErrorCode(CodeEnum):
    NOT_AUDIO = "media_not_audio", 415, N_("The file is not an audio recording")
    UNSUPPORTED = "media_unsupported", 415, N_("The {format} format is not accepted: use Opus/Ogg, WebM, MP3, M4A or WAV")  # noqa: E501
    TOO_LONG = "media_too_long", 422, N_("The recording lasts {duration}; the limit is {limit} minutes")
    TOO_LARGE = "media_too_large", 413, N_("The file is larger than {limit} bytes")
    EMPTY = "media_empty", 422, N_("The file is empty")
    NOT_FOUND = "media_not_found", 404, N_("There is no recording '{media}'")
    KIND_INVALID = "media_kind_invalid", 422, N_("Unknown kind of recording '{kind}'")
    NOT_ALLOWED = "media_not_allowed", 403, N_("Only hosts, and candidates for their Last Word, may upload recordings to this game")  # noqa: E501
    RANGE_INVALID = "media_range_invalid", 416, N_("The byte range cannot be satisfied")


class MediaError(CodedError):
    """A rejected upload or playback, coded like the engine's RuleViolation; nothing stored."""

    code: MediaErrorCode

    def __init__(self, code: MediaErrorCode, rule: str = "", **fields: Any) -> None:
        super().__init__(code, rule, **fields)


# --- measuring ------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    format: str
    content_type: str
    duration_ms: int

    @property
    def seconds(self) -> int:
        """Whole seconds, half up (3:00.4 is 3:00; 3:00.5 is 3:01), at least one."""
        return max(1, (self.duration_ms + 500) // 1000)


ACCEPTED = {
    # mutagen class name -> (format, content type)
    "OggOpus": ("opus", "audio/ogg"),
    "OggVorbis": ("vorbis", "audio/ogg"),
    "MP3": ("mp3", "audio/mpeg"),
    "MP4": ("m4a", "audio/mp4"),
    "WAVE": ("wav", "audio/wav"),
}


def measure(path: Path) -> Measured:
    """Identify an audio file by its content and read its real duration.

    :raises MediaError: NOT_AUDIO, UNSUPPORTED (a recognised non-accepted format) or EMPTY.
    """
    if path.stat().st_size == 0:
        raise MediaError(MediaErrorCode.EMPTY)
    import mutagen
    from mutagen.mp3 import MP3
    from mutagen.mp4 import MP4
    from mutagen.oggopus import OggOpus
    from mutagen.oggvorbis import OggVorbis
    from mutagen.wave import WAVE

    try:
        found = mutagen.File(str(path), options=[OggOpus, OggVorbis, MP3, MP4, WAVE])
    except Exception:  # mutagen raises many types on malformed input: all mean "not audio"
        found = None
    if found is not None and found.info is not None:
        name = type(found).__name__
        if name == "MP3" and getattr(found.info, "sketchy", False):
            raise MediaError(MediaErrorCode.NOT_AUDIO)
        if name == "MP4" and not str(getattr(found.info, "codec", "")).startswith(("mp4a", "alac")):
            raise MediaError(MediaErrorCode.UNSUPPORTED, format=name)
        duration_ms = round(float(found.info.length or 0) * 1000)
        if name == "MP3":  # F4-2: the frames in the file, not a Xing/VBRI header's count
            duration_ms = mp3_duration_ms(path)
        elif name == "WAVE":  # F4-2: the sample bytes in the file, not the data chunk's size
            duration_ms = wav_duration_ms(path) or 0
        if duration_ms <= 0:
            raise MediaError(MediaErrorCode.NOT_AUDIO)
        fmt, ctype = ACCEPTED[name]
        return Measured(fmt, ctype, duration_ms)
    try:
        with path.open("rb") as f:
            duration_ms, codec = measure_webm(f)
    except (NotWebm, OSError, ValueError):
        raise MediaError(MediaErrorCode.NOT_AUDIO) from None
    return Measured("webm" + (f"/{codec}" if codec else ""), "audio/webm", duration_ms)


def clock_text(ms: int) -> str:
    seconds = (ms + 500) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


# --- storage --------------------------------------------------------------------------


class BlobStore(Protocol):
    """Where media files live: the data folder, or an S3-compatible bucket later.

    Keys are media ids (sha256 hex); an object is written once and never changes, except
    its small JSON metadata (who uploaded it where).
    """

    def put(self, media_id: str, source: Path) -> None: ...
    def exists(self, media_id: str) -> bool: ...
    def size(self, media_id: str) -> int: ...
    def read(self, media_id: str, start: int, end: int) -> Iterator[bytes]:
        """Bytes ``start..end`` inclusive."""
        ...
    def get_meta(self, media_id: str) -> dict[str, Any] | None: ...
    def put_meta(self, media_id: str, meta: dict[str, Any]) -> None: ...


class LocalBlobStore:
    """Files under ``root/<first two hex>/<sha256>``: no extension, no execute bit, written
    through a temporary file and an atomic rename."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, media_id: str, suffix: str = "") -> Path:
        if not is_media_id(media_id):
            raise MediaError(MediaErrorCode.NOT_FOUND, media=media_id[:80])
        return self.root / media_id[:2] / f"{media_id}{suffix}"

    def put(self, media_id: str, source: Path) -> None:
        target = self._path(media_id)
        if target.exists():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{media_id}.{os.getpid()}.tmp")
        with source.open("rb") as src, tmp.open("wb") as dst:
            while chunk := src.read(CHUNK):
                dst.write(chunk)
            dst.flush()
            os.fsync(dst.fileno())
        tmp.chmod(0o644)
        os.replace(tmp, target)

    def exists(self, media_id: str) -> bool:
        return is_media_id(media_id) and self._path(media_id).is_file()

    def size(self, media_id: str) -> int:
        return self._path(media_id).stat().st_size

    def read(self, media_id: str, start: int, end: int) -> Iterator[bytes]:
        with self._path(media_id).open("rb") as f:
            f.seek(start)
            left = end - start + 1
            while left > 0:
                chunk = f.read(min(CHUNK, left))
                if not chunk:
                    return
                left -= len(chunk)
                yield chunk

    def get_meta(self, media_id: str) -> dict[str, Any] | None:
        path = self._path(media_id, ".json")
        if not path.is_file():
            return None
        data: dict[str, Any] = json.loads(path.read_text("utf-8"))
        return data

    def put_meta(self, media_id: str, meta: dict[str, Any]) -> None:
        path = self._path(media_id, ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{media_id}.json.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True), "utf-8")
        tmp.chmod(0o644)
        os.replace(tmp, path)


def is_media_id(text: str) -> bool:
    return len(text) == MEDIA_ID_LENGTH and all(c in "0123456789abcdef" for c in text)


# --- the library ----------------------------------------------------------------------


@dataclass(frozen=True)
class MediaLimits:
    max_bytes: int = 50 * 1024 * 1024
    """A 3-minute 48 kHz stereo WAV is 35 MB."""
    uncapped_minutes: int = 60
    """Interrogations and séances have no limit in the rules; the platform caps them."""

    @classmethod
    def from_env(cls) -> MediaLimits:
        return cls(int(os.environ.get("LEPROMAFIA_MEDIA_MAX_BYTES", cls.max_bytes)),
                   int(os.environ.get("LEPROMAFIA_MEDIA_UNCAPPED_MINUTES", cls.uncapped_minutes)))


@dataclass(frozen=True)
class Upload:
    game: str
    user: str
    kind: str
    at: str


@dataclass(frozen=True)
class MediaInfo:
    media_id: str
    size: int
    format: str
    content_type: str
    duration_ms: int
    duration_seconds: int
    uploads: tuple[Upload, ...] = field(default=())

    def uploaded(self, game: str, user: str | None = None) -> bool:
        return any(u.game == game and (user is None or u.user == user) for u in self.uploads)

    def public(self) -> dict[str, Any]:
        """What a client sees: never who else uploaded the same bytes elsewhere."""
        return {"media": self.media_id, "size": self.size, "format": self.format,
                "content_type": self.content_type, "duration_ms": self.duration_ms,
                "duration_seconds": self.duration_seconds,
                "duration": clock_text(self.duration_ms)}


def parse_kind(text: str) -> SoundKind:
    try:
        return SoundKind(text)
    except ValueError:
        raise MediaError(MediaErrorCode.KIND_INVALID, kind=str(text)[:40]) from None


def limit_minutes(state: GameState, kind: SoundKind, limits: MediaLimits) -> tuple[int, str]:
    """(minutes, rule) for an upload of this kind."""
    if kind is SoundKind.CONFRONTATION:
        return state.settings.confrontation_max_minutes, "SOUND-CONF-4"
    if kind is SoundKind.LAST_WORD:
        return state.settings.last_word_max_minutes, "SOUND-LW-4"
    return limits.uncapped_minutes, ""


def may_upload(state: GameState, user: str, kind: SoundKind) -> bool:
    """Hosts record every kind; a living resident only his own Last Word (SOUND-LW-3).
    Whether he may publish it is the engine's decision at publishing."""
    if state.stage is not Stage.RUNNING:
        return False
    if user in state.hosts():
        return True
    r = state.residents.get(user)
    return kind is SoundKind.LAST_WORD and r is not None and r.alive


class MediaLibrary:
    def __init__(self, blobs: BlobStore, limits: MediaLimits | None = None) -> None:
        self.blobs = blobs
        self.limits = limits or MediaLimits()

    @classmethod
    def from_env(cls) -> MediaLibrary:
        """``LEPROMAFIA_MEDIA_S3_BUCKET`` (+ ``_ENDPOINT``) selects an S3-compatible store;
        otherwise files live under ``LEPROMAFIA_MEDIA_DIR`` (default ``./var/media``)."""
        bucket = os.environ.get("LEPROMAFIA_MEDIA_S3_BUCKET")
        if bucket:
            from .s3_store import S3BlobStore

            store: BlobStore = S3BlobStore(bucket,
                                           endpoint_url=os.environ.get("LEPROMAFIA_MEDIA_S3_ENDPOINT"))
            return cls(store, MediaLimits.from_env())
        root = Path(os.environ.get("LEPROMAFIA_MEDIA_DIR", "var/media"))
        return cls(LocalBlobStore(root), MediaLimits.from_env())

    def spool(self, source: BinaryIO, directory: Path | None = None) -> tuple[Path, str, int]:
        """Copy an upload to a temporary file, hashing it and stopping at the size limit.

        :returns: (temporary path, sha256, size); the caller deletes the path.
        """
        digest = hashlib.sha256()
        size = 0
        fd, name = tempfile.mkstemp(prefix="upload-", dir=directory)
        path = Path(name)
        try:
            with os.fdopen(fd, "wb") as out:
                while chunk := source.read(CHUNK):
                    size += len(chunk)
                    if size > self.limits.max_bytes:
                        raise MediaError(MediaErrorCode.TOO_LARGE, limit=self.limits.max_bytes)
                    digest.update(chunk)
                    out.write(chunk)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return path, digest.hexdigest(), size

    def ingest(self, source: BinaryIO, *, state: GameState, game: str, user: str, kind: str,
               now: datetime) -> MediaInfo:
        """An upload: who may, what it is, how long it really lasts, then store it.

        :raises MediaError: and then nothing is stored.
        """
        sound_kind = parse_kind(kind)
        if not may_upload(state, user, sound_kind):
            raise MediaError(MediaErrorCode.NOT_ALLOWED)
        minutes, rule = limit_minutes(state, sound_kind, self.limits)
        path, media_id, size = self.spool(source)
        try:
            measured = measure(path)
            if measured.seconds > minutes * 60:
                raise MediaError(MediaErrorCode.TOO_LONG, rule, limit=minutes,
                                 duration=clock_text(measured.duration_ms))
            self.blobs.put(media_id, path)
        finally:
            path.unlink(missing_ok=True)
        meta = self.blobs.get_meta(media_id) or {}
        uploads = [Upload(**u) for u in meta.get("uploads", [])]
        mine = Upload(game, user, sound_kind.value, now.isoformat())
        if not any(u.game == game and u.user == user for u in uploads):
            uploads.append(mine)
        info = MediaInfo(media_id, size, measured.format, measured.content_type,
                         measured.duration_ms, measured.seconds, tuple(uploads))
        self.blobs.put_meta(media_id, _meta_json(info))
        return info

    def info(self, media_id: str) -> MediaInfo | None:
        if not is_media_id(media_id) or not self.blobs.exists(media_id):
            return None
        meta = self.blobs.get_meta(media_id)
        if meta is None:
            return None
        return MediaInfo(meta["media_id"], meta["size"], meta["format"], meta["content_type"],
                         meta["duration_ms"], meta["duration_seconds"],
                         tuple(Upload(**u) for u in meta.get("uploads", [])))

    def publish_command(self, state: GameState, game: str, actor: str, *, kind: str,
                        media: str = "", request: int | None = None,
                        participants: tuple[str, ...] = (), outcome: str = "recorded",
                        notes: str = "") -> PublishSoundEntry:
        """The engine command for an entry, carrying the measured duration of a media file
        uploaded to this game (the engine checks the limit and everything else)."""
        media_id = media.strip()
        duration = 0
        if media_id or outcome == "recorded":
            info = self.info(media_id)
            if info is None or not info.uploaded(game):
                raise MediaError(MediaErrorCode.NOT_FOUND, media=media_id[:80])
            duration = info.duration_seconds
        return PublishSoundEntry(actor=actor, kind=kind, media=media_id, duration_seconds=duration,
                                 request=request, participants=participants, outcome=outcome,
                                 notes=notes)


def _meta_json(info: MediaInfo) -> dict[str, Any]:
    data = asdict(info)
    data["uploads"] = [asdict(u) for u in info.uploads]
    return data


# --- who may hear what ------------------------------------------------------------------


def entry_visible(state: GameState, entry: SoundEntry, viewer: str | None) -> bool:
    """SOUND-2 (AMB-29): public, or ``city_only``: the city's residents, observers, hosts."""
    return admits(library_audience(state, entry.city), viewer)


def library(state: GameState, viewer: str | None, city: str | None = None) -> list[dict[str, Any]]:
    """The Sound Library entries the viewer may see, newest first (optionally one city's)."""
    out = []
    for entry in reversed(state.records.sound_entries):
        if (city is None or entry.city == city) and entry_visible(state, entry, viewer):
            out.append(entry_json(entry))
    return out


def entry_json(entry: SoundEntry) -> dict[str, Any]:
    return {
        "entry": entry.number, "kind": entry.kind.value, "city": entry.city,
        "participants": list(entry.participants), "requester": entry.requester,
        "host": entry.host, "media": entry.media or None,
        "duration_seconds": entry.duration_seconds,
        "duration": clock_text(entry.duration_seconds * 1000) if entry.duration_seconds else None,
        "outcome": entry.outcome, "request": entry.request, "at": entry.at.isoformat(),
    }


def may_play(state: GameState, game: str, info: MediaInfo, viewer: str | None) -> bool:
    """A published entry's file as the entry; an unpublished one only to its uploader."""
    uses = [e for e in state.records.sound_entries if e.media == info.media_id]
    if any(entry_visible(state, e, viewer) for e in uses):
        return True
    return viewer is not None and info.uploaded(game, viewer)


def requests_for(state: GameState, viewer: str) -> list[dict[str, Any]]:
    """The requests a user can follow: his own, and those he holds as a host."""
    out = []
    for req in reversed(state.records.sound_requests):
        holder = handler_user(state, req)
        role = "requester" if req.requester == viewer else "handler" if holder == viewer else None
        if role is None:
            continue
        out.append(request_json(state, req) | {"role": role})
    return out


def request_json(state: GameState, req: SoundRequest) -> dict[str, Any]:
    entry = next((e for e in state.records.sound_entries if e.request == req.number), None)
    return {
        "request": req.number, "kind": req.kind.value, "city": req.city, "target": req.target,
        "handler": req.handler, "state": req.state.value, "submitted_at": req.submitted_at.isoformat(),
        "inalienable": req.inalienable, "form": req.form,
        "entry": entry.number if entry else None,
        "open": req.state in (RequestState.SUBMITTED, RequestState.FORWARDED, RequestState.ACCEPTED),
    }


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """RFC 9110 §14.2, one range: (start, end inclusive), or None for the whole file.

    :raises MediaError: RANGE_INVALID (416) for a range that cannot be satisfied.
    """
    if not header:
        return None
    unit, _, spec = header.partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None  # unknown unit or several ranges: send the whole file (allowed)
    first, dash, last = spec.strip().partition("-")
    with contextlib.suppress(ValueError):
        if not dash:
            raise ValueError
        if first == "":
            length = int(last)
            if length <= 0 or size == 0:
                raise MediaError(MediaErrorCode.RANGE_INVALID)
            return max(0, size - length), size - 1
        start = int(first)
        end = int(last) if last else size - 1
        if start >= size or end < start:
            raise MediaError(MediaErrorCode.RANGE_INVALID)
        return start, min(end, size - 1)
    return None
