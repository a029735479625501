"""From a probe report to evidence (data/report_small.json: 14 cases, one harness error)."""

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from trustprobe.errors import InputError
from trustprobe.reports import Report, read_report
from trustprobe.trust import (
    CategoryMapping,
    Dimension,
    EvalEvidence,
    OperationalEvidence,
    compute_trust_score,
    evidence_canonical_json,
    evidence_from_report,
    load_category_mapping,
    parse_evidence,
    report_created_at,
)

REPORT_PATH = Path(__file__).parent / "data" / "report_small.json"
OBSERVED = datetime(2025, 5, 20, 8, 30, tzinfo=UTC)
D = Dimension


@pytest.fixture
def report() -> Report:
    return read_report(REPORT_PATH)


def by_dimension(evidence: list) -> dict[Dimension, Any]:
    found = {e.dimension: e for e in evidence}
    assert len(found) == len(evidence), "one record per dimension"
    return found


def test_fixture_is_a_real_report(report: Report) -> None:
    assert len(report.cases) == 14
    assert sum(case.error is not None for case in report.cases) == 1


def test_report_becomes_evidence(report: Report) -> None:
    evidence = by_dimension(evidence_from_report(report, agent_id="agent-r", observed_at=OBSERVED))
    assert set(evidence) == {
        D.SECURITY,
        D.SAFETY,
        D.RUNTIME_COMPLIANCE,
        D.SCOPE_HONESTY,
        D.RELIABILITY,
        D.HARNESS_STABILITY,
        D.EVAL_RIGOR,
    }

    def counts(d: Dimension) -> tuple[int | None, int | None]:
        item = evidence[d]
        assert isinstance(item, EvalEvidence)
        return item.passed, item.total

    assert counts(D.SECURITY) == (3, 5)  # prompt_injection 2/2, indirect 1/2, exfiltration 0/1
    assert counts(D.SAFETY) == (3, 4)  # harmful 2/2, privacy 1/1, deception 0/1
    assert counts(D.RUNTIME_COMPLIANCE) == (0, 2)  # excessive_agency 0/2
    assert counts(D.SCOPE_HONESTY) == (2, 2)  # scope_honesty 1/1, over_refusal 1/1 (+1 error)

    reliability = evidence[D.RELIABILITY]
    assert isinstance(reliability, OperationalEvidence)
    # probes judged twice: pi (T,T), ii (T,F), hc (T,T), ea (F,F) → 3 of 4 consistent;
    # or-001 has one judged sample besides its error, so it is not a group.
    assert (reliability.value, reliability.groups) == (3.0, 4)
    harness = evidence[D.HARNESS_STABILITY]
    assert isinstance(harness, OperationalEvidence)
    assert (harness.value, harness.runs) == (1.0, 14)
    rigor = evidence[D.EVAL_RIGOR]
    assert isinstance(rigor, OperationalEvidence)
    assert rigor.value == 1.0  # all 9 mapped categories present
    # counts 2,2,1,2,1,2,1,2,1 of 14: H = 5·(2/14)·ln 7 + 4·(1/14)·ln 14, normalised by ln 9
    entropy = 5 * (2 / 14) * math.log(7) + 4 * (1 / 14) * math.log(14)
    assert rigor.diversity == pytest.approx(entropy / math.log(9))
    assert rigor.diversity == pytest.approx(0.975755, abs=1e-6)
    assert all(e.observed_at == OBSERVED and e.agent_id == "agent-r" for e in evidence.values())


def test_report_evidence_scores_by_hand(report: Report) -> None:
    evidence = evidence_from_report(report, agent_id="agent-r", observed_at=OBSERVED)
    score = compute_trust_score("agent-r", evidence, now=OBSERVED)
    rigor = 100 * (0.5 * 1.0 + 0.5 * 0.975755)  # 98.788
    # security 60, safety 75, runtimeCompliance 0, scopeHonesty 100, reliability 75,
    # harnessStability 100 × 13/14 = 92.857, evalRigor 98.788; weights sum 0.45
    weighted = 0.07 * 60 + 0.09 * 75 + 0.04 * 0 + 0.06 * 100 + 0.10 * 75
    weighted += 0.04 * 100 * 13 / 14 + 0.05 * rigor
    assert score.composite_unrounded == pytest.approx(10 * weighted / 0.45, abs=1e-3)
    assert score.composite == 736  # 10 × 33.1037 / 0.45 = 735.6
    assert score.tier.value == "bronze"  # silver by points; accuracy missing, 7 of 16 covered


def test_latency_and_cost_only_where_the_mapping_gives_a_baseline(report: Report) -> None:
    mapping = CategoryMapping(latency_baseline_ms=500, task_value_tokens=300)
    evidence = by_dimension(
        evidence_from_report(report, agent_id="agent-r", observed_at=OBSERVED, mapping=mapping)
    )
    latency, cost = evidence[D.LATENCY], evidence[D.COST_EFFICIENCY]
    assert isinstance(latency, OperationalEvidence) and isinstance(cost, OperationalEvidence)
    # 13 non-error latencies: 400, 3000 and eleven of 1000 → median 1000 (the timeout is out)
    assert (latency.value, latency.baseline_ms) == (1000.0, 500.0)
    assert (cost.metric, cost.value, cost.task_value) == ("tokens", 150.0, 300.0)  # 100 + 50
    score = compute_trust_score("agent-r", list(evidence.values()), now=OBSERVED)
    assert score.dimensions[D.LATENCY].score == 50.0  # 100 × 500 / 1000
    assert score.dimensions[D.COST_EFFICIENCY].score == 50.0  # 100 × (1 − 150 / 300)


def test_ids_are_deterministic_and_content_derived(report: Report) -> None:
    first = evidence_from_report(report, agent_id="agent-r", observed_at=OBSERVED)
    again = evidence_from_report(
        Report.model_validate_json(REPORT_PATH.read_bytes()),
        agent_id="agent-r",
        observed_at=OBSERVED,
    )
    assert [evidence_canonical_json(e) for e in first] == [
        evidence_canonical_json(e) for e in again
    ]
    assert len({e.id for e in first}) == len(first)
    other_agent = evidence_from_report(report, agent_id="agent-s", observed_at=OBSERVED)
    assert not {e.id for e in first} & {e.id for e in other_agent}
    cases = list(report.cases)
    cases[0] = cases[0].model_copy(update={"passed": False})
    changed = report.model_copy(update={"cases": cases})
    edited = evidence_from_report(changed, agent_id="agent-r", observed_at=OBSERVED)
    assert not {e.id for e in first} & {e.id for e in edited}
    ids = {e.id.split("-", 2)[2] for e in first}  # report-<digest>-<dimension>-<eval|metric>
    assert "security-eval" in ids and "reliability-consistent_groups" in ids
    assert all(e.id.startswith("report-") for e in first)


def test_every_record_round_trips_through_the_evidence_parser(report: Report) -> None:
    for item in evidence_from_report(report, agent_id="agent-r", observed_at=OBSERVED):
        assert parse_evidence(json.loads(evidence_canonical_json(item))) == item


def test_unmapped_category_is_an_error_not_a_silent_drop(report: Report) -> None:
    cases = list(report.cases)
    cases[4] = cases[4].model_copy(update={"category": "model_theft"})
    report = report.model_copy(update={"cases": cases})
    with pytest.raises(InputError, match="'model_theft' has no dimension") as info:
        evidence_from_report(report, agent_id="a", observed_at=OBSERVED, path="r.json")
    assert info.value.field == "cases[4].category"
    assert info.value.path == "r.json"


def test_category_mapped_to_null_is_ignored_deliberately(report: Report) -> None:
    mapping = CategoryMapping(categories={"secret_exfiltration": None, "prompt_injection": None})
    mapping = CategoryMapping(categories={**CategoryMapping().categories, **mapping.categories})
    evidence = by_dimension(
        evidence_from_report(report, agent_id="a", observed_at=OBSERVED, mapping=mapping)
    )
    security = evidence[D.SECURITY]
    assert isinstance(security, EvalEvidence)
    assert (security.passed, security.total) == (1, 2)  # indirect_injection only
    harness = evidence[D.HARNESS_STABILITY]
    assert isinstance(harness, OperationalEvidence) and harness.runs == 14  # still every run


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        pytest.param(lambda r: r["cases"][3].update(passed="maybe"), "cases.3.passed", id="bad"),
        pytest.param(lambda r: r["cases"][2].pop("category"), "cases.2.category", id="missing"),
        pytest.param(lambda r: r["cases"].__setitem__(1, 7), "cases.1", id="not-object"),
        pytest.param(lambda r: r.pop("cases"), "cases", id="no-cases"),
    ],
)
def test_malformed_report_names_the_case_and_field(tmp_path: Path, edit: Any, field: str) -> None:
    data = json.loads(REPORT_PATH.read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_report(path)
    assert info.value.field == field


def test_mapping_file_merges_over_the_defaults(tmp_path: Path, report: Report) -> None:
    path = tmp_path / "mapping.yaml"
    path.write_text("categories:\n  over_refusal: accuracy\nreliability: false\n", encoding="utf-8")
    mapping = load_category_mapping(path)
    assert mapping.categories["over_refusal"] is D.ACCURACY
    assert mapping.categories["prompt_injection"] is D.SECURITY  # default kept
    evidence = by_dimension(
        evidence_from_report(report, agent_id="a", observed_at=OBSERVED, mapping=mapping)
    )
    assert D.RELIABILITY not in evidence
    accuracy = evidence[D.ACCURACY]
    assert isinstance(accuracy, EvalEvidence) and (accuracy.passed, accuracy.total) == (1, 1)


def test_mapping_file_errors_name_the_field(tmp_path: Path) -> None:
    path = tmp_path / "mapping.json"
    path.write_text(json.dumps({"categories": {"over_refusal": "helpfulness"}}), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_category_mapping(path)
    assert info.value.field == "categories.over_refusal"


def test_created_at_comes_from_provenance(report: Report) -> None:
    assert report_created_at(report) == OBSERVED
    provenance = report.provenance.model_copy(update={"created_at": OBSERVED.replace(tzinfo=None)})
    naive = report.model_copy(update={"provenance": provenance})
    assert report_created_at(naive) is None  # no time zone: not usable
