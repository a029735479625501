"""Schemathesis drives every operation of the OpenAPI schema; none may answer 5xx."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from tests.service.conftest import Clock, Keys, bearer
from tests.service.live import serve
from trustprobe.service import ServiceSettings
from trustprobe.store import TrustStore

EXAMPLES_PER_OPERATION = 6


@pytest.fixture(scope="module")
def base_url(store: TrustStore, clock: Clock) -> Iterator[str]:
    # A generous rate limit: this module tests the schema, test_service_flow the limiter.
    generous = ServiceSettings(rate_limit_per_second=10_000, rate_limit_burst=10_000)
    with serve(store, generous) as url:
        yield url


def _exercise(operation: schemathesis.APIOperation, base_url: str, key: str) -> set[int]:
    statuses: set[int] = set()

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def exercise(case: schemathesis.Case) -> None:
        response = case.call(base_url=base_url, headers=bearer(key))
        statuses.add(response.status_code)
        assert response.status_code < 500, (case.method, case.formatted_path, response.text)

    exercise()
    return statuses


# Schemathesis' own pytest plugin does not run under this pytest, so its strategies are driven
# through Hypothesis directly, one operation at a time.
def test_no_operation_answers_a_server_error(base_url: str, keys: Keys) -> None:
    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 8
    calls = {op.label: _exercise(op, base_url, keys.all) for op in operations}
    # Every operation was really exercised and got past authentication.
    assert all(statuses - {401, 403} for statuses in calls.values()), calls
