"""The archives after the game (§9.4, RANDOM-5, INBOX-*-3, AMB-33): who may open what.

During the game nothing here applies: inboxes follow ``inboxes.access``. Once the game has
ended, former members keep reading what they read, and outsiders may open an inbox as its
kind's row in the policy table says. Contact details are never part of any inbox.
"""

from __future__ import annotations

from enum import StrEnum

from . import events as ev
from . import events_host as hev
from .events import Event
from .inboxes import POLICY, AfterGame, Kind, can_read, readers
from .state import GameState, Inbox, Stage
from .visibility import visible_to

OPEN_AT_GAME_END: frozenset[type[Event]] = frozenset({
    # the mafia's decisions, which the rulebook has the mafia post in its inbox (INBOX-MAFIA-4)
    ev.MafiaDealt, ev.CityRedealt, ev.GodfatherVoteCast, ev.GodfatherElected,
    ev.GodfatherElectionFailed, ev.GodfatherReelectionDemanded, ev.KillDeclared,
    ev.NightDecisionFixed, ev.AmbushRightGranted, ev.AmbushPlaced, ev.AmbushWithdrawn,
    ev.AmbushesFixed, ev.CommissarExposed, hev.AmbushOrderSet, hev.GodfatherElectionRuleSet,
    hev.SilentGodfatherProcedureSet,
    # the check logs (§9.4 row 1) and the deal lists (RANDOM-5, RESTORE-3)
    ev.CheckRequested, ev.CheckAnswered, ev.CommissarWarned, ev.DealListsRecorded,
    ev.RestorationListRecorded,
})
"""§9.4 (D14): «По окончании игры все мафиозные инбоксы раскрываются желающим!» — night
orders, confirmations, Godfather votes, ambushes and check logs are public at game end."""


def readable(state: GameState, event: Event, viewer: str | None) -> bool:
    """Whether ``viewer`` may read ``event`` now: its audience, or after the game the
    decisions §9.4 opens to everyone (``OPEN_AT_GAME_END``)."""
    if visible_to(event, viewer):
        return True
    return state.stage is Stage.FINISHED and type(event) in OPEN_AT_GAME_END

DEAL_NOTARIES = ("RANDOM-2", "RESTORE-3")
"""The first deal's notary and each restoration's: «как обычно», opened after the game."""


class ArchiveStatus(StrEnum):
    MEMBER = "member"
    """The viewer read it during the game and keeps reading it."""
    OPEN = "open"
    """Open to him now."""
    ON_REQUEST = "on_request"
    """Anyone who asks may read it: one click away."""
    AWAITING_CONSENT = "awaiting_consent"
    """Only with the consent of the resident (personal) or of every member (secret)."""
    CLOSED = "closed"
    """Refused, or at the organizer's discretion, or gone (its log is in the results)."""


def members(state: GameState, inbox: Inbox) -> frozenset[str]:
    """Who must consent: the resident of a personal inbox; every member of a secret one."""
    if inbox.kind == Kind.PERSONAL:
        return frozenset({inbox.subject}) if inbox.subject else frozenset()
    return frozenset(inbox.members)


def status(state: GameState, inbox_id: str, viewer: str | None) -> ArchiveStatus:
    """§9.4 for one inbox and one viewer (an anonymous viewer may read only what is open)."""
    inbox = state.inboxes[inbox_id]
    if state.stage is not Stage.FINISHED:
        return ArchiveStatus.MEMBER if can_read(state, inbox_id, viewer) else ArchiveStatus.CLOSED
    if viewer is not None and viewer in readers(state, inbox_id):
        return ArchiveStatus.MEMBER
    rule = POLICY[Kind(inbox.kind)].after_game
    if rule is AfterGame.OPEN:
        return ArchiveStatus.OPEN  # INBOX-MAFIA-4, INBOX-OFFICE-3, INBOX-BAR-3: to everyone
    if rule is AfterGame.ON_REQUEST:
        asked = viewer is not None and inbox_id in state.archive.requested.get(viewer, frozenset())
        return ArchiveStatus.OPEN if asked else ArchiveStatus.ON_REQUEST
    if rule in (AfterGame.RESIDENT_CONSENT, AfterGame.ALL_MEMBERS_CONSENT):
        given = state.archive.consents.get(inbox_id, {})
        needed = members(state, inbox)
        if any(given.get(m) is False for m in needed):
            return ArchiveStatus.CLOSED
        if needed and all(given.get(m) for m in needed):
            return ArchiveStatus.OPEN
        return ArchiveStatus.AWAITING_CONSENT
    if rule is AfterGame.ORGANIZER and inbox.kind == Kind.NOTARY and inbox.title in DEAL_NOTARIES:
        return ArchiveStatus.OPEN  # RANDOM-5, RESTORE-3: the deals' notaries open to everyone
    if rule is AfterGame.ORGANIZER and inbox_id in state.notaries and state.notaries[inbox_id].published:
        return ArchiveStatus.OPEN  # §9.4: a participant's notary, opened at his discretion
    return ArchiveStatus.CLOSED


def can_open(state: GameState, inbox_id: str, viewer: str | None) -> bool:
    return status(state, inbox_id, viewer) in (ArchiveStatus.MEMBER, ArchiveStatus.OPEN)
