"""Provenance on evidence: the optional ``source`` object, and the explanation's ``sources``."""

from datetime import timedelta

import pytest
from tests.trust.evidence_factory import NOW

from trustprobe.errors import InputError
from trustprobe.trust import (
    Dimension,
    EvalEvidence,
    EvidenceOrigin,
    EvidenceTable,
    ScoreSource,
    compute_trust_score,
    compute_trust_scores,
    evidence_canonical_json,
    parse_evidence,
    render_trust_html,
)

DIGEST = "ab" * 32
GARAK = EvidenceOrigin(
    tool="garak", tool_version="0.17.1", run_id="run-1", file="r.jsonl", file_sha256=DIGEST
)


def _item(item_id: str, dimension: Dimension, origin: EvidenceOrigin | None, *, days: float = 1):
    return EvalEvidence(
        id=item_id,
        agent_id="bot",
        dimension=dimension,
        observed_at=NOW - timedelta(days=days),
        passed=3,
        total=4,
        source=origin,
    )


def test_source_round_trips_and_absent_source_keeps_old_records_identical() -> None:
    record = {
        "id": "e1",
        "agent_id": "bot",
        "dimension": "security",
        "observed_at": "2025-06-01T00:00:00Z",
        "kind": "eval",
        "passed": 1,
        "total": 2,
    }
    plain = parse_evidence(record)
    assert plain.source is None
    # no "source" key at all in the canonical form: stored digests of older records still match
    assert '"source"' not in evidence_canonical_json(plain)
    sourced = parse_evidence({**record, "source": GARAK.model_dump() | {"family": "dan"}})
    assert sourced.source == GARAK.model_copy(update={"family": "dan"})
    assert parse_evidence(json_roundtrip(sourced)) == sourced


def json_roundtrip(record: EvalEvidence) -> dict:
    import json

    return json.loads(evidence_canonical_json(record))


@pytest.mark.parametrize(
    ("source", "field"),
    [
        ({"tool": "garak", "file_sha256": "not-hex"}, "source.file_sha256"),
        ({"tool": ""}, "source.tool"),
        ({"tool": "garak", "colour": "red"}, "source.colour"),
    ],
    ids=["bad-digest", "empty-tool", "unknown-field"],
)
def test_bad_source_names_the_field(source: dict, field: str) -> None:
    record = {
        "id": "e1",
        "agent_id": "bot",
        "dimension": "security",
        "observed_at": "2025-06-01T00:00:00Z",
        "kind": "eval",
        "score": 50,
        "source": source,
    }
    with pytest.raises(InputError) as raised:
        parse_evidence(record, path="ev.jsonl", line=3)
    assert raised.value.field == field
    assert str(raised.value).startswith(f"ev.jsonl:3: field '{field}'")


def test_explanation_names_each_run_with_its_families_and_dimensions() -> None:
    promptfoo = EvidenceOrigin(tool="promptfoo", run_id="eval-7", file="results.json")
    evidence = [
        _item("g1", Dimension.SECURITY, GARAK.model_copy(update={"family": "dan"})),
        _item("g2", Dimension.SAFETY, GARAK.model_copy(update={"family": "malwaregen"})),
        _item("g3", Dimension.SECURITY, GARAK.model_copy(update={"family": "promptinject"})),
        _item("p1", Dimension.ACCURACY, promptfoo.model_copy(update={"family": "hallucination"})),
        _item("p2", Dimension.ACCURACY, promptfoo, days=-1),  # after as_of: not used, not named
        _item("m1", Dimension.ACCURACY, None),  # sent by hand: counted, not a source
    ]
    score = compute_trust_score("bot", evidence, now=NOW)
    assert score.sources == [
        ScoreSource(
            tool="garak",
            tool_version="0.17.1",
            run_id="run-1",
            file="r.jsonl",
            file_sha256=DIGEST,
            families=["dan", "malwaregen", "promptinject"],
            dimensions=[Dimension.SAFETY, Dimension.SECURITY],  # the seed's order
            evidence_count=3,
        ),
        ScoreSource(
            tool="promptfoo",
            tool_version=None,
            run_id="eval-7",
            file="results.json",
            file_sha256=None,
            families=["hallucination"],
            dimensions=[Dimension.ACCURACY],
            evidence_count=1,
        ),
    ]
    assert score.evidence_count == 5
    # the batch path explains the same way
    assert compute_trust_scores(EvidenceTable.from_evidence(evidence), now=NOW)["bot"] == score


def test_a_repeated_id_from_another_run_is_a_conflict_on_both_paths() -> None:
    first = _item("g1", Dimension.SECURITY, GARAK)
    other = _item("g1", Dimension.SECURITY, GARAK.model_copy(update={"run_id": "run-2"}))
    with pytest.raises(InputError, match="appears twice with different content"):
        compute_trust_score("bot", [first, other], now=NOW)
    with pytest.raises(InputError, match="appears twice with different content"):
        EvidenceTable.from_evidence([first, other])


def test_html_trust_view_lists_the_sources() -> None:
    score = compute_trust_score(
        "bot",
        [_item("g1", Dimension.SECURITY, GARAK.model_copy(update={"family": "dan"}))],
        now=NOW,
    )
    page = render_trust_html(score)
    assert page.startswith("<!DOCTYPE html>")
    assert 'id="source-table"' in page and "run-1" in page and DIGEST[:12] in page
