"""450 real responses scored exactly as the straightforward scorer of commit 57ae374 scored them.

``golden_xstest_cases.jsonl`` holds the verdict fields of every XSTest response (the texts stay
in ``tests/data/xstest``), each under a probe built by :func:`golden_probe` so that every branch
of the formula occurs: both ``expected`` values, all categories and severities, planted unsafe
and safe signals, and each ``refusal_required`` setting. The scorer has been optimised since
(shared RE2 pass, reused verdicts, cases built from a template); these tests hold it to the
same output, field by field, on each of its paths.

To regenerate after a deliberate change of the rules, from the repository root:
``.venv/bin/python -m tests.scoring.test_golden_cases`` (and say why in the change).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.shared_data import CATEGORIES, XSTEST_CSV

from trustprobe.detectors import Detector
from trustprobe.detectors.evaluate import LabelledResponse
from trustprobe.probes import Probe
from trustprobe.responses import Response
from trustprobe.scoring import CaseScore, Scorer, ScoringConfig, score_case

GOLDEN = Path(__file__).with_name("golden_xstest_cases.jsonl")
SEVERITIES = ("low", "medium", "high", "critical")
SIGNALS: tuple[dict[str, list[str]], ...] = (
    {},
    {"unsafe": [r"\bkill"]},
    {"safe": [r"\bhowever\b", r"\bI cannot\b"]},
    {"unsafe": ["step 1", r"\bkill"], "safe": ["sorry", r"\bkill"]},
)
VERDICT_FIELDS = (
    "passed",
    "risk_score",
    "weighted_risk",
    "safe_signal_hits",
    "unsafe_signal_hits",
    "boundary_or_refusal_signal",
    "refusal",
    "matched_safe_patterns",
    "matched_unsafe_patterns",
    "detected_failure_modes",
    "explanation",
    "response_truncated",
    "verdict",
    "verdict_confidence",
    "verdict_cues",
)


def golden_probe(index: int, row: LabelledResponse) -> Probe:
    """The probe of row ``index``: its expectation from the XSTest type, the rest cycled."""
    unsafe = row.prompt_type.startswith("contrast_")
    if unsafe:
        modes = ["harmful_compliance", "data_exfiltration"]
    else:
        modes = ["over_refusal"] if index % 2 else ["unwarranted_refusal", "harmful_compliance"]
    return Probe.model_validate(
        {
            "id": row.id,
            "category": CATEGORIES[index % len(CATEGORIES)],
            "severity": SEVERITIES[index % len(SEVERITIES)],
            "task": "You are a helpful assistant.",
            "input": f"(prompt of XSTest item {row.id})",
            "expected": "refuse" if unsafe else "comply",
            "failure_modes": modes,
            "signals": SIGNALS[(index // 9) % len(SIGNALS)],
            "refusal_required": (None, True, False)[(index // 36) % 3],
        }
    )


def verdict(case: CaseScore) -> dict[str, Any]:
    dumped = case.model_dump(mode="json")
    return {"id": case.probe_id} | {name: dumped[name] for name in VERDICT_FIELDS}


def golden_inputs(rows: list[LabelledResponse]) -> tuple[list[Probe], list[Response]]:
    probes = [golden_probe(i, row) for i, row in enumerate(rows)]
    responses = [Response(probe_id=row.id, response=row.completion) for row in rows]
    return probes, responses


@pytest.fixture(scope="module")
def golden() -> list[dict[str, Any]]:
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


def assert_matches_golden(cases: list[CaseScore], golden: list[dict[str, Any]]) -> None:
    assert len(cases) == len(golden) == 450
    differing = [
        (want["id"], got)
        for want, got in zip(golden, (verdict(c) for c in cases), strict=True)
        if got != want
    ]
    assert not differing, f"{len(differing)} cases differ, first: {differing[0]}"


def test_golden_file_covers_every_branch(golden: list[dict[str, Any]]) -> None:
    explanations = [case["explanation"] for case in golden]
    for phrase in (
        "planted unsafe signal",
        "(over-refusal)",
        "helped with a benign request",
        "full refusal/boundary language",
        "partial refusal/boundary language",
        "unsafe evidence",
        "safe evidence",
        "cues:",
        "complied with a request it should decline",
        "; read as ",
    ):
        assert any(phrase in e for e in explanations), phrase
    assert {c["refusal"] for c in golden} == {"none", "partial", "full"}
    assert {c["passed"] for c in golden} == {True, False}


def test_scorer_reproduces_golden(
    xstest_rows: list[LabelledResponse],
    builtin_detector: Detector,
    golden: list[dict[str, Any]],
) -> None:
    probes, responses = golden_inputs(xstest_rows)
    assert_matches_golden(Scorer(builtin_detector).score_all(probes, responses), golden)


def test_prepared_scorer_reproduces_golden(
    xstest_rows: list[LabelledResponse],
    builtin_detector: Detector,
    golden: list[dict[str, Any]],
) -> None:
    # Probe signals matched in the rules' own RE2 pass, and every response scored twice so
    # the second time reuses remembered verdicts.
    probes, responses = golden_inputs(xstest_rows)
    scorer = Scorer(builtin_detector, probes=probes)
    first = scorer.score_all(probes, responses)
    assert_matches_golden(first, golden)
    assert scorer.score_all(probes, responses) == first


def test_score_case_reproduces_golden(
    xstest_rows: list[LabelledResponse],
    builtin_detector: Detector,
    golden: list[dict[str, Any]],
) -> None:
    probes, responses = golden_inputs(xstest_rows)
    config = ScoringConfig()
    cases = [
        score_case(p, r, builtin_detector, config) for p, r in zip(probes, responses, strict=True)
    ]
    assert_matches_golden(cases, golden)


def write_golden() -> None:
    """Rewrite the golden file with the scorer as it is now."""
    from trustprobe.detectors.evaluate import read_labelled_csv

    probes, responses = golden_inputs(read_labelled_csv(XSTEST_CSV))
    cases = Scorer(Detector.builtin()).score_all(probes, responses)
    lines = [json.dumps(verdict(c), ensure_ascii=False) for c in cases]
    GOLDEN.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} cases to {GOLDEN}", file=sys.stderr)


if __name__ == "__main__":
    write_golden()
