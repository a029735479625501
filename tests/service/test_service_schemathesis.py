"""Schemathesis drives every operation of the OpenAPI schema and checks every answer against it.

Cases are generated (a bounded number per operation), and each answer must be no server error,
have a status code the operation documents, and a body and content type that match the
documented schema for that status.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.service.conftest import Clock, Keys, bearer
from tests.service.live import serve
from trustprobe.service import ServiceSettings
from trustprobe.store import TrustStore

EXAMPLES_PER_OPERATION = 40
# Evidence has rules across fields (an operational record needs its metric, a date must not be
# in the future) that JSON Schema does not state, so schema-valid bodies may rightly get 422:
# every other check of schemathesis runs.


@pytest.fixture(scope="module")
def base_url(store: TrustStore, clock: Clock) -> Iterator[str]:
    # A generous rate limit: this module tests the schema, test_service_flow the limiter.
    generous = ServiceSettings(
        rate_limit_per_second=10_000,
        rate_limit_burst=10_000,
        anonymous_rate_limit_per_second=10_000,
        anonymous_rate_limit_burst=10_000,
    )
    with serve(store, generous) as url:
        yield url


def _exercise(operation: schemathesis.APIOperation, base_url: str, key: str) -> set[int]:
    statuses: set[int] = set()

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        derandomize=True,
        database=None,
        # A shared 2-core machine makes generation look slow; correctness is what is checked.
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(case=operation.as_strategy())
    def exercise(case: schemathesis.Case) -> None:
        response = case.call_and_validate(
            base_url=base_url, headers=bearer(key), excluded_checks=[positive_data_acceptance]
        )
        statuses.add(response.status_code)

    exercise()
    return statuses


# Schemathesis' own pytest plugin does not run under this pytest, so its strategies are driven
# through Hypothesis directly, one operation at a time.
def test_every_answer_matches_the_documented_schema(base_url: str, keys: Keys) -> None:
    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 10  # the eight /v1 operations, /healthz and /readyz
    calls = {op.label: _exercise(op, base_url, keys.all) for op in operations}
    # Every operation was really exercised and got past authentication.
    assert all(statuses - {401, 403} for statuses in calls.values()), calls
