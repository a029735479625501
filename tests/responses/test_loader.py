import json
import tempfile
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.errors import InputError
from trustprobe.responses import check_known_probes, load_responses


def test_loads_and_flags_invalid_utf8_and_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    good = json.dumps({"probe_id": "a", "response": "fine"}).encode()
    bad_bytes = b'{"probe_id": "b", "response": "caf\xe9 \xff"}'
    dup = json.dumps({"probe_id": "a", "response": "again"}).encode()
    path.write_bytes(good + b"\n\n" + bad_bytes + b"\n" + dup + b"\n")
    loaded = load_responses([path])
    assert [r.probe_id for r in loaded.responses] == ["a", "b"]
    assert loaded.responses[1].response == "caf\ufffd \ufffd"
    assert loaded.warnings == [
        f"{path}:3: invalid UTF-8 or lone UTF-16 surrogate replaced with U+FFFD",
        f"{path}:4: duplicate response for probe 'a' sample 0 ignored (first at {path}:1)",
    ]


def test_samples_are_distinct_cases(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        "\n".join(json.dumps({"probe_id": "a", "response": "x", "sample": s}) for s in range(3)),
        encoding="utf-8",
    )
    assert [r.sample for r in load_responses([path]).responses] == [0, 1, 2]


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        pytest.param({"probe_id": "a"}, None, "either 'response' or 'error'", id="neither"),
        pytest.param(
            {"probe_id": "a", "response": "x", "mood": 1}, "mood", "unknown field", id="extra"
        ),
        pytest.param(
            {"probe_id": "a", "response": "x", "sample": -1}, "sample", "greater than", id="neg"
        ),
        pytest.param({"response": "x"}, "probe_id", "required field", id="no-probe-id"),
        pytest.param(
            {"probe_id": "a", "response": "x", "sample": "1"}, "sample", "integer", id="str-sample"
        ),
        pytest.param(
            {"probe_id": "a", "response": "x", "sample": 1.0}, "sample", "integer", id="float"
        ),
        pytest.param(
            {"probe_id": "a", "response": "x", "latency_ms": "5"},
            "latency_ms",
            "number",
            id="str-latency",
        ),
        pytest.param(
            {"probe_id": "a", "response": "x", "input_tokens": True},
            "input_tokens",
            "integer",
            id="bool-tokens",
        ),
    ],
)
def test_bad_records_name_line_and_field(
    tmp_path: Path, record: dict[str, object], field: str | None, message: str
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        json.dumps({"probe_id": "ok", "response": "x"}) + "\n" + json.dumps(record) + "\n"
    )
    with pytest.raises(InputError) as info:
        load_responses([path])
    assert (info.value.line, info.value.field) == (2, field)
    assert message in info.value.message


def test_harness_error_record_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"probe_id": "a", "error": "timeout", "error_detail": "30s"}) + "\n")
    (response,) = load_responses([path]).responses
    assert response.response is None and response.error == "timeout"


def test_unknown_probe_ids_are_listed() -> None:
    from trustprobe.responses import Response

    responses = [Response(probe_id=p, response="x") for p in ("b", "a", "zz", "a")]
    with pytest.raises(InputError, match=r"2 unknown probe id\(s\): b, zz"):
        check_known_probes(responses, {"a"})


def test_lines_validated_from_bytes_equal_lines_decoded_first(tmp_path: Path) -> None:
    """The fast JSONL path gives the general path's responses and warnings, line for line."""
    from trustprobe.responses import parse_response, response_file

    lines = [
        b'{"probe_id": "a", "response": "plain"}',
        b"",
        b'{"probe_id": "a", "sample": 1, "response": "lone \\ud800 surrogate"}',
        b'{"probe_id": "b", "response": "bad \xff byte", "latency_ms": 1e999}',
        b'{"probe_id": "b", "probe_id": "c", "sample": 2, "error": "timeout"}',
        b"   ",
        b'{"probe_id": "d", "response": "caf\xc3\xa9", "sample": 3}',
    ]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    loaded = load_responses([path])
    file = response_file(path)
    general = [parse_response(file, record) for record in file.records()]
    assert loaded.responses == general
    assert loaded.warnings == [
        f"{path}:3: invalid UTF-8 or lone UTF-16 surrogate replaced with U+FFFD",
        f"{path}:4: invalid UTF-8 or lone UTF-16 surrogate replaced with U+FFFD",
    ]


_LINES = st.sampled_from(
    [
        b"",
        b"  ",
        b'{"probe_id": "a", "response": "bad \xff byte"}',
        b'{"probe_id": "b", "sample": 1, "response": "lone \\ud800 surrogate"}',
        b'{"probe_id": "b", "sample": 1, "response": "x"',
    ]
)


@st.composite
def _jsonl(draw: st.DrawFn) -> bytes:
    """JSONL text of valid records, repeats among them, and now and then an odd line."""
    lines = []
    for _ in range(draw(st.integers(0, 40))):
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(_LINES))
            continue
        record: dict[str, object] = {
            "probe_id": draw(st.sampled_from(["a", "b", "c"])),
            "sample": draw(st.sampled_from([0, 1, 2, 3, 2**20, 2**20 + 1])),
            "response": draw(st.text(max_size=12)),
        }
        lines.append(json.dumps(record).encode())
    return b"\n".join(lines) + b"\n" * draw(st.integers(0, 1))


def _read_line_by_line(paths: list[Path], chunk: int) -> list[tuple[list[Any], list[str]]]:
    """What ``read_responses`` gives by its definition: every line read alone, the first of
    each (probe_id, sample) kept, a chunk closed at ``chunk`` responses."""
    from trustprobe.responses import response_file
    from trustprobe.responses.loader import _line_response, duplicate_warning, repaired_warning

    chunks, responses, warnings = [], [], []
    first_at: dict[tuple[str, int], str] = {}
    for path in paths:
        file = response_file(path)
        offset = 0
        for number, raw in enumerate(path.read_bytes().splitlines(keepends=True), start=1):
            read = _line_response(file, number, offset, raw)
            offset += len(raw)
            if read is None:
                continue
            response, repaired = read
            if repaired:
                warnings.append(repaired_warning(file.place(number)))
            first = first_at.setdefault(response.key, file.place(number))
            if first != file.place(number):
                warnings.append(duplicate_warning(file.place(number), *response.key, first))
                continue
            responses.append(response)
            if len(responses) >= chunk:
                chunks.append((responses, warnings))
                responses, warnings = [], []
    if responses or warnings:
        chunks.append((responses, warnings))
    return chunks


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(_jsonl(), min_size=1, max_size=3),
    chunk=st.integers(1, 12),
    batch_bytes=st.integers(1, 400),
)
def test_batches_read_as_every_line_alone(texts: list[bytes], chunk: int, batch_bytes: int) -> None:
    """Chunks, warnings and errors (file, line, field) do not depend on how lines are batched."""
    from trustprobe.responses import loader, read_responses

    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / f"r{i}.jsonl" for i in range(len(texts))]
        for path, text in zip(paths, texts, strict=True):
            path.write_bytes(text)
        try:
            expected = _read_line_by_line(paths, chunk)
        except InputError as error:
            with (
                pytest.raises(InputError) as raised,
                patch.object(loader, "BATCH_BYTES", batch_bytes),
            ):
                list(read_responses(paths, chunk=chunk))
            assert str(raised.value) == str(error)
            return
        with patch.object(loader, "BATCH_BYTES", batch_bytes):
            chunks = [(c.responses, c.warnings) for c in read_responses(paths, chunk=chunk)]
        assert chunks == expected
