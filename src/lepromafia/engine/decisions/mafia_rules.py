"""The Consigliere's procedures for a city's mafia: the order of its ambushes (AMBUSH-6), how it
elects its Godfather (GODFATHER-2) and how it decides when the Godfather is silent
(MAFIA-KILL-5). Each is seen by that city's mafia side only (§9.2)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..commands import Command
from ..decision import AuditLine, Option, host_decision, options
from ..errors import N_, ErrorCode, check
from ..events_host import HostDecision
from ..progress import Progress
from ..rules.common import mafia_audience, require_city, require_running, require_undecided
from ..rules.host import reason_of
from ..state import GameState, Stage

_C = {"frozen": True, "slots": True, "kw_only": True}


def _mafia_cities(s: GameState, actor: str) -> tuple[Option, ...]:
    """The cities whose mafia the Consigliere may still set a procedure for."""
    return tuple(Option(c.name) for c in s.cities.values()
                 if c.decided is None and s.living_mafia(c.name))


def _consigliere_running(s: GameState, actor: str) -> bool:
    return actor == s.consigliere and s.stage not in (Stage.RECRUITING, Stage.FINISHED)


# --- AMBUSH-6: the order of ambushes --------------------------------------------------


@dataclass(**_C)
class SetAmbushOrder(Command):
    """AMBUSH-6: the Consigliere orders the mafiosi placing ambushes; the order decides which
    of their ambushes stand (``rules/ambush.standing``)."""

    city: str
    order: tuple[str, ...]
    reason: str


@dataclass(**_C)
class AmbushOrderSet(HostDecision):
    city: str
    order: tuple[str, ...]


def _ambush_order(state: GameState, e: AmbushOrderSet) -> GameState:
    kept = tuple(x for x in state.records.ambush_orders if x[0] != e.city)
    return replace(state, records=replace(state.records, ambush_orders=(*kept, (e.city, e.order))))


@host_decision(
    "ambush_order", office="consigliere", command=SetAmbushOrder, event=AmbushOrderSet,
    rule="AMBUSH-6", title=N_("Ambushes"),
    explain=N_("A city whose mafia holds the ambush right places them in the order you set."),
    evolve=_ambush_order,
    labels={"city": N_("City"), "order": N_("Mafiosi in order, comma separated"),
            "reason": N_("Reason")},
    choices={"city": _mafia_cities},
    audit=AuditLine("mafia", N_("Set the ambush order of {city}: {order}"),
                    lambda e: {"city": e.city, "order": ", ".join(e.order)}),
    bespoke_form=True)
def set_ambush_order(p: Progress, c: SetAmbushOrder) -> None:
    """AMBUSH-6: the Consigliere's order; recorded in the mafia inbox's audience only (§9.2)."""
    s = p.state
    check(c.actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, "AMBUSH-6")
    require_running(s)
    city = require_city(s, c.city)
    living = set(s.living_mafia(city.name))
    order = tuple(c.order)
    check(bool(order) and len(set(order)) == len(order) and set(order) <= living,
          ErrorCode.AMBUSH_ORDER_INVALID, "AMBUSH-6")
    p.emit(AmbushOrderSet, mafia_audience(s, city.name), host=c.actor, rule="AMBUSH-6",
           reason=reason_of(s, c.reason), city=city.name, order=order)


# --- GODFATHER-2, MAFIA-KILL-5: the Consigliere's procedures ---------------------------

GODFATHER_RULES = {"plurality": N_("plurality"), "majority": N_("majority"),
                   "unanimity": N_("unanimity")}
SILENT_PROCEDURES = {"majority": N_("majority"), "plurality": N_("plurality"),
                     "no_kill": N_("no kill")}


def _consigliere_city(p: Progress, actor: str, city_name: str, rule: str) -> str:
    s = p.state
    check(actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, rule)
    check(s.stage not in (Stage.RECRUITING, Stage.FINISHED), ErrorCode.WRONG_STAGE, rule,
          stage=s.stage.value)
    city = require_city(s, city_name)
    require_undecided(city)
    return city.name


@dataclass(**_C)
class SetGodfatherElectionRule(Command):
    """GODFATHER-2: the Consigliere sets how the city's mafia elects its Godfather.

    ``rule``: "plurality" (the default preset), "majority" (more than half of the living
    mafiosi) or "unanimity" (every living mafioso)."""

    city: str
    rule: str
    reason: str


@dataclass(**_C)
class GodfatherElectionRuleSet(HostDecision):
    """GODFATHER-2: the Consigliere's election rule for the city's mafia."""

    city: str
    election_rule: str


def _per_city(state: GameState, record: str, city: str, value: str) -> GameState:
    """``state.records.<record>`` with ``city``'s value replaced by ``value``."""
    kept = tuple(x for x in getattr(state.records, record) if x[0] != city)
    changed: dict[str, Any] = {record: (*kept, (city, value))}
    return replace(state, records=replace(state.records, **changed))


def _godfather_rule(state: GameState, e: GodfatherElectionRuleSet) -> GameState:
    return _per_city(state, "godfather_rules", e.city, e.election_rule)


@host_decision(
    "godfather_election_rule", office="consigliere", command=SetGodfatherElectionRule,
    event=GodfatherElectionRuleSet, rule="GODFATHER-2", title=N_("How the Godfather is elected"),
    explain=N_("You set the rules of a city's Godfather election; its mafia sees them."),
    evolve=_godfather_rule,
    labels={"city": N_("City"), "rule": N_("Election rule"), "reason": N_("Reason")},
    choices={"city": _mafia_cities, "rule": options(*GODFATHER_RULES.items())},
    submit=N_("Set the rule"),
    audit=AuditLine("mafia", N_("Set how {city}'s mafia elects its Godfather: {rule}"),
                    lambda e: {"city": e.city, "rule": GODFATHER_RULES.get(e.election_rule,
                                                                           e.election_rule)},
                    words=("rule",)),
    offered=_consigliere_running)
def set_godfather_election_rule(p: Progress, c: SetGodfatherElectionRule) -> None:
    """GODFATHER-2: «по правилам, которые он устанавливает»; seen by the city's mafia only."""
    name = _consigliere_city(p, c.actor, c.city, "GODFATHER-2")
    check(c.rule in GODFATHER_RULES, ErrorCode.DECISION_INVALID, "GODFATHER-2",
          detail=N_("choose one of the offered election rules"))
    p.emit(GodfatherElectionRuleSet, mafia_audience(p.state, name), host=c.actor,
           rule="GODFATHER-2", reason=reason_of(p.state, c.reason), city=name, election_rule=c.rule)


@dataclass(**_C)
class SetSilentGodfatherProcedure(Command):
    """MAFIA-KILL-5: how the city's mafia decides when its Godfather is silent.

    ``procedure``: "majority" (the default preset: more than half of the living mafiosi,
    a tie kills nobody), "plurality" (the most voices; a tie kills nobody) or "no_kill"."""

    city: str
    procedure: str
    reason: str


@dataclass(**_C)
class SilentGodfatherProcedureSet(HostDecision):
    """MAFIA-KILL-5: the Consigliere's procedure when the Godfather is silent."""

    city: str
    procedure: str


def _silent_procedure(state: GameState, e: SilentGodfatherProcedureSet) -> GameState:
    return _per_city(state, "silent_procedures", e.city, e.procedure)


@host_decision(
    "silent_godfather_procedure", office="consigliere", command=SetSilentGodfatherProcedure,
    event=SilentGodfatherProcedureSet, rule="MAFIA-KILL-5",
    title=N_("When the Godfather is silent"),
    explain=N_("You set how a city's mafia decides the night's kill if its Godfather gives no order."),
    evolve=_silent_procedure,
    labels={"city": N_("City"), "procedure": N_("Procedure"), "reason": N_("Reason")},
    choices={"city": _mafia_cities, "procedure": options(*SILENT_PROCEDURES.items())},
    submit=N_("Set the procedure"),
    audit=AuditLine("mafia", N_("Set what {city}'s mafia does when its Godfather is silent: {procedure}"),
                    lambda e: {"city": e.city, "procedure": SILENT_PROCEDURES.get(e.procedure,
                                                                                  e.procedure)},
                    words=("procedure",)),
    offered=_consigliere_running)
def set_silent_godfather_procedure(p: Progress, c: SetSilentGodfatherProcedure) -> None:
    """MAFIA-KILL-5: «порядок принятия решения определяется Консильери»."""
    name = _consigliere_city(p, c.actor, c.city, "MAFIA-KILL-5")
    check(c.procedure in SILENT_PROCEDURES, ErrorCode.DECISION_INVALID, "MAFIA-KILL-5",
          detail=N_("choose one of the offered procedures"))
    p.emit(SilentGodfatherProcedureSet, mafia_audience(p.state, name), host=c.actor,
           rule="MAFIA-KILL-5", reason=reason_of(p.state, c.reason), city=name,
           procedure=c.procedure)
