"""The deal (DIST, RANDOM): mafia counts and the notary commitment."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence


def mafia_count(population: int, share_percent: int = 20, rounding: str = "ceil") -> int:
    """CITY-2, AMB-8: 20% of P, rounded up by default, at least one."""
    exact = population * share_percent / 100
    if rounding == "ceil":
        count = math.ceil(exact - 1e-9)
    elif rounding == "round_half_up":
        count = math.floor(exact + 0.5)
    else:
        count = math.floor(exact + 1e-9)
    return max(1, count)


def commitment(lists: Mapping[str, Sequence[str]], salt: str) -> str:
    """RANDOM-3: SHA-256 over the canonical JSON of the sealed lists and a salt."""
    canonical = json.dumps(
        {"lists": {city: list(users) for city, users in lists.items()}, "salt": salt},
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def verify(lists: Mapping[str, Sequence[str]], salt: str, published: str) -> bool:
    """RANDOM-5: anyone can check the opened lists against the commitment."""
    return commitment(lists, salt) == published


def mafiosi_at(order: Sequence[str], numbers: Sequence[int]) -> tuple[str, ...]:
    """RANDOM-4: the residents at the named 1-based positions become mafiosi."""
    return tuple(order[n - 1] for n in sorted(numbers))


# --- the commit-reveal deal (issue 14, docs/verification.md) -----------------------------

DEAL_DOMAIN = b"lepromafia/deal/v1\x00"
SERVER_PARTY = "system"
"""The server's own party in the draw: it commits first and stands in for a silent party."""


def value_digest(value: str) -> str:
    """The commitment to a value: SHA-256 of its UTF-8 bytes, lowercase hex."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def fallback_value(server_value: str, party: str) -> str:
    """The value recorded for a party who did not reveal in time, from the server's
    value that was committed before anyone revealed."""
    return value_digest(f"{server_value}:{party}")


def entropy_seed(values: Mapping[str, str]) -> bytes:
    """SHA-256 over every party's value, parties in sorted order, each NUL-terminated."""
    parts = [DEAL_DOMAIN]
    for party in sorted(values):
        parts += [party.encode(), b"\x00", values[party].encode(), b"\x00"]
    return hashlib.sha256(b"".join(parts)).digest()


def draw_positions(seed: bytes, city: str, population: int, count: int) -> tuple[int, ...]:
    """``count`` distinct 1-based positions among ``population``, sorted.

    Block i is SHA-256(seed ‖ city ‖ 0x00 ‖ i as 4 bytes big-endian) read as a big-endian
    integer; blocks at or above the largest multiple of ``population`` below 2^256 are
    skipped (so each position is equally likely), the others give ``x mod population + 1``;
    repeats are skipped.
    """
    span = 1 << 256
    limit = span - span % population
    picked: dict[int, None] = {}
    i = 0
    while len(picked) < count:
        digest = hashlib.sha256(seed + city.encode() + b"\x00" + i.to_bytes(4, "big")).digest()
        i += 1
        x = int.from_bytes(digest, "big")
        if x < limit:
            picked.setdefault(x % population + 1, None)
    return tuple(sorted(picked))
