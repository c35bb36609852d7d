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
