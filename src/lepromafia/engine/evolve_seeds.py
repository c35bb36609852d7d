"""evolve rules for the community seed systems; registered into ``evolve._HANDLERS``."""

from __future__ import annotations

from . import events as ev
from .evolve import _on, _put, replace
from .seeds import Notary
from .state import GameState


@_on(ev.CommentPosted)
def _comment(state: GameState, e: ev.CommentPosted) -> GameState:
    return replace(state, discussion=replace(state.discussion, comments=e.comment))



@_on(ev.NotaryContentRecorded)
def _recorded(state: GameState, e: ev.NotaryContentRecorded) -> GameState:
    inbox = state.inboxes[e.inbox]
    notary = Notary(inbox=e.inbox, organizer=next(iter(inbox.members)), title=inbox.title,
                    content=e.content, salt=e.salt, digest="", sealed_at=e.at)
    return replace(state, notaries=_put(state.notaries, e.inbox, notary))


@_on(ev.NotarySealed)
def _sealed(state: GameState, e: ev.NotarySealed) -> GameState:
    notary = replace(state.notaries[e.inbox], digest=e.digest)
    return replace(state, notaries=_put(state.notaries, e.inbox, notary))


@_on(ev.NotaryAccessGranted)
def _granted(state: GameState, e: ev.NotaryAccessGranted) -> GameState:
    notary = state.notaries[e.inbox]
    inbox = state.inboxes[e.inbox]
    state = replace(state, inboxes=_put(state.inboxes, e.inbox,
                                        replace(inbox, members=inbox.members | {e.user})))
    return replace(state, notaries=_put(state.notaries, e.inbox,
                                        replace(notary, granted=notary.granted | {e.user})))


@_on(ev.NotaryPublished)
def _published(state: GameState, e: ev.NotaryPublished) -> GameState:
    notary = replace(state.notaries[e.inbox], published=True)
    return replace(state, notaries=_put(state.notaries, e.inbox, notary))
