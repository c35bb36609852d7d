"""The host decisions declared with ``@host_decision`` (``engine/decision.py``): each is whole
(a label for every field, a handler, an evolve rule with its audit line, a codec name), keeps
its old address, and is played by ``decide`` like any command.

Cast: ``tests/engine/cast.py``: Лепроград, alice its mafioso, kostya the Consigliere.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass

import pytest

from lepromafia.engine import commands_host as hc
from lepromafia.engine import decisions
from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import Command
from lepromafia.engine.decide import HANDLERS
from lepromafia.engine.decision import (
    DECIDERS,
    DECISIONS,
    OFFICES,
    declare,
    declared_events,
    forget,
    host_decision,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.evolve import _HANDLERS
from lepromafia.engine.registry import COMMAND_TYPES, EVENT_TYPES

from .cast import CONSIGLIERE, TRIBUNES, Game, when

MIGRATED = ("acknowledge_combination", "publish_contest", "contest_results", "delegate",
            "revoke_delegation", "ambush_order", "godfather_election_rule",
            "silent_godfather_procedure", "sanction", "reveal_record", "forward_sound_request",
            "answer_sound_request", "publish_sound_entry", "decide_impeachment",
            "decide_no_confidence", "decide_case", "lift_ban", "review_relay", "hide_comment")

CITIZENS_ACTS = {hc.RequestSound, hc.SignImpeachment, hc.LinkEvidence, hc.ExpressNoConfidence,
                 hc.FilePrivateCase, hc.SendMafiaRelay}
"""The host-side rules' commands a citizen or a mafia issues, not a host: decided by
``decide.HANDLERS``, recorded without an audit line."""


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
        for event in (d.event, *(r.event for r in d.also)):
            assert EVENT_TYPES[event.__name__] is event and event in _HANDLERS, event
        # Every HostDecision is a line of the audit log; a plain event (a record opened) is not.
        assert (d.audit is not None) == issubclass(d.event, hev.HostDecision), d.name
        for r in d.also:
            assert (r.audit is not None) == issubclass(r.event, hev.HostDecision), r.event


def _subclasses(base: type) -> set[type]:
    """``base``'s subclasses as their modules define them (``dataclass(slots=True)`` makes a
    new class; the one it replaced may linger in ``__subclasses__``)."""
    found = set()
    for sub in base.__subclasses__():
        if getattr(sys.modules[sub.__module__], sub.__name__, None) is sub:
            found.add(sub)
        found |= _subclasses(sub)
    return found


def test_no_host_decision_bypasses_the_registry() -> None:
    """§9.1 p.4, issue 9: every ``HostDecision`` the engine can record is the event (or a
    further event) of a decision declared with ``@host_decision``, so its handler, evolve
    rule, audit line and form come from one block; no declared command is also a plain
    handler, and the host-side commands left to ``decide.HANDLERS`` are the citizens' own
    acts. A new host decision written the old way (a class in ``events_host.py``, a row in
    ``decide.HANDLERS``) fails here."""
    recorded = declared_events()
    ours = {c for c in _subclasses(hev.HostDecision) if c.__module__.startswith("lepromafia.")}
    assert ours, "HostDecision has subclasses"
    assert ours <= set(recorded), sorted(c.__name__ for c in ours - set(recorded))
    assert not set(HANDLERS) & set(DECIDERS)
    left = {c for c in HANDLERS if c.__module__ == hc.__name__}
    assert left == CITIZENS_ACTS, sorted(c.__name__ for c in left ^ CITIZENS_ACTS)
    for event in (ev for ev in ours if ev in _HANDLERS):
        assert _HANDLERS[event].__qualname__.startswith("audited"), event


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
