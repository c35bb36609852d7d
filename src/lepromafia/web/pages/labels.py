"""Human names for inboxes and deadlines, in the viewer's language."""

from __future__ import annotations

import re

from ...engine.deadlines import DEADLINE_KINDS
from ...engine.inboxes import POLICY, Kind
from ...engine.state import GameState
from ..i18n import translate
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


def deadline_label(lang: str, key: str) -> str:
    """The deadline's name from its kind's label in the engine's table (an English msgid)."""
    kind = DEADLINE_KINDS.get(key.partition(":")[0])
    if kind is None:
        return key
    rest = key.partition(":")[2]
    return translate(lang, kind.label).format(rest.split(":")[0] if rest else "")
