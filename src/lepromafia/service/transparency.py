"""The verifiable log (issue 14, docs/verification.md): salted commitments and signed heads.

Every appended event gets a fresh 16-byte salt and a commitment
``leaf = SHA-256(EVENT_DOMAIN ‖ game id ‖ 0x00 ‖ seq (8 bytes, big-endian) ‖ salt ‖ payload)``
where the payload is the event's stored JSON (UTF-8), exactly as the export reveals it.
The leaves form an RFC 9162 tree per game (``store.merkle``). When a Day Post is
published and when the game ends the service signs the tree head with its Ed25519 key:
``HEAD_DOMAIN ‖ game id ‖ 0x00 ‖ size (8 bytes) ‖ root ‖ signed_at ‖ 0x00 ‖ reason``, where
``signed_at`` is the real time of signing (the key's validity period is real time; a game's
own clock may run faster). Each head names the key that signed it; the keys and their
rotation: ``transparency_keys``.
The engine knows nothing of this: salts, clocks and keys stay in the service.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..store import merkle, schema
from ..store.event_store import EventStore, Transaction
from ..store.projection import Row

logger = logging.getLogger(__name__)

EVENT_DOMAIN = b"lepromafia/event/v1\x00"
HEAD_DOMAIN = b"lepromafia/tree-head/v1\x00"
SALT_BYTES = 16
KEY_ENV = "LEPROMAFIA_LOG_KEY_FILE"
DEFAULT_KEY_FILE = Path("var/log-signing-key.pem")
HEAD_EVENTS = ("DayPostPublished", "GameEnded")
"""Events after which the head is signed: what a Day Post and the final page publish."""


def commitment(game_id: str, seq: int, salt: bytes, payload: str) -> bytes:
    return hashlib.sha256(EVENT_DOMAIN + game_id.encode() + b"\x00" + seq.to_bytes(8, "big")
                          + salt + payload.encode("utf-8")).digest()


def head_message(game_id: str, size: int, root: bytes, signed_at: str, reason: str) -> bytes:
    return (HEAD_DOMAIN + game_id.encode() + b"\x00" + size.to_bytes(8, "big") + root
            + signed_at.encode() + b"\x00" + reason.encode())


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class HeadSigner(Protocol):
    def sign_head(self, game_id: str, size: int, root: bytes, signed_at: datetime,
                  reason: str) -> Row | None: ...


@dataclass(frozen=True)
class LogKey:
    """The server's Ed25519 key for tree heads; its public half is published (well-known URL)."""

    private: Ed25519PrivateKey

    @classmethod
    def generate(cls) -> LogKey:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def load_or_create(cls, path: Path) -> LogKey:
        """The key in ``path`` (PKCS#8 PEM), made there (mode 0600) on first use."""
        if path.exists():
            key = serialization.load_pem_private_key(path.read_bytes(), password=None)
            if not isinstance(key, Ed25519PrivateKey):
                raise ValueError(f"{path} does not hold an Ed25519 key")
            return cls(key)
        created = cls.generate()
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = created.private.private_bytes(serialization.Encoding.PEM,
                                            serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption())
        temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
        try:
            os.link(temp, path)  # atomic: a concurrent first start keeps one key
        except FileExistsError:
            return cls.load_or_create(path)
        finally:
            temp.unlink()
        return created

    @classmethod
    def from_env(cls) -> LogKey:
        return cls.load_or_create(Path(os.environ.get(KEY_ENV) or DEFAULT_KEY_FILE))

    @property
    def public(self) -> Ed25519PublicKey:
        return self.private.public_key()

    @property
    def public_bytes(self) -> bytes:
        return self.public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @property
    def key_id(self) -> str:
        return hashlib.sha256(self.public_bytes).hexdigest()

    def published(self) -> dict[str, str]:
        """What the well-known URL serves."""
        return {"algorithm": "Ed25519", "public_key": b64(self.public_bytes), "key_id": self.key_id}

    def sign_head(self, game_id: str, size: int, root: bytes, signed_at: datetime,
                  reason: str) -> Row:
        at = signed_at.isoformat()
        signature = self.private.sign(head_message(game_id, size, root, at, reason))
        return {"game_id": game_id, "size": size, "root": root.hex(), "signed_at": at,
                "reason": reason, "key_id": self.key_id, "signature": b64(signature)}


@dataclass
class GameLog:
    """One game's tree as its writer lane extends it."""

    game_id: str
    frontier: merkle.Frontier = field(default_factory=merkle.Frontier)
    heads: set[int] = field(default_factory=set)

    @classmethod
    def from_rows(cls, game_id: str, leaves: list[Row], head_sizes: list[int],
                  frontier: merkle.Frontier | None = None) -> GameLog:
        """The tree of ``leaves`` (in seq order), appended to ``frontier`` if given."""
        log = cls(game_id, frontier.copy() if frontier else merkle.Frontier(), set(head_sizes))
        for row in leaves:
            log.frontier.append(bytes.fromhex(row["leaf"]))
        return log

    def copy(self) -> GameLog:
        return GameLog(self.game_id, self.frontier.copy(), set(self.heads))

    def append(self, seq: int, payload: str) -> Row:
        """The leaf row for the next event (a fresh salt each time)."""
        if seq != self.frontier.size + 1:
            raise ValueError(f"leaf {seq} appended after {self.frontier.size}")
        salt = secrets.token_bytes(SALT_BYTES)
        leaf = commitment(self.game_id, seq, salt, payload)
        self.frontier.append(leaf)
        return {"game_id": self.game_id, "seq": seq, "salt": salt.hex(), "leaf": leaf.hex()}

    def sign(self, key: HeadSigner, signed_at: datetime, reason: str) -> Row | None:
        """The signed head at the current size (None if one exists at this size, or if
        the key may not sign at ``signed_at``: see ``transparency_keys.KeyRing``)."""
        size = self.frontier.size
        if size == 0 or size in self.heads:
            return None
        head = key.sign_head(self.game_id, size, self.frontier.root(), signed_at, reason)
        if head is not None:
            self.heads.add(size)
        return head


def head_reason(event_type: str, payload_day: int | None) -> str:
    return f"day_post:{payload_day}" if event_type == "DayPostPublished" else "game_end"


async def load_log(tx: Transaction, game_id: str, version: int) -> GameLog:
    """The game's tree at ``version`` (``load_logs`` for one game)."""
    return (await load_logs(tx, {game_id: version}))[game_id]


async def load_logs(tx: Transaction, versions: Mapping[str, int]) -> dict[str, GameLog]:
    """Each game's tree at its version: the frontier kept with its latest snapshot and the
    leaves stored after it, or every stored leaf (a game snapshotted before frontiers were
    kept, or a frontier that does not read back); events logged before the verifiable log
    existed get their salted leaves now. Three statements for any number of games (a
    writer lane takes many games' first commands after a start in one batch)."""
    frontiers: dict[str, merkle.Frontier] = {}
    for game_id, (_, text) in (await tx.snapshot_frontiers(versions)).items():
        try:
            frontiers[game_id] = merkle.Frontier.loads(text)
        except ValueError:
            logger.warning("game %s: a snapshot's log frontier does not read back; "
                           "rebuilt from the leaves", game_id)
    leaves = await tx.leaves_after({g: frontiers[g].size if g in frontiers else 0 for g in versions})
    heads = await tx.heads_of(list(versions))
    logs = {}
    for game_id, version in versions.items():
        frontier, rows = frontiers.get(game_id), leaves[game_id]
        if frontier is not None and rows and rows[0]["seq"] != frontier.size + 1:
            frontier, rows = None, await tx.leaf_rows(game_id)  # a gap: never append past it
        log = GameLog.from_rows(game_id, rows, [row["size"] for row in heads[game_id]], frontier)
        if log.frontier.size < version:
            events = await tx.event_rows(game_id, after=log.frontier.size)
            await tx.insert_rows(schema.event_leaves, [log.append(r["seq"], r["payload"])
                                                       for r in events if r["seq"] <= version])
        logs[game_id] = log
    return logs


PUBLISHED_FIELDS = ("size", "root", "signed_at", "reason", "key_id", "signature")


async def published_heads(store: EventStore, game_id: str) -> list[dict[str, object]]:
    """Every signed head of the game, as the pages and the API publish them (a player may
    keep one and check the final export against it: ``verify.py --known-head``)."""
    async with store.reading() as tx:
        rows = await tx.head_rows(game_id)
    return [{k: row[k] for k in PUBLISHED_FIELDS} for row in rows]


def day_post_heads(heads: list[dict[str, object]]) -> dict[int, dict[str, object]]:
    """The head signed with each Day Post, by day."""
    out = {}
    for head in heads:
        reason = str(head["reason"])
        if reason.startswith("day_post:"):
            out[int(reason.split(":", 1)[1])] = head
    return out


async def consistency(store: EventStore, game_id: str, first: int, second: int) -> list[str] | None:
    """RFC 9162 consistency proof between two of the game's published heads (hex), or None
    if either size is not a published head."""
    async with store.reading() as tx:
        sizes = {row["size"] for row in await tx.head_rows(game_id)}
        if first not in sizes or second not in sizes or first > second:
            return None
        leaves = [bytes.fromhex(row["leaf"]) for row in await tx.leaf_rows(game_id)][:second]
    return [h.hex() for h in merkle.consistency_proof(leaves, first)]
