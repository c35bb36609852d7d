"""What the bots say in their city inbox, and how a reader understands it.

Two kinds of post: a suspicion («Подозреваю p01_03.») that anyone may voice, and a
commissar's claim («Я комиссар. p01_03 — мафия.» / «… — не мафия.»), which the real
commissar posts when he reveals and a bold mafioso may fake. Readers weigh a claimant by
his track record (``beliefs``); the text itself proves nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SUSPECT = re.compile(r"^Подозреваю (\S+)\.$")
_CLAIM = re.compile(r"^Я комиссар\. (\S+) — (мафия|не мафия)\.$")


@dataclass(frozen=True, slots=True)
class Claim:
    author: str
    target: str
    mafia: bool
    commissar: bool
    """True for «Я комиссар…»; False for a plain suspicion (which always means «mafia»)."""


def suspicion_text(target: str) -> str:
    return f"Подозреваю {target}."


def claim_text(target: str, mafia: bool) -> str:
    return f"Я комиссар. {target} — {'мафия' if mafia else 'не мафия'}."


def parse(author: str, text: str) -> Claim | None:
    """The claim a post makes, or None for any other text."""
    if m := _CLAIM.match(text):
        return Claim(author, m.group(1), m.group(2) == "мафия", True)
    if m := _SUSPECT.match(text):
        return Claim(author, m.group(1), True, False)
    return None
