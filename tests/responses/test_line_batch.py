"""The loader's batch validation gives what ``Response.model_validate_json`` gives, line by line.

``read_responses`` validates a batch of JSONL lines in one pydantic call (``_line_batch``) and
reads the batch again line by line only when that call fails. These tests hold the batch call
to the per-line reference on varied and hostile lines: the same responses (values, their types,
the fields set) for the lines that validate, a failure for any line that does not, and the
same file, line and field in the errors and warnings that follow.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from trustprobe.errors import InputError
from trustprobe.responses import Response, load_responses
from trustprobe.responses.loader import _line_batch

_FIELDS = (
    "probe_id",
    "response",
    "sample",
    "latency_ms",
    "input_tokens",
    "output_tokens",
    "error",
    "error_detail",
    "tool_calls",
)
_TEXT = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(["", "é", "\u2028"])
_NUMBER = st.one_of(
    st.integers(-3, 3),
    st.integers(min_value=2**63 - 2, max_value=2**65),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
)
_TOOL_CALL = st.fixed_dictionaries(
    {
        "step": st.integers(-1, 3),
        "name": _TEXT,
        "arguments": st.dictionaries(_TEXT, _TEXT | _NUMBER, max_size=2) | _TEXT,
    },
    optional={
        "result": _TEXT | st.none(),
        "result_error": st.booleans() | st.integers(0, 2),
        "extra": _TEXT,
    },
)
_VALUE = st.one_of(
    st.none(), _TEXT, _NUMBER, st.lists(_TOOL_CALL, max_size=2), st.dictionaries(_TEXT, _TEXT)
)
_PLAUSIBLE = st.fixed_dictionaries(
    {"probe_id": st.text(min_size=1, max_size=8) | _TEXT, "response": _TEXT | st.none()},
    optional={
        "sample": st.integers(0, 9) | st.integers(0, 9) | _NUMBER,
        "latency_ms": st.floats(0, 1e6) | _NUMBER,
        "input_tokens": st.integers(0, 9) | st.none(),
        "error": _TEXT | st.none(),
        "tool_calls": st.lists(_TOOL_CALL, max_size=2) | st.none(),
    },
)
_RECORD = _PLAUSIBLE | st.dictionaries(
    st.sampled_from([*_FIELDS, "extra", ""]), _VALUE, max_size=len(_FIELDS)
)
# Byte-level damage a JSON encoder never makes: invalid UTF-8, lone surrogate escapes, raw
# control characters, a BOM, a blank line, two values on a line, a truncated line.
_DAMAGE = st.sampled_from(
    [
        *[lambda raw: raw] * 10,
        lambda raw: raw.replace(b'"', b'"\xff', 1),
        lambda raw: raw.replace(b'": "', b'": "\\ud800', 1),
        lambda raw: raw.replace(b'": "', b'": "\\udc00\\ud83d', 1),
        lambda raw: raw.replace(b'": "', b'": "\x00\n', 1),
        lambda raw: b"\xef\xbb\xbf" + raw,
        lambda raw: b"   ",
        lambda raw: raw + b" " + raw,
        lambda raw: raw[: len(raw) // 2],
        lambda raw: raw.replace(b"}", b', "probe_id": "again"}', 1),
    ]
)


@st.composite
def jsonl_lines(draw: st.DrawFn) -> bytes:
    record: dict[str, Any] = draw(_RECORD)
    raw = json.dumps(record, ensure_ascii=draw(st.booleans()), allow_nan=True).encode()
    return draw(_DAMAGE)(raw) + draw(st.sampled_from([b"\n", b"\r\n", b""]))


def _reference(raw: bytes) -> Response | None:
    try:
        return Response.model_validate_json(raw)
    except ValidationError:
        return None


def _state(response: Response) -> list[tuple[str, type, Any]]:
    """Every attribute of a response with its exact type (``1`` and ``1.0`` differ here)."""
    fields = [(name, type(value), value) for name, value in response.__dict__.items()]
    calls = [call.__dict__ for call in response.tool_calls or []]
    return [*fields, ("fields set", set, response.model_fields_set), ("calls", list, calls)]


def _check_batch(lines: list[bytes]) -> None:
    expected = [_reference(raw) for raw in lines]
    try:
        got = _line_batch()(lines)
    except ValidationError:
        assert None in expected  # the batch fails only when some line fails on its own
        return
    assert None not in expected
    for one, reference in zip(got, expected, strict=True):
        assert type(one) is Response and reference is not None
        assert repr(_state(one)) == repr(_state(reference))  # NaN == NaN by its text


@settings(max_examples=400, deadline=None)
@given(st.lists(jsonl_lines(), min_size=1, max_size=6))
def test_batch_gives_the_responses_of_validating_each_line(lines: list[bytes]) -> None:
    _check_batch(lines)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PLAUSIBLE.map(lambda record: json.dumps(record).encode()), max_size=8))
def test_batch_of_plausible_lines(lines: list[bytes]) -> None:
    # Mostly valid lines: batches that validate whole, the path every clean file takes.
    _check_batch(lines)


def test_a_failing_batch_is_read_line_by_line_with_the_same_errors(tmp_path: Path) -> None:
    good = json.dumps({"probe_id": "a", "response": "fine"}).encode()
    path = tmp_path / "r.jsonl"
    path.write_bytes(good + b"\n" + b'{"probe_id": "b", "response": "x", "sample": true}\n')
    with pytest.raises(InputError) as raised:
        load_responses([path])
    assert raised.value.line == 2
    assert raised.value.field == "sample"


def test_a_repaired_line_in_a_batch_keeps_its_warning(tmp_path: Path) -> None:
    lines = [json.dumps({"probe_id": "p", "sample": n, "response": "ok"}) for n in range(5)]
    lines[3] = '{"probe_id": "p", "sample": 3, "response": "lone \\ud800 surrogate"}'
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = load_responses([path])
    assert [r.sample for r in loaded.responses] == [0, 1, 2, 3, 4]
    assert loaded.responses[3].response == "lone \ufffd surrogate"
    assert loaded.warnings == [
        f"{path}:4: invalid UTF-8 or lone UTF-16 surrogate replaced with U+FFFD"
    ]
