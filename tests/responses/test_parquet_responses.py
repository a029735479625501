"""Responses in Parquet load as the same records in JSONL do: same responses, same messages."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.distributed.shard_factory import jsonl_records, write_parquet, write_shards

from trustprobe.detectors import Detector, builtin_rule_packs
from trustprobe.errors import InputError
from trustprobe.probes import builtin_probes
from trustprobe.reports import build_report, report_json
from trustprobe.responses import load_responses

OK = {"probe_id": "ok", "response": "x"}


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _report(paths: list[Path]) -> dict[str, Any]:
    loaded = load_responses(paths)
    report = build_report(
        builtin_probes(),
        loaded.responses,
        detector=Detector.from_packs(builtin_rule_packs()),
        warnings=loaded.warnings,
        created_at=datetime(2026, 3, 1, tzinfo=UTC),
        sources={"responses": [str(p) for p in paths]},
    )
    data: dict[str, Any] = json.loads(report_json(report))
    data["provenance"].pop("sources")
    return data


def test_parquet_report_equals_the_jsonl_report(tmp_path: Path) -> None:
    jsonl = write_shards(tmp_path / "jsonl", cases=400, shards=2)
    parquet = write_shards(tmp_path / "parquet", cases=400, shards=2, parquet=True)
    assert [p.suffix for p in parquet] == [".parquet", ".parquet"]
    assert load_responses(parquet).responses == load_responses(jsonl).responses
    report = _report(parquet)
    assert report == _report(jsonl)
    assert len(report["cases"]) == 400 and report["observability"] is not None


def test_mixed_inputs_keep_file_order_and_warn_with_rows_and_lines(tmp_path: Path) -> None:
    first = _jsonl(tmp_path / "a.jsonl", [{"probe_id": "p", "response": "one"}])
    second = write_parquet(
        tmp_path / "b.parquet",
        [
            {"probe_id": "q", "response": "two"},
            {"probe_id": "p", "response": "again"},  # repeats a.jsonl:1
            {"probe_id": "q", "sample": 1, "response": "caf\xe9".encode("latin-1")},
            {"probe_id": "q", "error": "timeout"},  # repeats row 1
        ],
    )
    third = _jsonl(tmp_path / "c.jsonl", [{"probe_id": "q", "sample": 1, "response": "dup"}])
    loaded = load_responses([first, second, third])
    assert [(r.probe_id, r.sample, r.response) for r in loaded.responses] == [
        ("p", 0, "one"),
        ("q", 0, "two"),
        ("q", 1, "caf\ufffd"),
    ]
    assert loaded.warnings == [
        f"{second}: row 2: duplicate response for probe 'p' sample 0 ignored (first at {first}:1)",
        f"{second}: row 3: invalid UTF-8 or lone UTF-16 surrogate replaced with U+FFFD",
        f"{second}: row 4: duplicate response for probe 'q' sample 0 ignored"
        f" (first at {second}: row 1)",
        f"{third}:1: duplicate response for probe 'q' sample 1 ignored (first at {second}: row 3)",
    ]


def test_null_cells_take_the_fields_defaults(tmp_path: Path) -> None:
    path = write_parquet(
        tmp_path / "r.parquet",
        [{"probe_id": "a", "response": "x"}, {"probe_id": "a", "response": "y", "sample": 1}],
    )
    assert [(r.sample, r.latency_ms, r.error) for r in load_responses([path]).responses] == [
        (0, None, None),
        (1, None, None),
    ]


@pytest.mark.parametrize(
    ("record", "field"),
    [
        pytest.param({"probe_id": "a"}, None, id="neither-response-nor-error"),
        pytest.param({"response": "x"}, "probe_id", id="no-probe-id"),
        pytest.param({"probe_id": "", "response": "x"}, "probe_id", id="empty-probe-id"),
        pytest.param({"probe_id": "a", "response": "x", "sample": -1}, "sample", id="neg-sample"),
        pytest.param(
            {"probe_id": "a", "response": "x", "latency_ms": -0.5}, "latency_ms", id="neg-latency"
        ),
        pytest.param(
            {"probe_id": "a", "error": "timeout", "output_tokens": -3}, "output_tokens", id="tokens"
        ),
    ],
)
def test_a_bad_row_gets_the_jsonl_message_with_its_row(
    tmp_path: Path, record: dict[str, Any], field: str | None
) -> None:
    records = [OK] * 16 + [record] + [OK] * 3
    with pytest.raises(InputError) as jsonl:
        load_responses([_jsonl(tmp_path / "a.jsonl", records)])
    with pytest.raises(InputError) as parquet:
        load_responses([write_parquet(tmp_path / "a.parquet", records)])
    error = parquet.value
    assert (error.path, error.row, error.line, error.field) == (
        str(tmp_path / "a.parquet"),
        17,
        None,
        field,
    )
    assert error.message == jsonl.value.message
    where = f"{tmp_path / 'a.parquet'}: row 17: " + (f"field '{field}': " if field else "")
    assert str(error) == where + jsonl.value.message


def test_bad_row_message_as_documented(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("runs").mkdir()
    records = [OK] * 16 + [{"probe_id": "a", "response": "x", "sample": -2}]
    write_parquet(Path("runs/a.parquet"), records)
    with pytest.raises(InputError) as error:
        load_responses(["runs/a.parquet"])
    assert str(error.value) == (
        "runs/a.parquet: row 17: field 'sample': Input should be greater than or equal to 0"
    )


def test_awkward_jsonl_converts_to_the_same_responses(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b'{"probe_id": "a", "response": "caf\xe9"}\n\n  \n'
        b'{"probe_id": "a", "sample": 1, "error": "http_503", "error_detail": "busy"}\n'
    )
    converted = write_parquet(tmp_path / "r.parquet", jsonl_records(path))
    assert load_responses([converted]).responses == load_responses([path]).responses
