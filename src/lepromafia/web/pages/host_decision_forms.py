"""The console forms of the host decisions declared in the engine (``engine/decisions``),
derived from each decision's command: no form is written by hand.

Each command field becomes an input by its type — a ``datetime`` the consoles' Moscow
picker (``moment_field``), a ``date`` a day from the list, a ``bool`` a checkbox, an ``int``
a number, a tuple of names a comma-separated list, a field with ``choices`` a select of the
values the engine offers now, an optional field with a ``none_flag`` its input and the
checkbox that leaves it empty («for life») — labelled with the decision's own msgid and
posted under the field's name (or the decision's ``inputs`` name for it). A posted form is
parsed back by the same types (``WithDeclared``, which ``forms.ACTIONS`` is), and a refused
field is named by that label. The engine then judges the command like any other.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from ...engine.commands import Command
from ...engine.decision import DECISIONS, Decision, Option
from ...engine.state import GameState
from ..errors import WebError, WebErrorCode

if TYPE_CHECKING:
    from .forms import Form

Builder = Callable[["Form", str, GameState], Command]

TEXTAREA_FROM = 4000
"""A text field whose limit is above this is a textarea."""
DEFAULT_LIMIT = 4000


@dataclass(frozen=True)
class FieldSpec:
    """One input of a derived form. ``label`` is a msgid; ``kind`` picks the widget."""

    name: str
    kind: str
    """text, textarea, number, flag, moment, date, names, select or multi."""
    label: str
    required: bool
    limit: int
    input: str = ""
    """The name the form posts it under (default: the field's own)."""
    none_flag: tuple[str, str] | None = None
    """(input name, label msgid) of the checkbox that sets the field to None («for life»);
    while it is unticked the field is required."""

    @property
    def posted(self) -> str:
        return self.input or self.name


@dataclass(frozen=True)
class FieldView:
    spec: FieldSpec
    options: tuple[Option, ...] = ()


@dataclass(frozen=True)
class FormView:
    """A derived form as the console template draws it."""

    name: str
    title: str
    explain: str
    submit: str
    rule: str
    fields: tuple[FieldView, ...]


def _inner(hint: Any) -> tuple[Any, bool]:
    """The hint without ``| None``, and whether None was allowed."""
    args = typing.get_args(hint)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return rest[0], True
    return hint, False


def _kind(hint: Any, limit: int, chosen: bool) -> str:
    if typing.get_origin(hint) is tuple:
        return "multi" if chosen else "names"
    if chosen:
        return "select"
    if hint is datetime:
        return "moment"
    if hint is date:
        return "date"
    if hint is bool:
        return "flag"
    if hint is int:
        return "number"
    return "textarea" if limit > TEXTAREA_FROM else "text"


_TYPED: dict[type[Any], tuple[tuple[str, Any, bool, bool], ...]] = {}


def _typed_fields(command: type[Command]) -> tuple[tuple[str, Any, bool, bool], ...]:
    """The command's fields but ``actor``, in order: name, type (without ``| None``),
    whether None is allowed and whether it has a default (cached per class)."""
    known = _TYPED.get(command)
    if known is not None:
        return known
    hints = typing.get_type_hints(command)
    out = []
    for f in dataclasses.fields(command):
        if f.name != "actor":
            hint, optional = _inner(hints[f.name])
            has_default = (f.default is not dataclasses.MISSING
                           or f.default_factory is not dataclasses.MISSING)
            out.append((f.name, hint, optional, has_default))
    _TYPED[command] = tuple(out)
    return _TYPED[command]


def field_specs(d: Decision) -> tuple[tuple[FieldSpec, Any, bool], ...]:
    """Each input of ``d``'s form, with the field's type and whether it may be None."""
    out = []
    for name, hint, optional, has_default in _typed_fields(d.command):
        limit = d.limits.get(name, DEFAULT_LIMIT)
        flag = d.none_flag.get(name)
        spec = FieldSpec(name=name, kind=_kind(hint, limit, name in d.choices), label=d.labels[name],
                         required=not (optional or has_default or hint is bool) or flag is not None,
                         limit=limit, input=d.inputs.get(name, ""), none_flag=flag)
        out.append((spec, hint, optional))
    return tuple(out)


def form_view(d: Decision, state: GameState, actor: str) -> FormView:
    fields = tuple(FieldView(spec, d.choices[spec.name](state, actor) if spec.name in d.choices else ())
                   for spec, _hint, _optional in field_specs(d))
    return FormView(name=d.name, title=d.title, explain=d.explain, submit=d.submit or d.title,
                    rule=d.rule, fields=fields)


def decision_forms(state: GameState, actor: str, office: str) -> list[FormView]:
    """The derived forms the console of ``office`` offers ``actor`` now (a decision whose
    console draws its own form is left to the template)."""
    return [form_view(d, state, actor) for d in DECISIONS.values()
            if d.office == office and not d.bespoke_form and d.is_offered(state, actor)]


# --- a posted form back into the command ---------------------------------------------


def _value(form: Form, spec: FieldSpec, hint: Any, optional: bool) -> Any:
    from . import forms as F  # forms.ACTIONS is built from this module: import it late

    name, required = spec.posted, spec.required
    if spec.none_flag is not None and F.flag(form, spec.none_flag[0]):
        return None
    if typing.get_origin(hint) is tuple:
        raw = form.get(name, [])
        if isinstance(raw, list):
            items = tuple(F.many(form, name))
        else:
            items = F.names(form, name) if F.text(form, name, required=False, limit=4000) else ()
        if required and not items:
            raise F.FormError(name, WebErrorCode.FIELD_REQUIRED)
        return items
    if hint is datetime:
        moment = F.moment(form, name, required=required)
        return F.must(moment, name) if required else moment
    if hint is date:
        return F.day_of(form, name) if required or F.text(form, name, required=False) else None
    if hint is bool:
        return F.flag(form, name)
    if hint is int:
        if not required and not F.text(form, name, required=False, limit=12):
            return None
        return F.integer(form, name)
    value = F.text(form, name, required=required, limit=spec.limit)
    return None if optional and not value else value


def build(d: Decision, form: Form, actor: str) -> Command:
    """The command a posted form of ``d`` asks for; a bad field is named by its label."""
    values: dict[str, Any] = {}
    for spec, hint, optional in field_specs(d):
        try:
            value = _value(form, spec, hint, optional)
        except WebError as exc:
            raise WebError(exc.code, field=str(exc.fields.get("field", spec.posted)),
                           detail=spec.label) from exc
        if value is not None or optional:
            values[spec.name] = value
    return d.command(actor=actor, **values)


class WithDeclared(Mapping[str, Builder]):
    """The page's own builders, then (a live view) every declared decision's: a decision
    declared after import is found too."""

    def __init__(self, own: Mapping[str, Builder]) -> None:
        self.own = own

    def __getitem__(self, name: str) -> Builder:
        if name in self.own:
            return self.own[name]
        d = DECISIONS[name]
        return lambda form, actor, state: build(d, form, actor)

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self.own), **dict.fromkeys(DECISIONS)})

    def __len__(self) -> int:
        return len(set(self.own) | set(DECISIONS))
