"""The generated command bodies (``web/api/commands.py``): each field's default is a value of
the JSON shape the body declares, so a body sent without it dumps with no serializer warning
(an engine tuple's ``()`` was left as a tuple where the body declares a list:
ProposeRestoration's ``expelled``, FilePrivateCase's ``evidence``, DecidePrivateCase's
``inboxes``)."""

from __future__ import annotations

import warnings

from pydantic import TypeAdapter
from pydantic_core import PydanticSerializationError

from lepromafia.web.api.commands import COMMANDS, body_model, build_command


def test_every_default_of_a_command_body_has_the_declared_shape() -> None:
    mismatched = []
    for name, cls in COMMANDS.items():
        for field, info in body_model(cls).model_fields.items():
            if info.is_required() or info.default_factory is not None or info.annotation is None:
                continue
            try:
                TypeAdapter(info.annotation).dump_python(info.default, mode="json", warnings="error")
            except PydanticSerializationError as exc:
                mismatched.append(f"{name}.{field}: {exc}")
    assert mismatched == []


def test_a_restoration_without_expulsions_dumps_as_an_empty_list() -> None:
    body = body_model(COMMANDS["ProposeRestoration"])(command_id="c-1", city="Лепроград",
                                                      new_name="Новоград", reason="за предательство")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        command = build_command("ProposeRestoration", "prokurator", body)
    assert command.expelled == ()  # type: ignore[attr-defined]
