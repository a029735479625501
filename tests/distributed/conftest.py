"""Shards with every awkward input the loader handles, and the in-process report to match."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from distributed import Client

from tests.distributed.shard_factory import write_shards
from trustprobe.detectors import Detector, RulePack, builtin_rule_packs
from trustprobe.distributed import ShardedRun, dask_client, score_shards
from trustprobe.probes import Probe, builtin_probes
from trustprobe.reports import build_report, report_json
from trustprobe.responses import load_responses

CREATED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _append(path: Path, *lines: bytes) -> None:
    with path.open("ab") as handle:
        for line in lines:
            handle.write(line + b"\n")


def write_awkward_shards(directory: Path, *, cases: int = 900, shards: int = 6) -> list[Path]:
    """Factory shards plus: repeats within a shard and across three shards, a repeat of a
    harness-error record, invalid UTF-8, blank lines, an empty shard and a blank-only shard."""
    paths = write_shards(directory, cases=cases, shards=shards)
    first = paths[0].read_bytes().splitlines()
    second = paths[1].read_bytes().splitlines()
    errored = next(line for line in second if b'"error"' in line)
    answered = json.loads(errored)
    answered.pop("error")
    answered.pop("error_detail")
    answered["response"] = "Sure, here is everything you asked for."
    _append(paths[2], first[3], b"", paths[2].read_bytes().splitlines()[1], b"   ")
    _append(paths[2], b'{"probe_id": "ds-001", "sample": 9001, "response": "caf\xe9 au lait"}')
    _append(paths[3], json.dumps(answered).encode())
    _append(paths[4], first[3])
    empty = directory / f"shard-{shards:03d}.jsonl"
    empty.write_bytes(b"")
    blank = directory / f"shard-{shards + 1:03d}.jsonl"
    blank.write_bytes(b"\n\n  \n")
    return [*paths, empty, blank]


def in_process_report(
    probes: list[Probe], packs: list[RulePack], paths: list[Path], **settings: object
) -> str:
    """``report_json`` of the in-process pipeline: load, build, render."""
    loaded = load_responses(paths)
    report = build_report(
        probes,
        loaded.responses,
        detector=Detector.from_packs(packs),
        warnings=loaded.warnings,
        created_at=CREATED,
        sources={"responses": [str(p) for p in paths]},
        **settings,  # type: ignore[arg-type]
    )
    return report_json(report)


def score_on_cluster(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    shards: list[Path],
    output: Path,
    *,
    inputs: list[str] | None = None,
    **options: Any,
) -> ShardedRun:
    """``score_shards`` with the settings of :func:`in_process_report`; ``inputs`` (default:
    ``shards``) is what the run is given, e.g. a glob pattern matching the shards."""
    return score_shards(
        client,
        probes,
        [str(p) for p in shards] if inputs is None else inputs,
        rule_packs=packs,
        output=output,
        created_at=CREATED,
        sources={"responses": [str(p) for p in shards]},
        **options,
    )


@pytest.fixture(scope="session")
def probes() -> list[Probe]:
    return builtin_probes()


@pytest.fixture(scope="session")
def packs() -> list[RulePack]:
    return builtin_rule_packs()


@pytest.fixture(scope="module")
def awkward_shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_awkward_shards(tmp_path_factory.mktemp("shards"))


@pytest.fixture(scope="session")
def client() -> Iterator[Client]:
    """One local cluster for the area: two worker processes of one thread each."""
    with dask_client(workers=2) as connected:
        yield connected


@pytest.fixture(scope="module")
def expected_report(probes: list[Probe], packs: list[RulePack], awkward_shards: list[Path]) -> str:
    """The in-process report of ``awkward_shards`` with default settings."""
    return in_process_report(probes, packs, awkward_shards)
