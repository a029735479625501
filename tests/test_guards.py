"""The skip-or-fail rule and the markers of tests that need real services."""

from __future__ import annotations

import pytest

from tests.guards import under_ci


@pytest.mark.parametrize("value", ["true", "1", "yes", "TRUE", "on", "gitlab"])
def test_any_truthy_ci_counts(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    assert under_ci()


@pytest.mark.parametrize("value", ["", "0", "false", "False", "no", "off"])
def test_unset_or_false_ci_does_not(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    assert not under_ci()


def test_ci_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert not under_ci()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_postgresql_parameter_marks_the_test(request: pytest.FixtureRequest, backend: str) -> None:
    marked = request.node.get_closest_marker("postgres") is not None
    assert marked == (backend == "postgresql")
