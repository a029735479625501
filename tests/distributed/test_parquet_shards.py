"""Parquet shards: indexed, planned and scored on the cluster as the loader reads them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from distributed import Client

from tests.distributed.conftest import (
    CREATED,
    in_process_report,
    score_on_cluster,
    write_awkward_shards,
)
from tests.distributed.shard_factory import jsonl_records, to_parquet, write_parquet, write_shards
from trustprobe.detectors import RulePack
from trustprobe.distributed import expand_shards, score_shards
from trustprobe.distributed.plan import block_work, resolve_duplicates, warnings_of
from trustprobe.distributed.shards import Shard, index_shard, locate_keys, read_block
from trustprobe.errors import InputError
from trustprobe.observability import embedding as embedding_module
from trustprobe.probes import Probe
from trustprobe.responses import load_responses


def _mixed(directory: Path, *, row_group_size: int) -> list[Path]:
    """The awkward shards with every other one (the even ones) as Parquet."""
    paths = write_awkward_shards(directory)
    mixed = []
    for position, path in enumerate(paths):
        if position % 2 == 0:
            mixed.append(to_parquet(path, row_group_size=row_group_size))
            path.unlink()
        else:
            mixed.append(path)
    return mixed


@pytest.fixture(scope="module")
def mixed_shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return _mixed(tmp_path_factory.mktemp("mixed"), row_group_size=40)


def _index(shard: Shard, probes: list[Probe], **options: Any) -> Any:
    ids = frozenset(p.id for p in probes)
    return index_shard(shard, probe_ids=ids, seed=0, sample_size=50, **options)


def _locate(
    wanted: Mapping[Shard, frozenset[tuple[str, int]]],
) -> dict[Shard, dict[tuple[str, int], list[int]]]:
    return {shard: locate_keys(shard, keys) for shard, keys in wanted.items()}


def test_row_groups_are_cut_into_blocks_of_rows(tmp_path: Path, probes: list[Probe]) -> None:
    (jsonl,) = write_shards(tmp_path, cases=120, shards=1)
    parquet = to_parquet(jsonl, row_group_size=50)  # row groups of 50, 50 and 20 rows
    assert pq.ParquetFile(parquet).metadata.num_row_groups == 3
    (shard,) = expand_shards([parquet])
    index = _index(shard, probes, block_records=20)
    assert index.error is None and index.records == 120
    assert [(b.start, b.stop, b.first_line, b.last_line, b.records) for b in index.blocks] == [
        (0, 20, 1, 20, 20),
        (20, 40, 21, 40, 20),
        (40, 50, 41, 50, 10),  # the rest of the first row group
        (50, 70, 51, 70, 20),
        (70, 90, 71, 90, 20),
        (90, 100, 91, 100, 10),
        (100, 120, 101, 120, 20),
    ]
    read = [r for block in index.blocks for r in read_block(block, frozenset())[0]]
    assert read == load_responses([parquet]).responses == load_responses([jsonl]).responses
    assert index.blocks[2].describe() == f"{parquet}, block 2 (rows 41-50)"
    # Candidates are placed by row index, and read back by it.
    candidates = index.candidates
    assert candidates.offset.tolist() == [n - 1 for n in candidates.line.tolist()]


def test_plan_of_mixed_shards_reaches_the_loaders_decisions(
    tmp_path: Path, probes: list[Probe]
) -> None:
    paths = _mixed(tmp_path, row_group_size=16)
    loaded = load_responses(paths)
    shards = expand_shards(paths)
    indexes = [_index(shard, probes, block_records=12) for shard in shards]
    assert all(i.error is None for i in indexes)
    duplicates = resolve_duplicates(indexes, _locate)
    warnings = warnings_of(indexes, duplicates)
    assert warnings == loaded.warnings
    assert any(": row " in w and " (first at " in w for w in warnings)  # Parquet rows named
    work = block_work(indexes, duplicates)
    assert [r for item in work for r in read_block(item.block, item.drop_lines)[0]] == (
        loaded.responses
    )


def test_first_bad_row_is_reported_as_the_loader_reports_it(
    tmp_path: Path, probes: list[Probe]
) -> None:
    records: list[dict[str, Any]] = [{"probe_id": "ds-001", "response": "ok"}] * 5
    # Row 4's latency is checked only by a full validation; row 5's sample by the fast index.
    records[3] = {"probe_id": "ds-002", "response": "ok", "latency_ms": -1.0}
    records[4] = {"probe_id": "ds-003", "response": "ok", "sample": -1}
    path = write_parquet(tmp_path / "bad.parquet", records)
    (shard,) = expand_shards([path])
    with pytest.raises(InputError) as loader:
        load_responses([path])
    assert str(loader.value).startswith(f"{path}: row 4: field 'latency_ms': ")
    fast = _index(shard, probes)
    assert fast.error is not None and fast.error.to_error().row == 5
    full = _index(shard, probes, validate=True)
    assert full.error is not None and str(full.error.to_error()) == str(loader.value)


def test_parquet_report_on_the_cluster_equals_the_jsonl_report_in_process(
    client: Client, probes: list[Probe], packs: list[RulePack], tmp_path: Path
) -> None:
    jsonl = write_shards(tmp_path / "jsonl", cases=700, shards=3)
    parquet = write_shards(tmp_path / "parquet", cases=700, shards=3, parquet=True)
    output = tmp_path / "report.json"
    run = score_shards(
        client,
        probes,
        [str(tmp_path / "parquet" / "*.parquet")],  # a glob expands to the sorted files
        rule_packs=packs,
        output=output,
        created_at=CREATED,
        sources={"responses": [str(p) for p in parquet]},
        block_records=64,
    )
    assert run.cases == 700 and run.blocks == 12  # 234, 234 and 232 rows: 4 blocks each

    def without_sources(text: str) -> dict[str, Any]:
        report: dict[str, Any] = json.loads(text)
        report["provenance"].pop("sources")
        return report

    expected = in_process_report(probes, packs, jsonl)
    assert without_sources(output.read_text(encoding="utf-8")) == without_sources(expected)
    assert output.read_text(encoding="utf-8") == in_process_report(probes, packs, parquet)


@pytest.mark.parametrize(
    ("block_records", "fit_sample"),
    [(37, None), (10_000, 250)],
    ids=["37-row-blocks-every-case-fitted", "row-group-blocks-250-case-fitting-sample"],
)
def test_mixed_shards_report_is_byte_identical_to_the_in_process_one(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    mixed_shards: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    block_records: int,
    fit_sample: int | None,
) -> None:
    if fit_sample is not None:
        monkeypatch.setattr(embedding_module, "SVD_FIT_SAMPLE", fit_sample)
    expected = in_process_report(probes, packs, mixed_shards)
    output = tmp_path / "report.json"
    run = score_on_cluster(client, probes, packs, mixed_shards, output, block_records=block_records)
    assert output.read_text(encoding="utf-8") == expected
    assert run.cases == 901 and run.shards == 8
    warnings = run.report.warnings
    assert len(warnings) == 5
    assert any("shard-002.parquet: row 153: invalid UTF-8" in w for w in warnings)


def _bad_row(path: Path) -> Path:
    records = jsonl_records(path)
    records[150:150] = [{"probe_id": "ds-001", "response": "x", "sample": -1}]
    return write_parquet(path.with_suffix(".parquet"), records, row_group_size=40)


def _wrong_type(path: Path) -> Path:
    table = pq.read_table(to_parquet(path))
    sample = table.schema.get_field_index("sample")
    table = table.set_column(sample, "sample", pc.cast(table["sample"], pa.float64()))
    pq.write_table(table, path.with_suffix(".parquet"))
    return path.with_suffix(".parquet")


def _not_parquet(path: Path) -> Path:
    return Path(shutil.copy(path, path.with_suffix(".parquet")))


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (_bad_row, "shard-003.parquet: row 151: field 'sample': Input should be greater"),
        (_wrong_type, "shard-003.parquet: field 'sample': column has type double, expected an"),
        (_not_parquet, "shard-003.parquet: not a Parquet file ("),
    ],
    ids=["bad-row", "wrong-column-type", "not-parquet"],
)
def test_bad_parquet_gives_the_in_process_error_and_no_file(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    tmp_path: Path,
    damage: Callable[[Path], Path],
    expected: str,
) -> None:
    copies = [Path(shutil.copy(p, tmp_path / p.name)) for p in awkward_shards]
    copies[3] = damage(copies[3])
    with pytest.raises(InputError) as in_process:
        in_process_report(probes, packs, copies)
    output = tmp_path / "report.json"
    with pytest.raises(InputError) as distributed:
        score_on_cluster(client, probes, packs, copies, output)
    assert str(distributed.value) == str(in_process.value)
    assert expected in str(distributed.value)
    assert not output.exists() and not list(tmp_path.glob(".report.json*"))
