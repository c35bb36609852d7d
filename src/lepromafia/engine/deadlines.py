"""Every kind of deadline, in one table (§3, TIME-*): its firing priority and its label.

A deadline key is ``<kind>:<rest>`` (``vote_close:<city>:<day>``, ``night_decisions:<n>``).
Keys due at the same moment fire by ``priority`` (then by key), so a phase never sees a
later phase's effects first. ``label`` is an English message id for pages; ``{0}`` is the
key's first part (a city or a day number). A new kind is one row here plus its handler in
``rules/phases._DEADLINES``; a test fails if the two disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import N_


@dataclass(frozen=True, slots=True)
class DeadlineKind:
    name: str
    priority: int
    label: str


DEADLINE_KINDS: dict[str, DeadlineKind] = {
    k.name: k
    for k in (
        DeadlineKind("offer_timeout", 0, N_("Offer answer due · {0}")),
        DeadlineKind("offer_reveal", 1, N_("Offer outcome · {0}")),
        DeadlineKind("poll_open", 2, N_("Polling opens · {0}")),
        DeadlineKind("poll_close", 3, N_("Polling closes · {0}")),
        DeadlineKind("vote_open", 4, N_("Voting opens · {0}")),
        DeadlineKind("vote_close", 5, N_("Voting closes · {0}")),
        DeadlineKind("pardon_close", 6, N_("Pardon window · {0}")),
        DeadlineKind("day_end", 7, N_("Day ends")),
        DeadlineKind("checks_open", 8, N_("Checks open")),
        DeadlineKind("checks_close", 9, N_("Checks close")),
        DeadlineKind("night_decisions", 10, N_("Night decisions")),
        DeadlineKind("day_start", 11, N_("Day {0} starts")),
        DeadlineKind("deal_reveal", 12, N_("The deal's reveals close")),  # before the game (issue 14)
    )
}


def kind_of(key: str) -> DeadlineKind:
    """The kind of a deadline key; an unknown kind is a bug, so it raises KeyError."""
    return DEADLINE_KINDS[key.partition(":")[0]]
