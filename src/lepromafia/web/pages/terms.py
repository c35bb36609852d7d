
"""Game terms that pages show for a stored key (an inbox kind, an archive status, a charge…).

Each group maps a key, as the engine and the read models store it, to its English msgid;
``term(lang, group, key)`` translates it through the catalog. Templates call
``term('kind', inbox.kind)``. Words that pages translate straight from a value
(``_(faction)``) are declared in ``VALUES`` so that ``pybabel extract`` finds them.
"""

from __future__ import annotations

from ...engine.inboxes import POLICY
from ...engine.settings import LABELS as SETTING_LABELS
from ...engine.settings import OPTION_LABELS
from ..i18n import N_, translate

TERMS: dict[str, dict[str, str]] = {
    "kind": {kind.value: policy.words for kind, policy in POLICY.items()},  # the engine's words
    "result": {
        "honest": N_("the honest win"), "mafia": N_("the mafia wins"), "draw": N_("a draw"),
    },
    "status": {
        "member": N_("you are a member"), "open": N_("open"), "on_request": N_("on request"),
        "awaiting_consent": N_("awaiting consent"), "closed": N_("closed"),
    },
    "charge": {
        "insult": N_("insult"), "slander": N_("slander"), "moral_abuse": N_("moral abuse"),
    },
    "decision": {"guilty": N_("guilty"), "not_guilty": N_("not guilty")},
    "impeachment": {
        "replace": N_("replace the Tribune"), "bonus": N_("a bonus to the initiators"),
        "unfounded": N_("unfounded"), "insignificant": N_("insignificant (the reasons stay sealed)"),
    },
    "noconf": {"arbiter": N_("in the Supreme Arbiter"), "consigliere": N_("in the Consigliere")},
    "relay": {"message": N_("a message"), "gift": N_("a valuable gift"), "fish": N_("a fish")},
    "majority": {
        "of_sitting": N_("a majority of the sitting judges"),
        "of_votes_cast": N_("a majority of the votes cast"),
    },
    "cause": {
        "execution": N_("execution"), "night_kill": N_("killed at night"), "suicide": N_("suicide"),
    },
    "sound": {"refused": N_("refused"), "no_show": N_("did not come")},
    "sanction": {
        "OMERTA-2": N_("breaking omertà"), "IMPEACH-5": N_("forged evidence"),
        "RESTORE-T1": N_("a leak that wrecks the game"),
    },
    "setting": SETTING_LABELS,  # the engine's words, beside each setting
    "option": OPTION_LABELS,  # the engine's words, beside the settings' options
}

VALUES = (
    N_("honest"), N_("mafia"), N_("draw"), N_("execution"), N_("suicide"),
    N_("submitted"), N_("forwarded"), N_("accepted"), N_("declined"), N_("done"),
    N_("acoustic"), N_("visual"), N_("refused"), N_("recorded"),
    N_("confrontation"), N_("interrogation"), N_("last word"), N_("séance"),
)
"""English values that pages translate directly (``_(value)``): declared for the extractor."""


def setting_value(lang: str, value: object) -> str:
    """A setting's value as people read it: a named option or yes/no in words, a number as is."""
    if isinstance(value, bool | str):
        return term(lang, "option", value)
    return str(value)


def term(lang: str, group: str, key: object) -> str:
    """The translated term for ``key`` in ``group``; an unknown key is shown as given (the
    all-pages test fails on it)."""
    msgid = TERMS.get(group, {}).get(str(key))
    return translate(lang, msgid) if msgid else str(key)
