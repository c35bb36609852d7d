"""Inter-city mafia relay through the Consigliere (MAFIA-COMM-1..3, SEC-5).

There is no direct channel: a mafia submits a message, gift or fish for another city's
Godfather; the Consigliere reviews each one (a host judgement, ``decisions/relay.py``) and forwards or
rejects it.
A gift or a fish thanks or blames a tour: only a mafia whose city the receiving city's mafia
toured may send one (MAFIA-COMM-2, MAFIA-COMM-3).
"""

from __future__ import annotations

from .. import commands_host as hc
from .. import events_host as hev
from ..errors import N_, ErrorCode, check
from ..progress import Progress
from ..state import Faction, GameState
from .common import living_resident, mafia_audience, require_city, require_running
from .host import text_of

KINDS = ("message", "gift", "fish")
"""MAFIA-COMM-1 a message; -2 a valuable gift (thanks); -3 a fish (displeasure)."""
_TOKEN_RULE = {"gift": "MAFIA-COMM-2", "fish": "MAFIA-COMM-3"}


def toured(s: GameState, touring: str, into: str) -> bool:
    """MAFIA-COMM-2/3: «довольная (недовольная) работой на гастролях мафии другого города» —
    ``touring``'s mafia has decided a tour kill of a resident of ``into``."""
    return any(city == touring and victim_city == into for _night, city, victim_city in s.tours)


def send_relay(p: Progress, c: hc.SendMafiaRelay) -> None:
    s = p.state
    require_running(s)
    sender = living_resident(s, c.actor)
    check(sender.faction is Faction.MAFIA, ErrorCode.NOT_MAFIOSO, "MAFIA-COMM-1")
    to_city = require_city(s, c.to_city)
    check(to_city.name != sender.city, ErrorCode.RELAY_INVALID, "MAFIA-COMM-1",
          detail=N_("a relay goes to another city"))
    check(c.kind in KINDS, ErrorCode.RELAY_INVALID, "MAFIA-COMM-1",
          detail=N_("send a message, a valuable gift or a fish"))
    if c.kind != "message":
        check(toured(s, to_city.name, sender.city), ErrorCode.RELAY_INVALID, _TOKEN_RULE[c.kind],
              detail=N_("a gift or a fish answers a tour that city's mafia made in yours"))
    text = text_of(s, c.text, required=c.kind == "message")
    p.emit(hev.MafiaRelaySubmitted, mafia_audience(s, sender.city),
           relay=len(s.records.relays) + 1, from_city=sender.city, to_city=to_city.name,
           kind=c.kind, text=text, sender=c.actor)
