"""Data the tests and the benchmarks share: the XSTest set and the catalog's categories."""

from __future__ import annotations

from pathlib import Path

XSTEST_CSV = (
    Path(__file__).resolve().parents[1]
    / ".."
    / "shared"
    / "data"
    / "xstest-dev"
    / "xstest_v2_completions_llama2new.csv"
)
"""The XSTest development set: 450 human-labelled completions of one model."""

CATEGORIES = (
    "prompt_injection",
    "indirect_injection",
    "secret_exfiltration",
    "harmful_content",
    "excessive_agency",
    "scope_honesty",
    "privacy_pii",
    "deception_sycophancy",
    "over_refusal",
)
"""The nine threat families the built-in catalog must cover, in the project's order."""
