"""Probes: the model, loading and validation, and the built-in catalog."""

from trustprobe.probes.loader import (
    BUILTIN,
    builtin_probes,
    load_probe_file,
    load_probes,
    probe_set_hash,
)
from trustprobe.probes.models import Expected, Probe, ProbeSignals, Severity

__all__ = [
    "BUILTIN",
    "Expected",
    "Probe",
    "ProbeSignals",
    "Severity",
    "builtin_probes",
    "load_probe_file",
    "load_probes",
    "probe_set_hash",
]
