"""What the tests and the benchmarks share: the XSTest set, the catalog's categories, Chromium."""

from __future__ import annotations

import csv
import shutil
from functools import cache
from pathlib import Path

XSTEST_CSV = (
    Path(__file__).resolve().parent / "data" / "xstest" / "xstest_v2_completions_llama2new.csv"
)
"""The XSTest development set (vendored, CC BY 4.0): 450 human-labelled completions of one model."""


@cache
def xstest_rows() -> tuple[dict[str, str], ...]:
    """The rows of the XSTest development set as the CSV has them (prompt included)."""
    with XSTEST_CSV.open(encoding="utf-8", newline="") as handle:
        return tuple(csv.DictReader(handle))


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

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium, which the browser tests and the HTML benchmark drive headless."""


def find_chromium() -> Path | None:
    """Debian's Chromium if installed, else the first ``chromium`` on PATH, else ``None``."""
    if CHROMIUM.exists():
        return CHROMIUM
    found = shutil.which("chromium")
    return Path(found) if found else None


CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these, Chromium keeps opening connections that a closed network refuses.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

VERDICT_CORPUS = Path(__file__).resolve().parent / "data" / "verdicts" / "corpus.jsonl"
"""The project's own labelled responses for the intent reading (kept apart from XSTest)."""
