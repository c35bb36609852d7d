"""Whether a city is paused by its restoration (RESTORE-7)."""

from __future__ import annotations

from ..state import City


def paused(city: City) -> bool:
    """RESTORE-7: from the restoration until the next day, no executions, kills, checks, tours."""
    return city.restoration is not None and city.restoration.began_day is not None
