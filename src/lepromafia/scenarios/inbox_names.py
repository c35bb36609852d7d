"""Inbox names as hosts write them: 'city', 'mafia A', 'voting X', 'personal', 'line'...

A name is resolved against the game state, relative to the user acting or viewing.
An unknown or not (yet) existing inbox resolves to an id that exists nowhere, so the
engine answers exactly as it would to a player guessing (unknown_inbox).
"""

from __future__ import annotations

from ..engine.inboxes import Kind, live_inbox
from ..engine.state import GameState
from .model import ScenarioError

KINDS = ("city", "mafia", "personal", "cemetery", "voting", "line", "offer", "office", "bar",
         "police", "notary", "court", "polling", "removal", "certificate")


def resolve(state: GameState, name: str, user: str | None) -> str:
    if ":" in name:
        return name  # a raw inbox id
    kind, _, arg = name.strip().partition(" ")
    arg = arg.strip()
    if kind not in KINDS:
        raise ScenarioError(f"unknown inbox name {name!r}; use one of {list(KINDS)} or a raw id")
    found: str | None
    if kind in ("office", "bar", "police", "court"):
        found = state.current_inbox(kind)
    elif kind == "notary":
        found = state.current_inbox(kind, state.consigliere or "")
    elif kind == "certificate":  # INBOX-NOTARY-1: the game's N-th notary inbox for anyone
        found = next((i for i, box in state.inboxes.items()
                      if box.kind == kind and i.split(":")[1] == arg), None)
    elif kind == "personal":
        found = state.current_inbox(kind, arg or user or "")
    elif kind == "voting":
        if not arg:
            raise ScenarioError("write 'voting X', naming the candidate")
        resident = state.residents.get(arg)
        found = live_inbox(state, Kind.VOTING, resident.city, arg) if resident else None
    elif kind == "polling":
        if not arg:
            raise ScenarioError("write 'polling X', naming the judge candidate")
        resident = state.residents.get(arg)
        found = live_inbox(state, Kind.POLLING, resident.city, arg) if resident else None
    elif kind == "removal":
        city_name = arg or _city_of(state, user, name)
        petition = state.cities[city_name].petition if city_name in state.cities else None
        found = petition.inbox if petition else None
    elif kind == "offer" and "/" in arg:
        found = f"offer:{arg}:0" if f"offer:{arg}:0" in state.inboxes else None  # 'offer A/2'
    elif kind == "cemetery" and state.settings.cemetery_scope == "global":
        found = state.current_inbox(kind)
    else:
        city = arg or _city_of(state, user, name)
        found = state.current_inbox(kind, city)
    return found or f"missing:{name}"


def _city_of(state: GameState, user: str | None, name: str) -> str:
    resident = state.residents.get(user or "")
    if resident is None:
        raise ScenarioError(f"{user!r} has no city: write the city, e.g. '{name} <city>'")
    return resident.city
