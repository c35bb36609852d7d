"""RFC 9162 (Certificate Transparency 2.0) Merkle trees: roots, inclusion and consistency proofs.

The tree's entries are the events' salted commitments (32 bytes each, see
``service.transparency``); the tree hashes them as RFC 9162 §2.1.1 says: a leaf is
``SHA-256(0x00 ‖ entry)``, an inner node ``SHA-256(0x01 ‖ left ‖ right)``, the split at
the largest power of two below the size. ``Frontier`` keeps the log's right edge (one
hash per set bit of the size), so appending an entry and taking the root cost O(log n).
The verifier (``verify/verify.py``) re-implements the checks independently.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(entry: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(entries: Sequence[bytes]) -> bytes:
    """MTH(D[n]) over the given entries."""
    if not entries:
        return EMPTY_ROOT
    frontier = Frontier()
    for entry in entries:
        frontier.append(entry)
    return frontier.root()


def _mth(hashes: Sequence[bytes]) -> bytes:
    """MTH over already hashed leaves (recursive; used for proofs)."""
    n = len(hashes)
    if n == 1:
        return hashes[0]
    k = _split(n)
    return node_hash(_mth(hashes[:k]), _mth(hashes[k:]))


def inclusion_proof(entries: Sequence[bytes], index: int) -> list[bytes]:
    """PATH(m, D[n]) (RFC 9162 §2.1.3.1) for the 0-based ``index``."""
    if not 0 <= index < len(entries):
        raise IndexError(index)
    return _path(index, [leaf_hash(e) for e in entries])


def inclusion_proofs(entries: Sequence[bytes], indexes: Sequence[int]) -> dict[int, list[bytes]]:
    """Audit paths for many leaves at once, sharing the subtree hashes (one pass over the tree)."""
    hashes = [leaf_hash(e) for e in entries]
    cache: dict[tuple[int, int], bytes] = {}

    def mth(lo: int, hi: int) -> bytes:
        key = (lo, hi)
        value = cache.get(key)
        if value is None:
            if hi - lo == 1:
                value = hashes[lo]
            else:
                k = _split(hi - lo)
                value = node_hash(mth(lo, lo + k), mth(lo + k, hi))
            cache[key] = value
        return value

    def path(m: int, lo: int, hi: int) -> list[bytes]:
        n = hi - lo
        if n == 1:
            return []
        k = _split(n)
        if m < k:
            return [*path(m, lo, lo + k), mth(lo + k, hi)]
        return [*path(m - k, lo + k, hi), mth(lo, lo + k)]

    return {i: path(i, 0, len(hashes)) for i in indexes}


def _path(m: int, hashes: Sequence[bytes]) -> list[bytes]:
    n = len(hashes)
    if n == 1:
        return []
    k = _split(n)
    if m < k:
        return [*_path(m, hashes[:k]), _mth(hashes[k:])]
    return [*_path(m - k, hashes[k:]), _mth(hashes[:k])]


def consistency_proof(entries: Sequence[bytes], old_size: int) -> list[bytes]:
    """PROOF(m, D[n]) (RFC 9162 §2.1.4.1) from the first ``old_size`` entries to all of them."""
    n = len(entries)
    if not 0 < old_size <= n:
        raise ValueError(f"old size {old_size} outside 1..{n}")
    if old_size == n:
        return []
    return _subproof(old_size, [leaf_hash(e) for e in entries], True)


def _subproof(m: int, hashes: Sequence[bytes], whole: bool) -> list[bytes]:
    n = len(hashes)
    if m == n:
        return [] if whole else [_mth(hashes)]
    k = _split(n)
    if m <= k:
        return [*_subproof(m, hashes[:k], whole), _mth(hashes[k:])]
    return [*_subproof(m - k, hashes[k:], False), _mth(hashes[:k])]


@dataclass
class Frontier:
    """The right edge of a growing tree: the roots of its perfect subtrees, largest first."""

    size: int = 0
    stack: list[bytes] = field(default_factory=list)

    def append(self, entry: bytes) -> None:
        node = leaf_hash(entry)
        size = self.size
        while size & 1:
            node = node_hash(self.stack.pop(), node)
            size >>= 1
        self.stack.append(node)
        self.size += 1

    def root(self) -> bytes:
        if not self.stack:
            return EMPTY_ROOT
        node = self.stack[-1]
        for left in reversed(self.stack[:-1]):
            node = node_hash(left, node)
        return node

    def copy(self) -> Frontier:
        return Frontier(self.size, list(self.stack))

    def dumps(self) -> str:
        """``size:hash,hash,…`` (hex), what ``loads`` reads back."""
        return f"{self.size}:{','.join(node.hex() for node in self.stack)}"

    @classmethod
    def loads(cls, text: str) -> Frontier:
        """The frontier ``dumps`` wrote; ValueError if its nodes do not fit its size (one
        perfect subtree per bit of the size)."""
        size, _, nodes = text.partition(":")
        frontier = cls(int(size), [bytes.fromhex(n) for n in nodes.split(",") if n])
        if frontier.size < 0 or len(frontier.stack) != frontier.size.bit_count() \
                or any(len(node) != 32 for node in frontier.stack):
            raise ValueError(f"not a frontier: {text[:80]!r}")
        return frontier
