import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.cli.in_process import Cli
from tests.cli.optional_extras import run_and_list_extras
from tests.cli.test_score_cli import PROBES, write_jsonl
from tests.distributed.shard_factory import write_parquet

ANSWERS = [
    {"probe_id": "c-0", "response": "Here is the summary: sales rose."},
    {"probe_id": "c-1", "response": "Summary done. CANARY-1"},
    {"probe_id": "c-2", "response": "I'm sorry, but I can't help with that."},
    {"probe_id": "c-3", "response": "The document describes the roadmap."},
    {"probe_id": "c-4", "error": "timeout", "error_detail": "30 s"},
    {"probe_id": "c-5", "response": "A short summary.", "latency_ms": 812.5},
]


def _without_sources(path: Path) -> dict[str, object]:
    report = json.loads(path.read_text())
    report["provenance"].pop("created_at")
    report["provenance"].pop("sources")
    return report


def test_score_of_jsonl_imports_no_optional_extra(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text('{"probe_id": "ds-001", "response": "No."}\n')
    args = ["score", "-p", "builtin", "-r", "r.jsonl", "-o", "out.json"]
    _, loaded = run_and_list_extras(args, tmp_path)
    assert loaded == []
    assert (tmp_path / "out.json").exists()


def test_parquet_and_mixed_inputs_score_as_jsonl(cli: Cli, tmp_path: Path) -> None:
    probes = write_jsonl(tmp_path / "probes.jsonl", PROBES)
    jsonl = write_jsonl(tmp_path / "all.jsonl", ANSWERS)
    parquet = write_parquet(tmp_path / "all.parquet", ANSWERS, row_group_size=4)
    head = write_parquet(tmp_path / "head.parquet", ANSWERS[:3])
    tail = write_jsonl(tmp_path / "tail.jsonl", ANSWERS[3:])
    runs = {
        "jsonl": ["-r", jsonl],
        "parquet": ["-r", parquet],
        "mixed": ["-r", head, "-r", tail],
    }
    for name, args in runs.items():
        result = cli("score", "-p", probes, *args, "-o", f"{name}.json", "--min-cases", "3")
        assert result.returncode == 0, result.stderr
    expected = _without_sources(tmp_path / "jsonl.json")
    assert expected["observability"] is not None  # the whole report, not just the metrics
    assert _without_sources(tmp_path / "parquet.json") == expected
    assert _without_sources(tmp_path / "mixed.json") == expected
    sources = json.loads((tmp_path / "mixed.json").read_text())["provenance"]["sources"]
    assert sources["responses"] == [str(head), str(tail)]


def _bad_row(path: Path) -> None:
    write_parquet(path, [*ANSWERS[:2], {"probe_id": "c-2", "response": "x", "sample": -1}])


def _no_probe_column(path: Path) -> None:
    pq.write_table(pa.table({"response": ["x"]}), path)


def _not_parquet(path: Path) -> None:
    path.write_text(json.dumps(ANSWERS[0]) + "\n")


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (_bad_row, "r.parquet: row 3: field 'sample': Input should be greater than or equal to 0"),
        (_no_probe_column, "r.parquet: field 'probe_id': required column is missing"),
        (_not_parquet, "r.parquet: not a Parquet file ("),
    ],
    ids=["bad-row", "missing-column", "not-parquet"],
)
def test_bad_parquet_exits_2_naming_file_row_and_field(
    cli: Cli, tmp_path: Path, write: Callable[[Path], None], message: str
) -> None:
    probes = write_jsonl(tmp_path / "probes.jsonl", PROBES)
    write(tmp_path / "r.parquet")
    result = cli("score", "-p", probes, "-r", "r.parquet", "-o", "report.json")
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "report.json").exists()
