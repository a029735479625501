"""Shards read, indexed and planned as the in-process loader reads them; the report splices."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.distributed.conftest import CREATED, write_awkward_shards
from trustprobe.detectors import Detector, RulePack
from trustprobe.distributed import DistributedRunError, dask_client, expand_shards
from trustprobe.distributed.plan import block_work, resolve_duplicates, warnings_of
from trustprobe.distributed.shards import (
    Shard,
    ShardIndex,
    index_shard,
    locate_keys,
    read_block,
)
from trustprobe.errors import InputError
from trustprobe.formats import decode_jsonl_line, read_jsonl
from trustprobe.probes import Probe
from trustprobe.reports import Report, build_report, report_json
from trustprobe.reports.stream import (
    CASES,
    CASES_DEPTH,
    POINTS,
    POINTS_DEPTH,
    ReportStream,
    render_items,
)
from trustprobe.responses import Response, load_responses

LINE = st.binary(max_size=40).filter(lambda b: b"\n" not in b) | st.sampled_from(
    [b'{"a": 1}', b"[1]", b'{"a": "caf\xe9"}', b"   ", b"", b'{"a": 1}\r', b"nope"]
)


@settings(max_examples=80)
@given(lines=st.lists(LINE, max_size=6))
def test_line_decoding_is_read_jsonl_line_for_line(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes]
) -> None:
    path = tmp_path_factory.mktemp("jsonl") / "x.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    expected: list[tuple[int, object, bool]] | str
    try:
        expected = [(r.line, r.data, r.repaired_utf8) for r in read_jsonl(path)]
    except InputError as error:
        expected = str(error)
    ours: list[tuple[int, object, bool]] = []
    try:
        for number, line in enumerate(lines, start=1):
            decoded = decode_jsonl_line(line + b"\n", str(path), number)
            if decoded is not None:
                ours.append((number, decoded[0], decoded[1]))
    except InputError as error:
        assert str(error) == expected
        return
    assert ours == expected


def _index_all(
    shards: list[Shard], probe_ids: frozenset[str], **options: object
) -> list[ShardIndex]:
    return [
        index_shard(shard, probe_ids=probe_ids, seed=0, sample_size=50, **options)  # type: ignore[arg-type]
        for shard in shards
    ]


def _locate(
    wanted: Mapping[Shard, frozenset[tuple[str, int]]],
) -> dict[Shard, dict[tuple[str, int], list[int]]]:
    # The lookup the engine runs as tasks, run here in process on the same files.
    return {shard: locate_keys(shard, keys) for shard, keys in wanted.items()}


def test_plan_reaches_the_loaders_decisions(tmp_path: Path, probes: list[Probe]) -> None:
    paths = write_awkward_shards(tmp_path, cases=300, shards=5)
    loaded = load_responses(paths)
    shards = expand_shards([str(tmp_path / "*.jsonl")])
    assert [s.name for s in shards] == [str(p) for p in paths]
    indexes = _index_all(shards, frozenset(p.id for p in probes), block_records=16)
    assert all(i.error is None for i in indexes)
    duplicates = resolve_duplicates(indexes, _locate)
    assert warnings_of(indexes, duplicates) == loaded.warnings

    # Blocks cover every record once; reading them back, minus the ignored lines, is the
    # loader's list of responses, in order.
    work = block_work(indexes, duplicates)
    assert sum(len(i.blocks) for i in indexes) == len(work)
    read = [r for item in work for r in read_block(item.block, item.drop_lines)[0]]
    assert read == loaded.responses
    assert [w.first_index for w in work[:3]] == [0, 16, 32]  # 16 kept records per block
    assert sum(w.expected_cases for w in work) == len(loaded.responses) == 301


def test_index_counts_scored_records_and_draws_candidates(
    tmp_path: Path, probes: list[Probe]
) -> None:
    shard = tmp_path / "s.jsonl"
    shard.write_text(
        "\n".join(
            [
                '{"probe_id": "ds-001", "response": "a"}',  # line 1, scored
                '{"probe_id": "ds-001", "response": "b"}',  # line 2, repeats line 1: ignored
                "",
                '{"probe_id": "ds-002", "error": "timeout"}',  # line 4, harness error
                '{"probe_id": "zz-404", "sample": 3, "response": "c"}',  # line 5, unknown probe
            ]
        )
        + "\n"
    )
    (index,) = _index_all(expand_shards([shard]), frozenset(p.id for p in probes), block_records=2)
    assert (index.records, index.scored) == (4, 2)  # lines 1 and 5 carry a kept response
    assert [(b.first_line, b.last_line, b.records) for b in index.blocks] == [(1, 2, 2), (3, 5, 2)]
    assert [(d.line, d.first) for d in index.duplicates] == [(2, f"{shard}:1")]
    assert index.unknown_probe_ids == {"zz-404"}
    assert sorted(index.candidates.line.tolist()) == [1, 5]
    assert dict(index.samples) == {"ds-001": ((0, 1),), "ds-002": ((0, 1),), "zz-404": ((3, 4),)}


def test_first_bad_line_is_reported_as_the_loader_reports_it(tmp_path: Path) -> None:
    shard = tmp_path / "bad.jsonl"
    shard.write_text('{"probe_id": "ds-001", "response": "ok"}\n{"probe_id": "", "response": 1}\n')
    (index,) = _index_all(expand_shards([shard]), frozenset({"ds-001"}))
    assert index.error is not None
    with pytest.raises(InputError) as loader:
        load_responses([shard])
    assert str(index.error.to_error()) == str(loader.value)
    assert f"{shard}:2: field 'probe_id'" in str(loader.value)


def test_missing_file_and_empty_glob_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no file matches this pattern"):
        expand_shards([str(tmp_path / "*.jsonl")])
    (index,) = _index_all([Shard(0, "gone.jsonl", str(tmp_path / "gone.jsonl"))], frozenset())
    assert index.error is not None
    assert str(index.error.to_error()) == "gone.jsonl: cannot read file: No such file or directory"


def _report(probes: list[Probe], packs: list[RulePack], responses: list[Response]) -> Report:
    return build_report(
        probes, responses, detector=Detector.from_packs(packs), created_at=CREATED, min_cases=3
    )


@pytest.mark.parametrize(
    ("answers", "chunks"),
    [(0, []), (2, [2]), (9, [1, 3, 5])],
    ids=["no-cases", "no-observability", "three-chunks"],
)
def test_streamed_report_equals_report_json(
    tmp_path: Path, probes: list[Probe], packs: list[RulePack], answers: int, chunks: list[int]
) -> None:
    responses = [
        Response(probe_id=p.id, response="I can't help with that." if i % 2 else "Sure: done.")
        for i, p in enumerate(probes[:answers])
    ]
    report = _report(probes, packs, responses)
    points = report.observability.points if report.observability else []
    output = tmp_path / "r.json"
    with ReportStream(output, report) as stream:
        start = 0
        for size in chunks:
            cases, placed = report.cases[start : start + size], points[start : start + size]
            stream.add(
                render_items(CASES, cases, CASES_DEPTH), len(cases),
                render_items(POINTS, placed, POINTS_DEPTH), len(placed),
            )  # fmt: skip
            start += size
        skeleton = report.model_copy(update={"cases": []})
        if report.observability is not None:
            skeleton.observability = report.observability.model_copy(update={"points": []})
        stream.finish(skeleton)
    assert output.read_text(encoding="utf-8") == report_json(report)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_failed_stream_leaves_no_file(
    tmp_path: Path, probes: list[Probe], packs: list[RulePack]
) -> None:
    report = _report(probes, packs, [])
    with (
        pytest.raises(RuntimeError, match="boom"),
        ReportStream(tmp_path / "r.json", report) as stream,
    ):
        stream.add(b'    {"x": 1}', 1, b"", 0)
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_unreachable_scheduler_is_a_clear_error() -> None:
    with (
        pytest.raises(DistributedRunError, match=r"cannot reach the Dask scheduler at tcp://"),
        dask_client("tcp://127.0.0.1:9", connect_timeout_s=1),
    ):
        pass
