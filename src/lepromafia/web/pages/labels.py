"""Human names for inboxes and deadlines, in the viewer's language."""

from __future__ import annotations

from ...engine.state import GameState
from .strings import translate


def inbox_label(lang: str, state: GameState, inbox_id: str, viewer: str | None) -> str:
    inbox = state.inboxes[inbox_id]
    kind = translate(lang, f"kind:{inbox.kind}")
    ru = lang == "ru"
    if inbox.kind == "city":
        return f"{kind} · {inbox.city}"
    if inbox.kind == "personal":
        if inbox.subject == viewer:
            return f"{kind} · {'я и Трибун' if ru else 'me and the Tribune'}"
        return f"{kind} · {inbox.subject}"
    if inbox.kind in ("voting", "polling"):
        return f"{kind} · {inbox.subject} ({inbox.city})"
    if inbox.kind in ("mafia", "cemetery") and inbox.city:
        return f"{kind} · {inbox.city}"
    if inbox.kind in ("secret", "certificate"):  # INBOX-SECRET-1, INBOX-NOTARY-1: its title
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
