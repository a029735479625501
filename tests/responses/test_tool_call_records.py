"""Response records carry the tool calls an agent made (JSONL, Parquet); old files stay valid."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trustprobe.errors import InputError
from trustprobe.responses import Response, ToolCall, load_responses

CALLS = [
    {"step": 1, "name": "list_emails", "arguments": {}, "result": "3 emails"},
    {
        "step": 2,
        "name": "send_email",
        "arguments": "{to: broken",
        "result": "error",
        "result_error": True,
    },
]


def test_jsonl_records_with_and_without_calls(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    old = {"probe_id": "a", "response": "plain text answer"}
    new = {"probe_id": "b", "response": "", "tool_calls": CALLS}
    path.write_text(json.dumps(old) + "\n" + json.dumps(new) + "\n")
    first, second = load_responses([path]).responses
    assert first.tool_calls is None
    assert second.tool_calls == [ToolCall.model_validate(c) for c in CALLS]
    assert second.tool_calls[1].arguments == "{to: broken"  # not JSON: kept as raw text


def test_a_bad_call_names_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        json.dumps(
            {
                "probe_id": "b",
                "response": "",
                "tool_calls": [{"step": 0, "name": "x", "arguments": {}}],
            }
        )
        + "\n"
    )
    with pytest.raises(InputError) as info:
        load_responses([path])
    assert (info.value.line, info.value.field) == (1, "tool_calls.0.step")


def _table(tool_calls: pa.Array) -> pa.Table:
    return pa.table({"probe_id": ["a", "b"], "response": ["x", ""], "tool_calls": tool_calls})


def test_parquet_tool_calls_as_json_text_or_nested_columns(tmp_path: Path) -> None:
    expected = [
        Response(probe_id="a", response="x"),
        Response(probe_id="b", response="", tool_calls=CALLS),
    ]  # type: ignore[arg-type]
    as_text = tmp_path / "text.parquet"
    pq.write_table(_table(pa.array([None, json.dumps(CALLS)], pa.string())), as_text)
    assert load_responses([as_text]).responses == expected
    nested = tmp_path / "nested.parquet"
    rows = [
        None,
        [
            dict(
                c,
                arguments=json.dumps(c["arguments"])
                if isinstance(c["arguments"], dict)
                else c["arguments"],
            )
            for c in CALLS
        ],
    ]
    pq.write_table(_table(pa.array(rows)), nested)
    loaded = load_responses([nested]).responses
    # Nested columns hold one type per field: arguments as text, read back as text.
    assert loaded[1].tool_calls is not None and [c.name for c in loaded[1].tool_calls] == [
        "list_emails",
        "send_email",
    ]


def test_parquet_tool_calls_of_the_wrong_type_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.parquet"
    pq.write_table(_table(pa.array([1, 2], pa.int64())), path)
    with pytest.raises(InputError, match="expected a string \\(JSON text\\), list or struct type"):
        load_responses([path])
