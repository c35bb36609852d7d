"""Disclosures confirmed by the Procurator (MAFIA-DISCLOSE, COMM-DISCLOSE)."""

from __future__ import annotations

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..errors import ErrorCode, check
from ..progress import Progress
from ..state import PhaseKind
from .common import archive_inbox, living_resident, require_city, require_procurator, require_running


def confirm_mafioso(p: Progress, c: cmd.ConfirmMafiosoDisclosure) -> None:
    """MAFIA-DISCLOSE-1..4 (AMB-19): immune on the day of confirmation if that day's vote
    has not closed, else the next day. Immunity follows the confirmation, whatever the
    resident's true faction: refusing it would reveal a faction to everyone (HOST-PROC-7)."""
    s = p.state
    require_procurator(s, c.actor)
    require_running(s)
    resident = living_resident(s, c.user)
    check(bool(c.reason.strip()), ErrorCode.REASON_REQUIRED, "MAFIA-DISCLOSE-3")
    city = s.cities[resident.city]
    vote_closed = city.voting is not None and city.voting.closed
    today = s.phase is PhaseKind.DAY and not vote_closed
    day = s.day if today else s.day + 1
    p.emit(ev.MafiosoDisclosed, PUBLIC, city=resident.city, user=c.user, immunity_day=day,
           reason=c.reason.strip())


def confirm_commissar(p: Progress, c: cmd.ConfirmCommissarDisclosure) -> None:
    """COMM-DISCLOSE-1, -3, -4 (AMB-18): the commissar loses his office; a replacement only
    while more than half of the initial population lives; no ambush right."""
    s = p.state
    require_procurator(s, c.actor)
    require_running(s)
    city = require_city(s, c.city)
    check(city.commissar is not None, ErrorCode.NOT_COMMISSAR, "COMM-DISCLOSE-3")
    check(bool(c.reason.strip()), ErrorCode.REASON_REQUIRED, "COMM-DISCLOSE-3")
    assert city.commissar is not None
    commissar = city.commissar
    p.emit(ev.CommissarDisclosed, only(s.procurator, commissar), city=c.city, reason=c.reason.strip())
    replace = 2 * len(s.living(c.city)) > city.initial_population
    p.emit(ev.CommissarVacated, only(s.procurator), city=c.city, commissar=commissar,
           reason="disclosure", replace=replace, ambush=False)
    if city.commissar_line:
        archive_inbox(p, city.commissar_line)  # INBOX-POLICE-2: removed; the line closes
