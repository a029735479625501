"""Parquet record files: schema checks, null cells, UTF-8 repair, ranges and blocks of rows."""

from __future__ import annotations

import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from trustprobe.errors import InputError
from trustprobe.formats import (
    JsonlFile,
    ParquetFile,
    open_records,
    read_jsonl,
    row_group_block_starts,
)
from trustprobe.formats.parquet import Column, model_columns
from trustprobe.responses import Response


def _write(path: Path, columns: dict[str, Any], **options: Any) -> Path:
    pq.write_table(pa.table(columns), path, **options)
    return path


def _numbered(path: Path, rows: int, **options: Any) -> ParquetFile:
    """``rows`` responses ``p-0``, ``p-1``... in the given row groups."""
    ids = [f"p-{i}" for i in range(rows)]
    _write(path, {"probe_id": ids, "response": ids}, **options)
    return ParquetFile(path, model=Response)


def test_columns_follow_the_model() -> None:
    columns = {c.name: c for c in model_columns(Response)}
    assert list(columns) == list(Response.model_fields)
    assert columns["probe_id"] == Column("probe_id", "string", True)
    assert columns["sample"] == Column("sample", "integer", False)
    assert columns["latency_ms"] == Column("latency_ms", "number", False)
    assert columns["tool_calls"] == Column("tool_calls", "json", False)

    class Flags(BaseModel):
        on: bool

    class Nested(BaseModel):
        tags: list[str]

    class Mapping(BaseModel):
        tags: dict[str, str]

    assert model_columns(Flags) == (Column("on", "bool", True),)
    assert model_columns(Nested) == (Column("tags", "json", True),)
    with pytest.raises(TypeError, match=r"Mapping\.tags: no Parquet column holds"):
        model_columns(Mapping)


def test_suffix_picks_the_format(tmp_path: Path) -> None:
    assert isinstance(open_records(tmp_path / "a.parquet", Response), ParquetFile)
    assert isinstance(open_records(tmp_path / "a.PARQUET", Response), ParquetFile)
    assert isinstance(open_records(tmp_path / "a.jsonl", Response), JsonlFile)
    assert isinstance(open_records(tmp_path / "a.parquet.gz", Response), JsonlFile)


def test_null_cells_are_absent_fields_and_any_string_or_integer_type_reads(
    tmp_path: Path,
) -> None:
    path = _write(
        tmp_path / "r.parquet",
        {
            "probe_id": pa.array(["a", "b", "a"]).dictionary_encode(),
            "response": pa.array(["x", None, "z"], pa.large_string()),
            "sample": pa.array([None, 2, 1], pa.int32()),
            "latency_ms": pa.array([3, None, 4], pa.uint16()),
            "error": pa.array([None, "timeout", None], pa.string_view()),
            "error_detail": pa.nulls(3),
        },
    )
    records = list(ParquetFile(path, model=Response).records())
    assert [r.data for r in records] == [
        {"probe_id": "a", "response": "x", "latency_ms": 3},
        {"probe_id": "b", "sample": 2, "error": "timeout"},
        {"probe_id": "a", "response": "z", "sample": 1, "latency_ms": 4},
    ]
    assert [(r.number, r.start, r.stop, r.complete) for r in records] == [
        (1, 0, 1, True),
        (2, 1, 2, True),
        (3, 2, 3, True),
    ]


def test_invalid_utf8_in_a_cell_is_replaced_and_flagged(tmp_path: Path) -> None:
    raw = pa.array([b"fine", b"caf\xe9 \xff", None], pa.binary()).view(pa.string())
    path = _write(tmp_path / "r.parquet", {"probe_id": ["a", "b", "c"], "response": raw})
    records = list(ParquetFile(path, model=Response).records())
    assert [r.data.get("response") for r in records] == ["fine", "caf\ufffd \ufffd", None]
    assert [r.repaired_utf8 for r in records] == [False, True, False]


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        pytest.param(
            {"response": ["x"]},
            "field 'probe_id': required column is missing",
            id="missing-required-column",
        ),
        pytest.param(
            {"probe_id": ["a"], "response": ["x"], "mood": [1]},
            "field 'mood': unknown column",
            id="unknown-column",
        ),
        pytest.param(
            {"probe_id": ["a"], "response": ["x"], "sample": [0.5]},
            "field 'sample': column has type double, expected an integer type",
            id="float-sample",
        ),
        pytest.param(
            {"probe_id": ["a"], "response": ["x"], "latency_ms": ["fast"]},
            "field 'latency_ms': column has type string, expected an integer or floating-point",
            id="string-latency",
        ),
        pytest.param(
            {"probe_id": [1], "response": ["x"]},
            "field 'probe_id': column has type int64, expected a string type",
            id="integer-probe-id",
        ),
        pytest.param(
            {"probe_id": ["a"], "response": [["x"]]},
            "field 'response': column has type list<element: string>, expected a string type",
            id="nested-response",
        ),
    ],
)
def test_schema_errors_name_file_and_column(
    tmp_path: Path, columns: dict[str, Any], message: str
) -> None:
    path = _write(tmp_path / "r.parquet", columns)
    with pytest.raises(InputError) as error:
        list(ParquetFile(path, model=Response).records())
    assert str(error.value).startswith(f"{path}: {message}")
    assert error.value.row is None and error.value.line is None


def test_repeated_column_is_refused(tmp_path: Path) -> None:
    table = pa.Table.from_arrays([pa.array(["a"]), pa.array(["b"])], names=["probe_id"] * 2)
    pq.write_table(table, tmp_path / "r.parquet")
    with pytest.raises(InputError, match="field 'probe_id': column appears more than once"):
        list(ParquetFile(tmp_path / "r.parquet", model=Response).records())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"probe_id": "a", "response": "x"}\n', "not a Parquet file ("),
        (b"", "not a Parquet file ("),
        (None, "cannot read file: No such file or directory"),
    ],
    ids=["jsonl-named-parquet", "empty-file", "missing-file"],
)
def test_a_file_that_is_not_parquet_is_one_clear_error(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "r.parquet"
    if content is not None:
        path.write_bytes(content)
    file = open_records(path, Response, name="runs/r.parquet")
    with pytest.raises(InputError) as error:
        list(file.records())
    assert str(error.value).startswith(f"runs/r.parquet: {message}")


def test_without_pyarrow_the_error_says_what_to_install(tmp_path: Path) -> None:
    _numbered(tmp_path / "r.parquet", 2)
    code = (
        "import sys\n"
        "sys.modules['pyarrow'] = None  # as if the extra were not installed\n"
        "from trustprobe.errors import InputError\n"
        "from trustprobe.responses import load_responses\n"
        "try:\n    load_responses(['r.parquet'])\n"
        "except InputError as error:\n    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "r.parquet: reading Parquet needs pyarrow: pip install 'trustprobe[parquet]'"
    )


def test_row_errors_and_warnings_say_row(tmp_path: Path) -> None:
    file = ParquetFile(tmp_path / "r.parquet", "runs/r.parquet", model=Response)
    assert file.place(17) == "runs/r.parquet: row 17"
    assert str(file.error("bad", 17, "sample")) == "runs/r.parquet: row 17: field 'sample': bad"
    assert JsonlFile("a.jsonl").place(17) == "a.jsonl:17"


@pytest.mark.parametrize(
    ("start", "stop"),
    [(0, None), (0, 23), (5, 6), (6, 14), (13, 41), (20, 23), (23, 23), (40, None)],
)
def test_row_ranges_cross_row_groups_and_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: int, stop: int | None
) -> None:
    monkeypatch.setattr("trustprobe.formats.parquet.READ_ROWS", 3)  # batches inside groups
    file = _numbered(tmp_path / "r.parquet", 41, row_group_size=7)
    got = list(file.records(start, stop))
    expected = list(range(41))[start:stop]
    assert [r.data["probe_id"] for r in got] == [f"p-{i}" for i in expected]
    assert [(r.number, r.start) for r in got] == [(i + 1, i) for i in expected]


def test_only_the_columns_asked_for_are_read(tmp_path: Path) -> None:
    file = _numbered(tmp_path / "r.parquet", 3)
    (first, *_) = file.records(columns=frozenset({"probe_id", "sample"}))
    assert first.data == {"probe_id": "p-0"} and not first.complete
    assert file.complete(first).data == {"probe_id": "p-0", "response": "p-0"}


def test_records_at_come_back_in_the_order_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("trustprobe.formats.parquet.READ_ROWS", 4)
    file = _numbered(tmp_path / "r.parquet", 60, row_group_size=9)
    places = [(38, 37), (2, 1), (60, 59), (10, 9), (38, 37)]
    assert [r.data["probe_id"] for r in file.records_at(places)] == [
        "p-37", "p-1", "p-59", "p-9", "p-37",
    ]  # fmt: skip
    with pytest.raises(InputError, match=r"r\.parquet: row 61: row changed since it was indexed"):
        list(file.records_at([(61, 60)]))


@given(
    sizes=st.lists(st.integers(min_value=0, max_value=40), max_size=12),
    block=st.integers(min_value=1, max_value=25),
)
def test_blocks_cover_every_row_and_follow_row_groups(sizes: list[int], block: int) -> None:
    starts = row_group_block_starts(sizes, block)
    total = sum(sizes)
    bounds = [*starts, total] if total else [0, 0]
    assert starts[0] == 0 and starts == sorted(set(starts))
    assert all(0 < b - a <= block for a, b in pairwise(bounds) if total)
    group_starts = [sum(sizes[:i]) for i in range(len(sizes))]
    for size, first in zip(sizes, group_starts, strict=True):
        if size > block:
            # A group larger than a block is cut from its first row: every block of it is full
            # but its last, and no block reaches into it from the group before.
            assert first in starts
            assert [s for s in starts if first <= s < first + size] == list(
                range(first, first + size, block)
            )
        elif size and first not in starts:
            # A smaller group shares the block before it only when it fits whole.
            before = max(s for s in starts if s < first)
            assert first + size - before <= block


def test_blocks_of_some_row_group_layouts() -> None:
    assert row_group_block_starts([], 10) == [0]
    assert row_group_block_starts([25], 10) == [0, 10, 20]
    assert row_group_block_starts([4, 4, 4], 10) == [0, 8]
    assert row_group_block_starts([25, 3, 9], 10) == [0, 10, 20, 28]
    assert row_group_block_starts([10, 10], 10) == [0, 10]


def test_jsonl_file_reads_as_read_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"a": "caf\xe9"}\n{"a": 3}\n')
    file = JsonlFile(path)
    records = list(file.records())
    assert [(r.number, r.data, r.repaired_utf8) for r in records] == [
        (line.line, line.data, line.repaired_utf8) for line in read_jsonl(path)
    ]
    assert [r.data for r in file.records(records[1].start, records[2].start, 3)] == [
        {"a": "caf\ufffd"}
    ]
    assert [r.number for r in file.records_at([(4, records[2].start), (1, 0)])] == [4, 1]
