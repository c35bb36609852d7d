"""Human names for inboxes and deadlines, in the viewer's language."""

from __future__ import annotations

from ...engine.state import GameState
from ..i18n import N_, translate
from .terms import term


def inbox_label(lang: str, state: GameState, inbox_id: str, viewer: str | None) -> str:
    inbox = state.inboxes[inbox_id]
    kind = term(lang, "kind", inbox.kind)
    if inbox.kind == "city":
        return f"{kind} · {inbox.city}"
    if inbox.kind == "personal":
        if inbox.subject == viewer:
            return f"{kind} · " + translate(lang, "me and the Tribune")
        return f"{kind} · {inbox.subject}"
    if inbox.kind in ("voting", "polling"):
        return f"{kind} · {inbox.subject} ({inbox.city})"
    if inbox.kind in ("mafia", "cemetery") and inbox.city:
        return f"{kind} · {inbox.city}"
    if inbox.kind == "secret":
        return f"{kind} · {inbox.title or inbox_id}"
    if inbox.kind == "line":
        return f"{kind} · {inbox.city}"
    if inbox.kind == "offer":
        return f"{kind} · {inbox.city}"
    if inbox.kind == "removal":
        return f"{kind} · {inbox.city}"
    if inbox.generation:
        return f"{kind} #{inbox.generation + 1}"
    return kind


DEADLINES = {
    "day_start": N_("Day {0} starts"),
    "day_end": N_("Day ends"),
    "vote_open": N_("Voting opens · {0}"),
    "vote_close": N_("Voting closes · {0}"),
    "poll_open": N_("Polling opens · {0}"),
    "poll_close": N_("Polling closes · {0}"),
    "pardon_close": N_("Pardon window · {0}"),
    "night_decisions": N_("Night decisions"),
    "checks_open": N_("Checks open"),
    "checks_close": N_("Checks close"),
    "offer_timeout": N_("Offer answer due · {0}"),
    "offer_reveal": N_("Offer outcome · {0}"),
}
"""A deadline's label (English msgid, ``{0}`` = the key's first part after the kind)."""


def deadline_label(lang: str, key: str) -> str:
    kind, _, rest = key.partition(":")
    template = DEADLINES.get(kind)
    if template is None:
        return key
    first = rest.split(":")[0] if rest else ""
    return translate(lang, template).format(first)
