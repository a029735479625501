"""Probes: the model, loading and validation, and the built-in catalog."""

from trustprobe.probes.loader import (
    BUILTIN,
    builtin_probes,
    load_probe_file,
    load_probes,
    probe_set_hash,
)
from trustprobe.probes.models import Expected, Probe, ProbeSignals, Severity
from trustprobe.probes.tools import (
    NEUTRAL_RESULT,
    CallPattern,
    ToolFunction,
    ToolOutcome,
    ToolResultRule,
    ToolScript,
    call_problem,
    call_text,
    tool_outcome,
)

__all__ = [
    "BUILTIN",
    "CallPattern",
    "Expected",
    "NEUTRAL_RESULT",
    "Probe",
    "ProbeSignals",
    "Severity",
    "ToolFunction",
    "ToolOutcome",
    "ToolResultRule",
    "ToolScript",
    "builtin_probes",
    "call_problem",
    "call_text",
    "load_probe_file",
    "load_probes",
    "probe_set_hash",
    "tool_outcome",
]
