"""From a run's gate checks to the process's exit code: the library reports, the CLI exits."""

from __future__ import annotations

from trustprobe.errors import ExitCode
from trustprobe.reports import Gate, GateCheckName

GATE_EXIT_CODES: dict[GateCheckName, ExitCode] = {
    GateCheckName.FAIL_UNDER: ExitCode.GATE_FAILED,
    GateCheckName.MAX_HARNESS_ERROR_SHARE: ExitCode.TARGET_UNREACHABLE,
}
"""The exit code of each failed gate check."""


def run_exit_code(gate: Gate | None, *, interrupted: bool = False) -> ExitCode:
    """130 for an interrupted run, else the code of the gravest failed check (3 before 1)."""
    if interrupted:
        return ExitCode.INTERRUPTED
    failed = {c.name for c in gate.checks if not c.passed} if gate is not None else set()
    codes = sorted((GATE_EXIT_CODES[name] for name in failed), key=lambda code: -code.value)
    return codes[0] if codes else ExitCode.OK
