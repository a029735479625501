"""The journal survives crashes: torn last lines are dropped, nothing else is."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trustprobe.errors import InputError
from trustprobe.responses import Response
from trustprobe.runner import ResponseJournal, read_journal, rewrite_journal
from trustprobe.runner.journal import journal_chunks

RECORDS = [
    Response(probe_id="a", response="fine", latency_ms=12.5, input_tokens=3, output_tokens=4),
    Response(probe_id="b", sample=1, error="timeout", error_detail="no answer within 1 s"),
    Response(probe_id="c", response="ünïcode ✓ and\nnewline"),
]


def _write(path: Path, records: list[Response]) -> bytes:
    with ResponseJournal(path) as journal:
        for record in records:
            journal.append(record)
    return path.read_bytes()


def test_round_trip_and_one_line_per_record(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    data = _write(path, RECORDS)
    assert data.count(b"\n") == 3
    assert read_journal(path).responses == RECORDS


def test_torn_last_line_is_dropped_and_truncated(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    data = _write(path, RECORDS)
    path.write_bytes(data[:-10])  # the process died mid-write of the last record
    contents = read_journal(path)
    assert contents.responses == RECORDS[:2]
    assert "torn last line" in contents.warnings[0]
    assert path.read_bytes() == data[: data.rindex(b"\n", 0, len(data) - 1) + 1]
    _write(path, RECORDS[2:])  # appending after repair gives a clean file again
    assert read_journal(path).responses == RECORDS


def test_complete_last_record_missing_only_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    data = _write(path, RECORDS)
    path.write_bytes(data[:-1])
    assert read_journal(path).responses == RECORDS
    assert path.read_bytes() == data


def test_corrupt_middle_line_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    lines = _write(path, RECORDS).splitlines(keepends=True)
    path.write_bytes(lines[0] + b"{not json\n" + lines[1])
    with pytest.raises(InputError) as caught:
        read_journal(path)
    assert (caught.value.path, caught.value.line) == (str(path), 2)


def test_invalid_record_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    path.write_text(
        '{"probe_id": "a", "response": "x", "sample": -1}\n{"probe_id": "b", "response": "y"}\n'
    )
    with pytest.raises(InputError) as caught:
        read_journal(path)
    assert (caught.value.line, caught.value.field) == (1, "sample")


def test_duplicates_keep_the_first_and_warn(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    _write(path, [RECORDS[0], RECORDS[0].model_copy(update={"response": "second"})])
    contents = read_journal(path)
    assert contents.responses == [RECORDS[0]]
    assert "duplicate record for probe 'a' sample 0" in contents.warnings[0]


def test_rewrite_replaces_atomically(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    _write(path, RECORDS)
    rewrite_journal(path, [RECORDS[0], RECORDS[2]])
    assert read_journal(path).responses == [RECORDS[0], RECORDS[2]]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(cut=st.integers(min_value=0, max_value=10_000))
def test_any_crash_point_keeps_exactly_the_complete_records(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "crash.jsonl"
    path.unlink(missing_ok=True)
    data = _write(path, RECORDS)
    cut = cut % (len(data) + 1)
    path.write_bytes(data[:cut])
    complete = data[:cut].count(b"\n")
    kept = read_journal(path).responses
    # A cut just before a newline leaves a full record without it: kept too.
    assert kept in (RECORDS[:complete], RECORDS[: complete + 1])
    assert kept == RECORDS[: len(kept)]


def test_chunks_read_what_the_whole_read_does(tmp_path: Path) -> None:
    """Chunked reading (the scan's streamed report) keeps order, skips repeats, warns alike."""
    path = tmp_path / "responses.jsonl"
    data = _write(path, [*RECORDS, RECORDS[0], Response(probe_id="d", response="last")])
    path.write_bytes(data + b'{"probe_id": "e", "resp')  # and a torn last line
    chunks = list(journal_chunks(path, repair=False, chunk=2))
    assert [len(c.responses) for c in chunks] == [2, 2, 0]  # the last holds the warning
    assert [r for c in chunks for r in c.responses] == [
        *RECORDS,
        Response(probe_id="d", response="last"),
    ]
    warnings = [w for c in chunks for w in c.warnings]
    assert warnings == [
        f"{path}:4: duplicate record for probe 'a' sample 0 ignored (first on line 1)",
        f"{path}:6: dropped a torn last line (a record cut off mid-write)",
    ]
    whole = read_journal(path, repair=False)
    assert (whole.responses, whole.warnings) == ([r for c in chunks for r in c.responses], warnings)
    assert path.read_bytes().endswith(b'"resp')  # repair=False leaves the file as it is
