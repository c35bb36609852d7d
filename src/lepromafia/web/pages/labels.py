"""Human names for inboxes and deadlines, in the viewer's language."""

from __future__ import annotations

import re

from ...engine.deadlines import DEADLINE_KINDS
from ...engine.inboxes import POLICY, Kind
from ...engine.state import GameState
from .strings import translate


def inbox_label(lang: str, state: GameState, inbox_id: str, viewer: str | None) -> str:
    """The inbox's name by its kind's label format in the policy table (``InboxPolicy.label``).

    A viewer's own personal inbox is "me and the Tribune"; a format naming a field the inbox
    lacks (a game-wide cemetery has no city) falls back to the kind and its renewal number.
    """
    inbox = state.inboxes[inbox_id]
    policy = POLICY[Kind(inbox.kind)]
    subject = inbox.subject
    if policy.kind is Kind.PERSONAL and subject == viewer:
        subject = "я и Трибун" if lang == "ru" else "me and the Tribune"
    fields = {"kind": translate(lang, f"kind:{inbox.kind}"), "city": inbox.city, "subject": subject,
              "title": inbox.title or inbox_id,
              "number": f" #{inbox.generation + 1}" if inbox.generation else ""}
    named = set(re.findall(r"{(\w+)}", policy.label))
    if any(fields[name] is None for name in named):
        return "{kind}{number}".format(**fields)
    return policy.label.format(**fields)


DEADLINES_RU = {
    "Day {0} starts": "Начало дня {0}", "Day ends": "Конец дня",
    "Voting opens · {0}": "Голосование открывается · {0}",
    "Voting closes · {0}": "Голосование закрывается · {0}",
    "Polling opens · {0}": "Участок открывается · {0}", "Polling closes · {0}": "Участок закрывается · {0}",
    "Pardon window · {0}": "Окно помилования · {0}", "Night decisions": "Решения ночи",
    "Checks open": "Проверки открываются", "Checks close": "Проверки закрываются",
    "Offer answer due · {0}": "Срок ответа на предложение · {0}",
    "Offer outcome · {0}": "Итог предложения · {0}",
    "The deal's reveals close": "Раскрытие значений жребия закрывается",
}
"""Russian for each label of ``engine.deadlines.DEADLINE_KINDS`` (a test keeps them complete)."""


def deadline_label(lang: str, key: str) -> str:
    """The deadline's name from its kind's label in the engine's table."""
    kind = DEADLINE_KINDS.get(key.partition(":")[0])
    if kind is None:
        return key
    rest = key.partition(":")[2]
    template = DEADLINES_RU.get(kind.label, kind.label) if lang == "ru" else kind.label
    return template.format(rest.split(":")[0] if rest else "")
