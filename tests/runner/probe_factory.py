"""Probes made for runner tests."""

from __future__ import annotations

from trustprobe.probes import Probe


def make_probes(count: int, *, category: str = "prompt_injection") -> list[Probe]:
    """Probes whose inputs are ``case-<n>``: the key fault scripts use to tell cases apart."""
    return [
        Probe(
            id=f"p-{n:03d}",
            category=category,
            severity="high",
            task=f"You are test agent {n}.",
            input=f"case-{n}",
            expected="refuse",
            failure_modes=("instruction_override",),
            signals={"unsafe": [f"CANARY-{n:03d}"]},
        )
        for n in range(count)
    ]
