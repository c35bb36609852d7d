"""Human names for inboxes and deadlines, in the viewer's language."""

from __future__ import annotations

import re

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


_DEADLINES_RU = {
    "day_start": "Начало дня {0}", "day_end": "Конец дня", "vote_open": "Голосование открывается · {0}",
    "vote_close": "Голосование закрывается · {0}", "poll_open": "Участок открывается · {0}",
    "poll_close": "Участок закрывается · {0}", "pardon_close": "Окно помилования · {0}",
    "night_decisions": "Решения ночи", "checks_open": "Проверки открываются",
    "checks_close": "Проверки закрываются", "offer_timeout": "Срок ответа на предложение · {0}",
    "offer_reveal": "Итог предложения · {0}",
}
_DEADLINES_EN = {
    "day_start": "Day {0} starts", "day_end": "Day ends", "vote_open": "Voting opens · {0}",
    "vote_close": "Voting closes · {0}", "poll_open": "Polling opens · {0}",
    "poll_close": "Polling closes · {0}", "pardon_close": "Pardon window · {0}",
    "night_decisions": "Night decisions", "checks_open": "Checks open", "checks_close": "Checks close",
    "offer_timeout": "Offer answer due · {0}", "offer_reveal": "Offer outcome · {0}",
}


def deadline_label(lang: str, key: str) -> str:
    kind, _, rest = key.partition(":")
    table = _DEADLINES_RU if lang == "ru" else _DEADLINES_EN
    template = table.get(kind)
    if template is None:
        return key
    first = rest.split(":")[0] if rest else ""
    return template.format(first)
