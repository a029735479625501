"""Quality gates on a run's metrics: figure, threshold, verdict, and the exit code they imply."""

from __future__ import annotations

from trustprobe.metrics import RunMetrics
from trustprobe.reports.models import Gate, GateCheck, GateCheckName

DEFAULT_MAX_HARNESS_ERROR_SHARE = 0.5
"""Share of a scan's cases that may end in a harness error before it exits 3: past half, the
report says more about the harness and the deployment than about the agent."""


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def pass_rate_check(metrics: RunMetrics, fail_under: float) -> GateCheck:
    """``--fail-under``: the pass rate must reach ``fail_under``; no scored case never does."""
    rate = metrics.overall.pass_rate
    passed = rate is not None and rate >= fail_under
    if rate is None:
        reason = "no case was scored, so the pass rate cannot meet --fail-under"
    else:
        relation = "meets" if passed else "is below"
        reason = f"pass rate {_percent(rate)} {relation} --fail-under {_percent(fail_under)}"
    return GateCheck(
        name=GateCheckName.FAIL_UNDER,
        figure="pass_rate",
        value=rate,
        threshold=fail_under,
        passed=passed,
        reason=reason,
    )


def harness_error_check(metrics: RunMetrics, max_share: float, *, hint: str) -> GateCheck:
    """Some case must reach the agent, and harness errors may be at most ``max_share`` of all.

    ``hint`` says what the errors were and what to check (see the runner's diagnosis); it is
    added to the reason when the check fails.
    """
    counts = metrics.counts
    share = counts.harness_errors / counts.cases if counts.cases else None
    if counts.cases and counts.scored_cases == 0:
        passed, reason = False, f"no case reached the agent: {hint}"
    elif share is not None and share > max_share:
        passed = False
        reason = (
            f"harness errors on {_percent(share)} of cases exceed --max-harness-error-share "
            f"{_percent(max_share)}: {hint}"
        )
    else:
        passed = True
        reason = (
            f"harness errors on {_percent(share)} of cases, within --max-harness-error-share "
            f"{_percent(max_share)}"
        )
    return GateCheck(
        name=GateCheckName.MAX_HARNESS_ERROR_SHARE,
        figure="harness_error_share",
        value=share,
        threshold=max_share,
        passed=passed,
        reason=reason,
    )


def run_gate(
    metrics: RunMetrics,
    *,
    fail_under: float | None = None,
    max_harness_error_share: float | None = None,
    harness_hint: str = "",
) -> Gate | None:
    """The gates asked for (harness errors first, then the pass rate); ``None`` when none was."""
    checks: list[GateCheck] = []
    if max_harness_error_share is not None:
        checks.append(harness_error_check(metrics, max_harness_error_share, hint=harness_hint))
    if fail_under is not None:
        checks.append(pass_rate_check(metrics, fail_under))
    return Gate(passed=all(c.passed for c in checks), checks=checks) if checks else None
