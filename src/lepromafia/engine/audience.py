"""Who may see an event (RULES.md §9). Every event carries one, set when it is made."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Audience:
    """Either the whole community (``public``) or exactly the listed users."""

    public: bool = False
    users: frozenset[str] = frozenset()

    def __contains__(self, viewer: object) -> bool:
        return self.public or viewer in self.users

    def __or__(self, other: Audience) -> Audience:
        return Audience(self.public or other.public, self.users | other.users)


PUBLIC = Audience(public=True)
NOBODY = Audience()


def only(*groups: Iterable[str] | str | None) -> Audience:
    """The union of the given users and groups of users (``None`` is skipped)."""
    users: set[str] = set()
    for group in groups:
        if group is None:
            continue
        if isinstance(group, str):
            users.add(group)
        else:
            users.update(group)
    return Audience(False, frozenset(users))
