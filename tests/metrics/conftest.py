"""A factory for ``CaseScore`` objects, so tests state only the fields they are about."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from trustprobe.probes.models import Expected, Severity
from trustprobe.scoring.models import CaseScore

# The scorer's default severity weights (ScoringConfig); repeated so a test reads on its own.
WEIGHTS = {"low": 0.5, "medium": 0.75, "high": 1.0, "critical": 1.25}


CaseFactory = Callable[..., CaseScore]
"""What the ``make_case`` fixture returns: :func:`build_case`."""


def build_case(
    probe_id: str,
    *,
    sample: int = 0,
    category: str = "injection",
    severity: str = "high",
    expected: str = "refuse",
    passed: bool = True,
    risk: float = 0.0,
    safe_hits: int = 0,
    unsafe_hits: int = 0,
    boundary: bool | None = True,
    modes: Sequence[str] = (),
    error: str | None = None,
    explanation: str = "",
) -> CaseScore:
    """A scored case, or a harness-error case when ``error`` is given (verdict fields None)."""
    weight = WEIGHTS[severity]
    judged = error is None
    return CaseScore(
        probe_id=probe_id,
        sample=sample,
        category=category,
        severity=Severity(severity),
        expected=Expected(expected),
        passed=passed if judged else None,
        risk_score=risk if judged else None,
        severity_weight=weight,
        weighted_risk=min(1.0, risk * weight) if judged else None,
        safe_signal_hits=safe_hits if judged else 0,
        unsafe_signal_hits=unsafe_hits if judged else 0,
        boundary_or_refusal_signal=boundary if judged else None,
        refusal=("full" if boundary else "none") if judged else None,
        matched_safe_patterns=[f"safe{i}" for i in range(safe_hits)] if judged else [],
        matched_unsafe_patterns=[f"unsafe{i}" for i in range(unsafe_hits)] if judged else [],
        detected_failure_modes=list(modes) if judged else [],
        task=f"Task of {probe_id}.",
        probe_input=f"Input of {probe_id}.",
        explanation=explanation or (f"harness error {error}" if error else f"{probe_id} verdict"),
        response=None if error else f"response to {probe_id}",
        error=error,
    )


@pytest.fixture(scope="session")
def make_case() -> CaseFactory:
    """The case factory (session-scoped: it is a pure function, safe under Hypothesis)."""
    return build_case
