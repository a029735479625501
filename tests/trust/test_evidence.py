import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.errors import InputError
from trustprobe.trust import (
    EvalEvidence,
    Evidence,
    JuryEvidence,
    OperationalEvidence,
    evidence_canonical_json,
    load_evidence,
    parse_evidence,
)

BASE = {"id": "ev-1", "agent_id": "agent-a", "observed_at": "2025-05-01T10:00:00Z"}


def record(**fields: Any) -> dict[str, Any]:
    return {**BASE, **fields}


VALID = [
    pytest.param(
        record(dimension="accuracy", kind="eval", score=87.5), EvalEvidence, id="eval-score"
    ),
    pytest.param(
        record(dimension="safety", kind="eval", passed=18, total=20), EvalEvidence, id="eval-counts"
    ),
    pytest.param(
        record(dimension="teamwork", kind="jury", scores=[70, 80]), JuryEvidence, id="jury"
    ),
    pytest.param(
        record(
            dimension="latency", kind="operational", metric="latency_ms", value=900, baseline_ms=600
        ),
        OperationalEvidence,
        id="latency",
    ),
    pytest.param(
        record(
            dimension="costEfficiency", kind="operational", metric="cost", value=0.2, task_value=1
        ),
        OperationalEvidence,
        id="cost",
    ),
    pytest.param(
        record(dimension="bond", kind="operational", metric="stake", value=50, reference_stake=100),
        OperationalEvidence,
        id="bond",
    ),
    pytest.param(
        record(
            dimension="evalRigor", kind="operational", metric="coverage", value=0.5, diversity=0.7
        ),
        OperationalEvidence,
        id="eval-rigor",
    ),
    pytest.param(
        record(
            dimension="modelCompliance",
            kind="operational",
            metric="violations",
            value=1,
            actions=50,
        ),
        OperationalEvidence,
        id="model-compliance",
    ),
    pytest.param(
        record(
            dimension="harnessStability",
            kind="operational",
            metric="harness_errors",
            value=2,
            runs=40,
        ),
        OperationalEvidence,
        id="harness",
    ),
    pytest.param(
        record(
            dimension="reliability",
            kind="operational",
            metric="consistent_groups",
            value=9,
            groups=10,
        ),
        OperationalEvidence,
        id="reliability",
    ),
    pytest.param(
        record(
            dimension="teamwork",
            kind="operational",
            metric="successful_collaborations",
            value=3,
            collaborations=4,
        ),
        OperationalEvidence,
        id="teamwork",
    ),
]


@pytest.mark.parametrize(("data", "model"), VALID)
def test_valid_records_parse(data: dict[str, Any], model: type) -> None:
    assert isinstance(parse_evidence(data), model)


INVALID = [
    pytest.param(
        record(dimension="accuracy", score=50), "kind", "required field is missing", id="no-kind"
    ),
    pytest.param(
        record(dimension="accuracy", kind="vote", score=50), "kind", "must be one of", id="bad-kind"
    ),
    pytest.param(
        record(dimension="honesty", kind="eval", score=50),
        "dimension",
        "Input should be",
        id="bad-dimension",
    ),
    pytest.param(
        record(dimension="accuracy", kind="eval", score=101),
        "score",
        "less than or equal to 100",
        id="score-over-100",
    ),
    pytest.param(
        record(dimension="accuracy", kind="eval"), "score", "needs 'score'", id="eval-empty"
    ),
    pytest.param(
        record(dimension="accuracy", kind="eval", passed=3),
        "total",
        "needs 'score'",
        id="passed-without-total",
    ),
    pytest.param(
        record(dimension="accuracy", kind="eval", passed=5, total=4),
        "passed",
        "cannot exceed",
        id="passed-over-total",
    ),
    pytest.param(
        record(dimension="accuracy", kind="eval", score=50, total=4),
        "total",
        "either",
        id="score-and-counts",
    ),
    pytest.param(
        record(dimension="accuracy", kind="jury", scores=[]),
        "scores",
        "at least 1",
        id="empty-jury",
    ),
    pytest.param(
        record(dimension="accuracy", kind="jury", scores=[50, -1]),
        "scores.1",
        "greater than or equal to 0",
        id="juror-below-0",
    ),
    pytest.param(
        record(dimension="safety", kind="operational", metric="x", value=1),
        "kind",
        "eval or jury",
        id="operational-safety",
    ),
    pytest.param(
        record(dimension="latency", kind="operational", metric="p99", value=1, baseline_ms=5),
        "metric",
        "latency_ms",
        id="wrong-metric",
    ),
    pytest.param(
        record(dimension="latency", kind="operational", metric="latency_ms", value=1),
        "baseline_ms",
        "needs 'baseline_ms'",
        id="missing-baseline",
    ),
    pytest.param(
        record(
            dimension="latency",
            kind="operational",
            metric="latency_ms",
            value=1,
            baseline_ms=5,
            actions=3,
        ),
        "actions",
        "does not apply",
        id="foreign-field",
    ),
    pytest.param(
        record(
            dimension="runtimeCompliance",
            kind="operational",
            metric="violations",
            value=9,
            actions=3,
        ),
        "value",
        "cannot exceed 'actions'",
        id="violations-over-actions",
    ),
    pytest.param(
        record(
            dimension="evalRigor", kind="operational", metric="coverage", value=1.5, diversity=0.5
        ),
        "value",
        "fraction",
        id="coverage-over-1",
    ),
    pytest.param(
        record(dimension="accuracy", kind="eval", score=50, observed_at="2025-05-01T10:00:00"),
        "observed_at",
        "timezone",
        id="naive-time",
    ),
    pytest.param(
        record(dimension="accuracy", kind="eval", score=50, note="hi"),
        "note",
        "unknown field",
        id="unknown-field",
    ),
    pytest.param(
        record(dimension="accuracy", kind="eval", score=float("nan")),
        "score",
        "finite",
        id="nan-score",
    ),
]


@pytest.mark.parametrize(("data", "field", "message"), INVALID)
def test_invalid_records_name_the_field(data: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_evidence(data, path="e.jsonl", line=7)
    assert info.value.field == field
    assert info.value.line == 7
    assert message in info.value.message
    assert str(info.value).startswith(f"e.jsonl:7: field '{field}': ")


def test_not_an_object() -> None:
    with pytest.raises(InputError, match="must be a JSON object"):
        parse_evidence([1, 2], line=1)  # type: ignore[arg-type]


def test_observed_at_is_kept_in_utc() -> None:
    shifted = parse_evidence(
        record(dimension="accuracy", kind="eval", score=50, observed_at="2025-05-01T12:00:00+02:00")
    )
    plain = parse_evidence(record(dimension="accuracy", kind="eval", score=50))
    assert shifted == plain  # 12:00+02:00 is 10:00Z
    assert evidence_canonical_json(shifted) == evidence_canonical_json(plain)


def test_canonical_json_is_sorted_compact_and_stable() -> None:
    item = parse_evidence(record(dimension="safety", kind="eval", passed=18, total=20))
    text = evidence_canonical_json(item)
    assert text == (
        '{"agent_id":"agent-a","dimension":"safety","id":"ev-1","kind":"eval",'
        '"observed_at":"2025-05-01T10:00:00Z","passed":18,"total":20}'
    )
    # The canonical text parses back to the same record.
    assert parse_evidence(json.loads(text)) == item


def write_lines(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_load_reads_every_line_and_collapses_identical_repeats(tmp_path: Path) -> None:
    one = json.dumps(record(dimension="accuracy", kind="eval", score=50))
    two = json.dumps(record(id="ev-2", dimension="safety", kind="jury", scores=[1, 2, 3]))
    path = write_lines(tmp_path / "e.jsonl", one, "", two, one)
    loaded = load_evidence(path)
    assert [e.id for e in loaded] == ["ev-1", "ev-2"]


def test_load_names_the_bad_line(tmp_path: Path) -> None:
    good = json.dumps(record(dimension="accuracy", kind="eval", score=50))
    bad = json.dumps(record(id="ev-2", dimension="accuracy", kind="eval", score=500))
    path = write_lines(tmp_path / "e.jsonl", good, bad)
    with pytest.raises(InputError) as info:
        load_evidence(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 2, "score")


def test_load_refuses_a_reused_id_with_other_content(tmp_path: Path) -> None:
    first = json.dumps(record(dimension="accuracy", kind="eval", score=50))
    second = json.dumps(record(dimension="accuracy", kind="eval", score=51))
    path = write_lines(tmp_path / "e.jsonl", first, second)
    with pytest.raises(InputError, match=r"already used with different content \(line 1\)") as info:
        load_evidence(path)
    assert (info.value.line, info.value.field) == (2, "id")


def test_load_reports_invalid_json_with_its_line(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "e.jsonl",
        json.dumps(record(dimension="accuracy", kind="eval", score=5)),
        "{oops",
    )
    with pytest.raises(InputError) as info:
        load_evidence(path)
    assert info.value.line == 2


def reference_json(evidence: Evidence) -> str:
    """The reference spelling of a record's content, every value walked."""
    return json.dumps(
        evidence.model_dump(mode="json", exclude_none=True),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )


IDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=8)
# Floats of every magnitude the fields accept: fixed notation, exponents, subnormals, zero.
FRACTIONS = st.floats(min_value=0, max_value=1, allow_subnormal=True)
SCORES = st.floats(min_value=0, max_value=100, allow_subnormal=True)
FIGURES = st.floats(min_value=0, allow_infinity=False, allow_subnormal=True)
POSITIVE = st.floats(min_value=0, exclude_min=True, allow_infinity=False, allow_subnormal=True)
ORIGINS = st.none() | st.fixed_dictionaries(
    {"tool": IDS}, optional={"run_id": IDS, "family": IDS, "file_sha256": st.just("a" * 64)}
)
RECORDS = st.one_of(
    st.fixed_dictionaries(
        {"kind": st.just("eval"), "dimension": st.just("accuracy"), "score": SCORES}
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("eval"),
            "dimension": st.just("safety"),
            "passed": st.just(3),
            "total": st.integers(3, 2**53 - 1),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("jury"),
            "dimension": st.just("teamwork"),
            "scores": st.lists(SCORES, min_size=1, max_size=4),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("operational"),
            "dimension": st.just("latency"),
            "metric": st.just("latency_ms"),
            "value": FIGURES,
            "baseline_ms": POSITIVE,
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("operational"),
            "dimension": st.just("evalRigor"),
            "metric": st.just("coverage"),
            "value": FRACTIONS,
            "diversity": FRACTIONS,
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("operational"),
            "dimension": st.just("costEfficiency"),
            "metric": st.just("cost"),
            "value": FIGURES,
            "task_value": POSITIVE,
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("operational"),
            "dimension": st.just("bond"),
            "metric": st.just("stake"),
            "value": FIGURES,
            "reference_stake": POSITIVE,
        }
    ),
)


@given(RECORDS, IDS, IDS, ORIGINS)
@settings(max_examples=1500)
def test_canonical_json_checks_only_the_floats_and_spells_every_record_as_the_reference(
    fields: dict[str, Any], evidence_id: str, agent_id: str, origin: dict[str, Any] | None
) -> None:
    data = {**fields, "id": evidence_id, "agent_id": agent_id, "observed_at": BASE["observed_at"]}
    if origin is not None:
        data["source"] = origin
    evidence = parse_evidence(data)
    assert evidence_canonical_json(evidence) == reference_json(evidence)
