"""The server's tree-head signing keys, their validity periods and their rotation
(issue 14, docs/verification.md "Keys and rotation").

The current private key is the PEM file ``LEPROMAFIA_LOG_KEY_FILE``; beside it,
``<stem>.keys.json`` is the key set: every key the server has signed heads with, its
public half, its id (SHA-256 of the 32-byte key) and its validity period
``[valid_from, valid_until)`` in UTC (``null``: open). The well-known URL and every export
publish the set, so heads signed before a rotation stay verifiable, and a head signed by a
key outside its period — a retired key, stolen or left running — fails verification.

``lepromafia keys rotate`` makes a new key valid from now and retires the old one after a
short overlap (for workers that have not re-read the file yet); the old private key is
destroyed. A running service re-reads both files when they change, before it signs.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization

from ..store.projection import Row
from .transparency import DEFAULT_KEY_FILE, KEY_ENV, LogKey, b64

ROTATION_OVERLAP = timedelta(seconds=60)
"""How long the old key stays valid after a rotation: the time every worker has to re-read
the key file (a worker on its own copy of the file must get the new one within it)."""

log = logging.getLogger(__name__)


def _stamp(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat()


def _moment(text: Any) -> datetime | None:
    if text is None:
        return None
    moment = datetime.fromisoformat(str(text))
    if moment.tzinfo is None:
        raise ValueError(f"validity time without a time zone: {text}")
    return moment


@dataclass(frozen=True)
class PublishedKey:
    """One entry of the key set."""

    key_id: str
    public_key: str
    valid_from: datetime | None = None
    valid_until: datetime | None = None

    @classmethod
    def of(cls, key: LogKey, valid_from: datetime | None = None) -> PublishedKey:
        return cls(key.key_id, b64(key.public_bytes), valid_from)

    @classmethod
    def parse(cls, item: dict[str, Any]) -> PublishedKey:
        return cls(str(item["key_id"]), str(item["public_key"]), _moment(item.get("valid_from")),
                   _moment(item.get("valid_until")))

    def covers(self, moment: datetime) -> bool:
        return ((self.valid_from is None or self.valid_from <= moment)
                and (self.valid_until is None or moment < self.valid_until))

    def as_json(self) -> dict[str, Any]:
        return {"algorithm": "Ed25519", "key_id": self.key_id, "public_key": self.public_key,
                "valid_from": _stamp(self.valid_from), "valid_until": _stamp(self.valid_until)}


def keys_file(key_file: Path) -> Path:
    return key_file.with_name(key_file.stem + ".keys.json")


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _write_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, path)


class KeyRing:
    """The current signing key and the key set; file-backed (re-read when the files change)
    or in memory (tests, simulations: one key valid at any time)."""

    def __init__(self, current: LogKey, keys: list[PublishedKey], path: Path | None = None) -> None:
        self._current = current
        self._keys = keys
        self.path = path
        self._seen: tuple[object, object] | None = None
        if path is not None:
            self._seen = (_signature(path), _signature(keys_file(path)))

    @classmethod
    def of(cls, key: LogKey) -> KeyRing:
        return cls(key, [PublishedKey.of(key)])

    @classmethod
    def coerce(cls, key: LogKey | KeyRing) -> KeyRing:
        return key if isinstance(key, KeyRing) else cls.of(key)

    @classmethod
    def load(cls, path: Path, now: datetime | None = None) -> KeyRing:
        """The ring in ``path`` (made on first use). A key file without a key set (a server
        from before rotation existed) gets one: its key valid from the beginning."""
        current = LogKey.load_or_create(path)
        listed = keys_file(path)
        keys = [PublishedKey.parse(k) for k in json.loads(listed.read_text())["keys"]] \
            if listed.exists() else []
        if current.key_id not in {k.key_id for k in keys}:
            keys.append(PublishedKey.of(current, None if not keys else (now or datetime.now(UTC))))
            _write_atomically(listed, _dump_set(keys))
        return cls(current, keys, path)

    @classmethod
    def from_env(cls) -> KeyRing:
        return cls.load(Path(os.environ.get(KEY_ENV) or DEFAULT_KEY_FILE))

    def refresh(self) -> None:
        """Re-read the files if another process (``lepromafia keys rotate``) changed them."""
        if self.path is None:
            return
        seen = (_signature(self.path), _signature(keys_file(self.path)))
        if seen != self._seen:
            fresh = KeyRing.load(self.path)
            self._current, self._keys, self._seen = fresh._current, fresh._keys, fresh._seen

    @property
    def current(self) -> LogKey:
        self.refresh()
        return self._current

    @property
    def key_id(self) -> str:
        return self.current.key_id

    @property
    def keys(self) -> list[PublishedKey]:
        self.refresh()
        return list(self._keys)

    def entry(self, key_id: str) -> PublishedKey | None:
        return next((k for k in self.keys if k.key_id == key_id), None)

    def published(self) -> dict[str, Any]:
        """What the well-known URL serves: the current key (as before rotation existed) and
        the whole key set with each key's validity period."""
        current = self.current
        return {**current.published(), "keys": [k.as_json() for k in self.keys]}

    def signer_at(self, moment: datetime) -> LogKey | None:
        """The key to sign with at ``moment``; None if the current key's period does not
        cover it (a head it signed would fail verification, so none is signed)."""
        current = self.current
        entry = self.entry(current.key_id)
        if entry is None or not entry.covers(moment):
            log.error("log key %s is not valid at %s: no tree head signed (lepromafia keys rotate)",
                      current.key_id, moment.isoformat())
            return None
        return current

    def sign_head(self, game_id: str, size: int, root: bytes, signed_at: datetime,
                  reason: str) -> Row | None:
        key = self.signer_at(signed_at)
        return None if key is None else key.sign_head(game_id, size, root, signed_at, reason)

    def rotate(self, now: datetime | None = None,
               overlap: timedelta = ROTATION_OVERLAP) -> tuple[PublishedKey, PublishedKey]:
        """A new current key valid from ``now``; the old one retired at ``now + overlap``.
        Returns (retired, new). The key set is written before the new private key, so a
        key that signs is always listed."""
        now = now or datetime.now(UTC)
        self.refresh()
        new = LogKey.generate()
        entry = PublishedKey.of(new, now)
        old = self.entry(self._current.key_id) or PublishedKey.of(self._current)
        retired = replace(old, valid_until=now + overlap)
        keys = [retired if k.key_id == old.key_id else k for k in self._keys] + [entry]
        if self.path is not None:
            _write_atomically(keys_file(self.path), _dump_set(keys))
            pem = new.private.private_bytes(serialization.Encoding.PEM,
                                            serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption())
            _write_atomically(self.path, pem, 0o600)  # the old private key is gone
            self._seen = (_signature(self.path), _signature(keys_file(self.path)))
        self._current, self._keys = new, keys
        return retired, entry


def _dump_set(keys: list[PublishedKey]) -> bytes:
    return (json.dumps({"keys": [k.as_json() for k in keys]}, indent=2) + "\n").encode()
