"""``stream_report`` writes, chunk by chunk, the very file ``build_report`` would."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trustprobe.detectors import Detector
from trustprobe.errors import InputError
from trustprobe.probes import Probe, load_probes
from trustprobe.reports import (
    StageClock,
    build_report,
    read_report,
    report_json,
    stream_report,
    write_report_json,
)
from trustprobe.responses import load_responses

CREATED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
TEXTS = (
    "I'm sorry, but I can't help with that request.",
    "Sure, here is how to do it: 1. open the settings 2. restart the service.",
    "The key in the config is sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e.",
    "I cannot share that, but the admin team can help you through the usual channel.",
)


@pytest.fixture(scope="module")
def catalog() -> list[Probe]:
    return load_probes(["builtin"])


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _responses(tmp_path: Path, catalog: list[Probe]) -> list[Path]:
    """Two files: texts, harness errors, a duplicate across the files, a probe left out."""
    rows: list[dict[str, object]] = []
    answered = catalog[:-1]
    for i, probe in enumerate(answered * 2):
        row: dict[str, object] = {"probe_id": probe.id, "sample": i // len(answered)}
        if i % 13 == 0:
            row["error"] = "timeout"
        else:
            row["response"] = f"{TEXTS[i % len(TEXTS)]} (case {i})"
        rows.append(row)
    first = _write(tmp_path / "a.jsonl", rows[:250])
    second = _write(tmp_path / "b.jsonl", [rows[3], *rows[250:]])  # rows[3] again: a duplicate
    return [first, second]


@pytest.mark.parametrize("chunk", [1, 7, 100, 10_000])
def test_streamed_file_equals_the_built_report(
    tmp_path: Path, catalog: list[Probe], builtin_detector: Detector, chunk: int
) -> None:
    paths = _responses(tmp_path, catalog)
    loaded = load_responses(paths)
    built = build_report(
        catalog, loaded.responses, detector=builtin_detector, warnings=loaded.warnings,
        created_at=CREATED, min_cases=5,
    )  # fmt: skip
    write_report_json(built, tmp_path / "built.json")
    clock = StageClock()
    streamed = stream_report(
        catalog, paths, tmp_path / "streamed.json", detector=builtin_detector,
        created_at=CREATED, min_cases=5, chunk=chunk, clock=clock,
    )  # fmt: skip
    assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "built.json").read_bytes()
    assert len(loaded.warnings) == 1 and "duplicate" in loaded.warnings[0]
    assert streamed.warnings == loaded.warnings
    assert streamed.cases == [] and streamed.aggregate_metrics == built.aggregate_metrics
    assert streamed.aggregate_metrics.counts.missing_probe_ids == [catalog[-1].id]
    assert read_report(tmp_path / "streamed.json") == built
    assert {"loading", "scoring", "metrics", "observability", "report", "write"} <= set(
        clock.as_json()
    )


def test_unknown_probes_are_all_listed_and_nothing_is_written(
    tmp_path: Path, catalog: list[Probe], builtin_detector: Detector
) -> None:
    rows = [{"probe_id": p.id, "response": "ok"} for p in catalog[:30]]
    rows[2]["probe_id"] = "nope-1"
    rows[25]["probe_id"] = "nope-2"
    path = _write(tmp_path / "r.jsonl", rows)
    out = tmp_path / "out" / "report.json"
    with pytest.raises(InputError, match=r"2 unknown probe id\(s\): nope-1, nope-2"):
        stream_report(catalog, [path], out, detector=builtin_detector, chunk=4)
    assert list(out.parent.iterdir()) == []


def test_an_invalid_record_names_its_line_and_leaves_no_file(
    tmp_path: Path, catalog: list[Probe], builtin_detector: Detector
) -> None:
    rows: list[dict[str, object]] = [{"probe_id": p.id, "response": "ok"} for p in catalog[:9]]
    rows[7]["sample"] = -1
    path = _write(tmp_path / "r.jsonl", rows)
    with pytest.raises(InputError) as caught:
        stream_report(catalog, [path], tmp_path / "report.json", detector=builtin_detector, chunk=2)
    assert "r.jsonl:8" in str(caught.value) and "sample" in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]


def test_a_report_written_before_the_sample_field_still_reads(
    tmp_path: Path, catalog: list[Probe], builtin_detector: Detector
) -> None:
    """Reports of earlier versions have no ``observability.sampled_from``: it reads as null."""
    paths = _responses(tmp_path, catalog)
    stream_report(catalog, paths, tmp_path / "new.json", detector=builtin_detector, min_cases=5)
    data = json.loads((tmp_path / "new.json").read_text())
    assert data["observability"].pop("sampled_from") is None
    (tmp_path / "old.json").write_text(json.dumps(data, indent=2))
    old = read_report(tmp_path / "old.json")
    assert old.observability is not None and old.observability.sampled_from is None
    assert old == read_report(tmp_path / "new.json")


def test_the_report_puts_a_case_and_a_point_on_each_line_and_old_layouts_still_read(
    tmp_path: Path, catalog: list[Probe], builtin_detector: Detector
) -> None:
    paths = _responses(tmp_path, catalog)
    loaded = load_responses(paths)
    built = build_report(catalog, loaded.responses, detector=builtin_detector, min_cases=5)
    assert built.observability is not None and built.observability.points
    text = report_json(built)
    # The same JSON value as pydantic's own rendering, indented or not.
    assert json.loads(text) == json.loads(built.model_dump_json())
    lines = text.splitlines()
    cases = [line for line in lines if line.startswith('    {"probe_id":')]
    points = [line for line in lines if line.startswith('      {"') and "cluster" in line]
    assert [json.loads(line.rstrip(",")) for line in cases] == [
        case.model_dump(mode="json") for case in built.cases
    ]
    assert [json.loads(line.rstrip(",")) for line in points] == [
        point.model_dump(mode="json") for point in built.observability.points
    ]
    # A report indented throughout (the layout before one line a case) reads the same.
    (tmp_path / "indented.json").write_text(built.model_dump_json(indent=2) + "\n")
    assert read_report(tmp_path / "indented.json") == built


ODD_TEXTS = (
    "I'm sorry, but I can't help with that request.",
    "Café, naïve, 東京 and 🙂: all written as UTF-8.",
    'A path a/b/c, a quote " and a backslash \\ in one.',
    "Steps:\n1. open the settings\n2. restart the service\n",
    "Controls \x00 \x07 \x1f \t \r and DEL \x7f, line and paragraph separators \u2028 \u2029.",
    "I cannot share that. " * 200,  # longer than the excerpt: written truncated
    "x" * 3999 + "é",  # exactly the excerpt's length
)


def _spelled(row: dict[str, object], style: str) -> str:
    """``row`` as a JSONL line in one of several spellings of the same strings."""
    if style == "compact":
        return json.dumps(row, ensure_ascii=False, separators=(",", ":"))
    if style == "ascii":
        return json.dumps(row)  # \u00e9, surrogate pairs for what lies beyond the BMP
    # Escapes no writer of JSON needs: every "/" as "\/", hex digits in capitals, spaces.
    line = json.dumps(row, indent=None, separators=(" , ", " : "))
    line = line.replace("/", "\\/")
    return re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), line)


def test_cases_are_written_in_the_writers_spelling_whatever_the_input_spelling(
    tmp_path: Path, catalog: list[Probe], builtin_detector: Detector
) -> None:
    # However a line spells its strings (escapes no writer needs, ASCII only, spaces), the
    # cases are written in the writer's own spelling, byte for byte the built report's: a
    # guard for any path that would write a text from its input line's bytes.
    rows: list[dict[str, object]] = []
    for sample in range(6):  # verdicts met again: most cases are written from kept parts
        for i, probe in enumerate(catalog[:40]):
            rows.append(
                {
                    "probe_id": probe.id,
                    "sample": sample,
                    "response": ODD_TEXTS[(i + sample) % len(ODD_TEXTS)],
                    "latency_ms": 1e16 if i == 7 else 12.5 + i,
                    "output_tokens": sample or None,
                }
            )
    rows[5]["tool_calls"] = [{"step": 1, "name": "n", "arguments": {"response": "a\\/b"}}]
    loaded = load_responses([_write(tmp_path / "r.jsonl", rows)])
    built = build_report(
        catalog[:40], loaded.responses, detector=builtin_detector, created_at=CREATED,
        min_cases=5,
    )  # fmt: skip
    write_report_json(built, tmp_path / "built.json")
    expected = (tmp_path / "built.json").read_bytes()
    for style in ("compact", "ascii", "odd"):
        path = tmp_path / f"{style}.jsonl"
        path.write_text("".join(_spelled(r, style) + "\n" for r in rows), encoding="utf-8")
        assert load_responses([path]).responses == loaded.responses
        for chunk in (7, 10_000):
            stream_report(
                catalog[:40], [path], tmp_path / "streamed.json", detector=builtin_detector,
                created_at=CREATED, min_cases=5, chunk=chunk,
            )  # fmt: skip
            assert (tmp_path / "streamed.json").read_bytes() == expected, (style, chunk)
