"""Host decisions declared in one place: ``@host_decision``.

A [HOST] decision (a ruling, a procedure, a record an office keeps) is one block in one
``engine/decisions`` module: its command class, its event class, the evolve rule that records
it, and the decorated function that decides it. The decorator registers all of them — the
command's handler (``decide`` asks ``DECIDERS``), the evolve rule with the decision's audit
line (§9.1 p.4), the codec's registry (``EVENTS``, ``COMMANDS``) — and keeps what the layers
above derive from it, so nobody lists it again:

- the console form (``web/pages/host_decision_forms.py``): which office offers it (``office``),
  each field's label (``labels``, msgids), the values a field may take now (``choices``: the
  engine's own valid targets, or a closed set of options with their words);
- the audit log's line (``audit``: its kind and a msgid filled from the event's fields);
- its old address: ``commands_host.X`` / ``events_host.X`` still resolve (``declared``).

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from .commands import Command
from .events import Event
from .events_host import HostDecision
from .state import GameState

if TYPE_CHECKING:
    from .progress import Progress

OFFICES = ("procurator", "consigliere", "arbiter", "tribune")


@dataclass(frozen=True, slots=True)
class Option:
    """One value a field may take, and how a person reads it: a msgid (``label``), or the
    value itself (a city's or a resident's name) when ``label`` is empty."""

    value: str
    label: str = ""


ChoicesOf = Callable[[GameState, str], tuple[Option, ...]]
"""(state, actor) -> the values the field may take now."""


def options(*pairs: tuple[str, str]) -> ChoicesOf:
    """A closed set of options with their words, the same in every state."""
    fixed = tuple(Option(value, label) for value, label in pairs)
    return lambda state, actor: fixed


@dataclass(frozen=True, slots=True)
class AuditLine:
    """The decision's line in the hosts' audit log: its ``kind`` (the log's filter), a msgid
    with ``{fields}`` (or event -> msgid, for a line that depends on the outcome), the event's
    fields that fill it (``fields``: event -> values), and which of them are words to
    translate (``words``) or inbox ids the log names (``inboxes``)."""

    kind: str
    text: str | Callable[[Any], str]
    fields: Callable[[Any], Mapping[str, Any]]
    words: tuple[str, ...] = ()
    inboxes: tuple[str, ...] = ()
    rule: Callable[[Any], str] | None = None
    """The rule the row cites, read from the event (default: the decision's ``rule``)."""
    any_office: bool = False
    """The row belongs to whichever office its author held (a Sound Library step a Tribune
    or the Procurator takes), not to the decision's ``office``."""
    platform: bool = False
    """The platform may take this step on an office's behalf (rows with no person)."""

    def msgid(self, event: Any) -> str:
        return self.text if isinstance(self.text, str) else self.text(event)


@dataclass(frozen=True, slots=True)
class Recorded:
    """A further event a decision records besides its own (the Tribune replaced with an
    impeachment's outcome, the bans of a private case): its evolve rule and audit line."""

    event: type[Event]
    evolve: Callable[[GameState, Any], GameState]
    audit: AuditLine | None = None
    rule: str = ""
    """The rule its audit row cites (default: the decision's)."""


Decide = Callable[["Progress", Any], None]
Evolve = Callable[[GameState, Any], GameState]


@dataclass(frozen=True)
class Decision:
    """One declared host decision. ``name`` is its stable form name (``/games/{g}/do/<name>``)."""

    name: str
    office: str
    command: type[Command]
    event: type[Event]
    """A ``HostDecision`` (one audit entry in the state, §9.1 p.4), or a plain event for a
    step that leaves none (a sealed record opened)."""
    rule: str
    title: str
    """msgid: the tool's heading on the console."""
    explain: str
    """msgid: one sentence under it."""
    decide: Decide
    evolve: Evolve
    labels: Mapping[str, str] = field(default_factory=dict)
    """command field -> msgid of its visible label (every field but ``actor`` has one)."""
    choices: Mapping[str, ChoicesOf] = field(default_factory=dict)
    """command field -> the values it may take now (a select on the page)."""
    limits: Mapping[str, int] = field(default_factory=dict)
    """text field -> its length limit on the form (the engine checks its own)."""
    submit: str = ""
    """msgid of the form's button (default: the title)."""
    audit: AuditLine | None = None
    offered: Callable[[GameState, str], bool] | None = None
    """Whether the console offers the form to this actor now (default: he holds ``office``)."""
    bespoke_form: bool = False
    """The console template draws its own form for it (the form posts the same fields)."""
    also: tuple[Recorded, ...] = ()
    """Further events the decision records, each with its evolve rule and audit line."""
    inputs: Mapping[str, str] = field(default_factory=dict)
    """command field -> the name the form posts it under, where it is not the field's own."""
    none_flag: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """optional field -> (the checkbox's input name, its label msgid): ticked, the field is
    None (a ban «for life»); unticked, the field is required."""

    def is_offered(self, state: GameState, actor: str) -> bool:
        if self.offered is not None:
            return self.offered(state, actor)
        return holds(state, actor, self.office)


def holds(state: GameState, actor: str, office: str) -> bool:
    """Whether ``actor`` holds ``office`` in this game (a Tribune: of any city)."""
    if office == "tribune":
        return actor in state.tribunes()
    return actor == getattr(state, office, None)


DECISIONS: dict[str, Decision] = {}
"""form name -> decision, in declaration order."""
DECIDERS: dict[type[Command], Decide] = {}
COMMANDS: dict[str, type[Command]] = {}
EVENTS: dict[str, type[Event]] = {}

F = TypeVar("F", bound=Decide)


def host_decision(name: str, *, office: str, command: type[Command], event: type[Event],
                  rule: str, title: str, explain: str, evolve: Evolve,
                  labels: Mapping[str, str] | None = None,
                  choices: Mapping[str, ChoicesOf] | None = None,
                  limits: Mapping[str, int] | None = None, submit: str = "",
                  audit: AuditLine | None = None,
                  offered: Callable[[GameState, str], bool] | None = None,
                  bespoke_form: bool = False, also: tuple[Recorded, ...] = (),
                  inputs: Mapping[str, str] | None = None,
                  none_flag: Mapping[str, tuple[str, str]] | None = None) -> Callable[[F], F]:
    """Declare a host decision: the decorated function decides ``command`` (it raises a
    ``RuleViolation`` or emits ``event``, and any ``also``); ``evolve`` records the event in
    the state."""

    def register(decide: F) -> F:
        declare(Decision(name=name, office=office, command=command, event=event, rule=rule,
                         title=title, explain=explain, decide=decide, evolve=evolve,
                         labels=dict(labels or {}), choices=dict(choices or {}),
                         limits=dict(limits or {}), submit=submit, audit=audit, offered=offered,
                         bespoke_form=bespoke_form, also=also, inputs=dict(inputs or {}),
                         none_flag=dict(none_flag or {})))
        return decide

    return register


def declare(d: Decision) -> Decision:
    """Register ``d`` everywhere the engine looks; a name or class taken twice is an error."""
    from .evolve import _HANDLERS
    from .evolve_host import audited

    if d.office not in OFFICES:
        raise ValueError(f"{d.name}: unknown office {d.office!r}")
    recorded = ((d.event, d.evolve), *((r.event, r.evolve) for r in d.also))
    taken = (d.name in DECISIONS or d.command in DECIDERS or d.command.__name__ in COMMANDS
             or any(e.__name__ in EVENTS or e in _HANDLERS for e, _ in recorded))
    if taken:
        raise ValueError(f"host decision {d.name} ({d.command.__name__}) is declared twice")
    missing = [f for f in _form_fields(d.command) if f not in d.labels]
    if missing:
        raise ValueError(f"{d.name}: fields without a label: {missing}")
    DECISIONS[d.name] = d
    DECIDERS[d.command] = d.decide
    COMMANDS[d.command.__name__] = d.command
    for event, rule in recorded:
        EVENTS[event.__name__] = event
        # A HostDecision is a line of the state's audit (§9.1 p.4); a plain event records only.
        _HANDLERS[event] = audited(rule) if issubclass(event, HostDecision) else rule
    return d


def forget(name: str) -> None:
    """Undo ``declare`` (a test that declares a decision of its own cleans up with it)."""
    from .evolve import _HANDLERS

    d = DECISIONS.pop(name)
    DECIDERS.pop(d.command, None)
    COMMANDS.pop(d.command.__name__, None)
    for event in (d.event, *(r.event for r in d.also)):
        EVENTS.pop(event.__name__, None)
        _HANDLERS.pop(event, None)


def declared_events() -> dict[type[Event], Decision]:
    """Every event a declared decision records (its own and its ``also``) -> the decision."""
    return {e: d for d in DECISIONS.values() for e in (d.event, *(r.event for r in d.also))}


def declared(name: str) -> type[Any]:
    """A declared decision's command or event class by its name (the old module addresses
    ``commands_host.X`` and ``events_host.X`` resolve through this)."""
    from . import decisions  # noqa: F401 - importing the package declares them

    found = COMMANDS.get(name) or EVENTS.get(name)
    if found is None:
        raise AttributeError(name)
    return found


def _form_fields(command: type[Command]) -> list[str]:
    return [f.name for f in fields(command) if f.name != "actor"]
