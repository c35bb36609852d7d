"""The host decisions declared with ``@host_decision`` (``engine/decision.py``): each is whole
(a label for every field, a handler, an evolve rule with its audit line, a codec name), keeps
its old address, and is played by ``decide`` like any command.

Cast: ``tests/engine/cast.py``: Лепроград, alice its mafioso, kostya the Consigliere.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from lepromafia.engine import commands_host as hc
from lepromafia.engine import decisions
from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import Command
from lepromafia.engine.decision import DECIDERS, DECISIONS, OFFICES, declare, forget, host_decision
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.evolve import _HANDLERS
from lepromafia.engine.registry import COMMAND_TYPES, EVENT_TYPES

from .cast import CONSIGLIERE, TRIBUNES, Game, when

MIGRATED = ("acknowledge_combination", "publish_contest", "contest_results", "delegate",
            "revoke_delegation", "ambush_order", "godfather_election_rule",
            "silent_godfather_procedure")


def test_every_declared_decision_is_whole() -> None:
    """§9.1 p.4: each has an office, a label per field, a decide and an evolve rule, an
    audit line, and the codec knows its command and event by name."""
    assert set(MIGRATED) <= set(DECISIONS)
    for d in DECISIONS.values():
        assert d.office in OFFICES, d.name
        fields = {f.name for f in dataclasses.fields(d.command)} - {"actor"}
        assert set(d.labels) == fields, d.name
        assert set(d.choices) <= fields, d.name
        assert DECIDERS[d.command] is d.decide and d.event in _HANDLERS, d.name
        assert COMMAND_TYPES[d.command.__name__] is d.command
        assert EVENT_TYPES[d.event.__name__] is d.event
        assert d.audit is not None, d.name


def test_a_declared_decision_keeps_its_old_address() -> None:
    """Bots, pages and stored logs still name ``commands_host.SetAmbushOrder`` and
    ``events_host.AmbushOrderSet``: the same classes as the ones declared."""
    assert hc.SetAmbushOrder is decisions.mafia_rules.SetAmbushOrder
    assert hev.AmbushOrderSet is decisions.mafia_rules.AmbushOrderSet
    assert hc.PublishContest is decisions.contests.PublishContest
    with pytest.raises(AttributeError):
        _ = hc.NoSuchDecision  # type: ignore[attr-defined]


def test_the_consigliere_s_godfather_rule_is_decided_and_recorded_GODFATHER_2() -> None:
    """GODFATHER-2: the Consigliere's rule for a city holds; a Tribune's is not_consigliere
    and an unknown rule decision_invalid, neither changing anything."""
    g = Game({"Лепроград": "alice bob carol dave erin"}, mafia={"Лепроград": "alice"}).start()
    noon = when(1, "12:00")
    g.reject(hc.SetGodfatherElectionRule(actor=TRIBUNES[0], city="Лепроград", rule="majority",
                                         reason="я так хочу"), noon, ErrorCode.NOT_CONSIGLIERE)
    g.reject(hc.SetGodfatherElectionRule(actor=CONSIGLIERE, city="Лепроград", rule="lot",
                                         reason="жребий"), noon, ErrorCode.DECISION_INVALID)
    g.do(hc.SetGodfatherElectionRule(actor=CONSIGLIERE, city="Лепроград", rule="majority",
                                     reason="большинство"), 1, "12:00")
    assert g.state.records.godfather_rule("Лепроград") == "majority"
    assert g.state.records.audit[-1].action == "GodfatherElectionRuleSet"


@dataclass(**{"frozen": True, "slots": True, "kw_only": True})
class _Unlabelled(Command):
    city: str


@dataclass(**{"frozen": True, "slots": True, "kw_only": True})
class _UnlabelledSet(hev.HostDecision):
    city: str


def test_a_decision_must_label_every_field_and_be_declared_once() -> None:
    """A field without a label would show its name on the page; a second declaration of a
    name would shadow the first: both are refused when declared."""
    d = DECISIONS["ambush_order"]
    with pytest.raises(ValueError, match="twice"):
        declare(d)
    with pytest.raises(ValueError, match="without a label"):
        host_decision("unlabelled", office="procurator", command=_Unlabelled, event=_UnlabelledSet,
                      rule="HOST-2", title="t", explain="e", evolve=lambda s, e: s)(lambda p, c: None)
    assert "unlabelled" not in DECISIONS
    with pytest.raises(KeyError):
        forget("unlabelled")
