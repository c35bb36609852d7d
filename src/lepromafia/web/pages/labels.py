"""Human names for inboxes and deadlines, in the viewer's language."""

from __future__ import annotations

import re

from ...engine.inboxes import POLICY, Kind
from ...engine.state import GameState
from ..i18n import N_, translate
from .terms import term


def inbox_label(lang: str, state: GameState, inbox_id: str, viewer: str | None) -> str:
    """The inbox's name by its kind's label format in the policy table (``InboxPolicy.label``).

    A viewer's own personal inbox is "me and the Tribune"; a format naming a field the inbox
    lacks (a game-wide cemetery has no city) falls back to the kind and its renewal number.
    """
    inbox = state.inboxes[inbox_id]
    policy = POLICY[Kind(inbox.kind)]
    subject = inbox.subject
    if policy.kind is Kind.PERSONAL and subject == viewer:
        subject = translate(lang, "me and the Tribune")
    fields = {"kind": term(lang, "kind", inbox.kind), "city": inbox.city, "subject": subject,
              "title": inbox.title or inbox_id,
              "number": f" #{inbox.generation + 1}" if inbox.generation else ""}
    named = set(re.findall(r"{(\w+)}", policy.label))
    if any(fields[name] is None for name in named):
        return "{kind}{number}".format(**fields)
    return policy.label.format(**fields)


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
