"""Fuzzing the whole OpenAPI (issue 16): schemathesis as an anonymous visitor, a resident
and the Procurator of a running game «g» (2 cities × 6).

Every generated request must give no server error, a status the OpenAPI documents, a
body matching the documented schema and the documented content type. ``make test`` runs
a bounded pass (``LEPROMAFIA_FUZZ_EXAMPLES``, default 2 per operation and identity);
``make fuzz`` a long one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.web.conftest import Api, make_api, setup_game_via_api, small_cast

CAST = small_cast()
CITY = next(iter(CAST.cities))
IDENTITIES = {"anonymous": None, "resident": CAST.cities[CITY][1], "procurator": CAST.procurator}
EXAMPLES = int(os.environ.get("LEPROMAFIA_FUZZ_EXAMPLES", "2"))
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance,
          content_type_conformance]


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(tmp_path_factory.mktemp("fuzz")):
        setup_game_via_api(api, "g", CAST)
        yield api


@pytest.fixture(scope="module")
def openapi(fuzzed: Api) -> Any:
    return schemathesis.openapi.from_dict(fuzzed.client.app.openapi())  # type: ignore[attr-defined]


def send(case: Any, identity: str, api: Api) -> None:
    """One generated request as ``identity``, validated against the OpenAPI."""
    if "game_id" in (case.path_parameters or {}):
        case.path_parameters["game_id"] = "g"
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    headers = dict(kwargs.pop("headers", None) or {})
    user = IDENTITIES[identity]
    if user:
        headers["authorization"] = f"Bearer {api.tokens[user]}"
    api.client.cookies.clear()
    try:
        request = api.client.build_request(headers=headers, **kwargs)
        request.read()  # a multipart body stays readable for the failure report
    except (TypeError, AttributeError, ValueError):
        return  # a body httpx itself cannot encode (e.g. a number as a file): no request
    response = api.client.send(request)
    case.validate_response(response, checks=CHECKS)


def fuzz(openapi: Any, identity: str, api: Api, examples: int = EXAMPLES) -> list[str]:
    """Every operation, ``examples`` generated cases each; the distinct failures."""
    failures: dict[str, str] = {}
    for result in openapi.get_all_operations():
        operation = result.ok()

        @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                  phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def one(case: Any) -> None:
            try:
                send(case, identity, api)
            except Exception as exc:  # a schemathesis failure group: keep it, go on
                op = case.operation
                key = f"{op.method.upper()} {op.path}: {type(exc).__name__}"
                failures.setdefault(key, str(exc)[:600])

        one()
    return [f"{k}\n{v}" for k, v in sorted(failures.items())]


@pytest.mark.parametrize("identity", list(IDENTITIES))
def test_every_operation_answers_as_documented(openapi: Any, fuzzed: Api, identity: str) -> None:
    """0 server errors, 0 schema violations, 0 undocumented statuses, for each identity."""
    failures = fuzz(openapi, identity, fuzzed)
    assert not failures, "\n\n".join(failures)
