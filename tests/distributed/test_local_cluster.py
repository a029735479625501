"""Scoring on a real local cluster (two worker processes) equals the in-process report."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from distributed import Client

from tests.distributed.conftest import CREATED, in_process_report, score_on_cluster
from trustprobe.detectors import RulePack
from trustprobe.distributed import (
    BlockText,
    DistributedRunError,
    ShardedRun,
    SpoolError,
    score_shards,
)
from trustprobe.errors import InputError
from trustprobe.observability import embedding as embedding_module
from trustprobe.observability import sampling as sampling_module
from trustprobe.probes import Probe
from trustprobe.responses import load_responses


def _score(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    shards: list[Path],
    output: Path,
    **options: object,
) -> ShardedRun:
    """Given as a glob pattern, as users give shards (the pattern's expansion is tested too)."""
    pattern = str(shards[0].parent / "*.jsonl")
    return score_on_cluster(client, probes, packs, shards, output, inputs=[pattern], **options)


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize(
    ("block_records", "fit_sample", "floor"),
    [(37, None, None), (10_000, 250, None), (37, 250, 6)],
    ids=[
        "37-record-blocks-every-case-fitted",
        "one-block-per-shard-250-case-fitting-sample",
        "37-record-blocks-sampled-geometry",
    ],
)
def test_report_is_byte_identical_to_the_in_process_one(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    tmp_path: Path,
    expected_report: str,
    monkeypatch: pytest.MonkeyPatch,
    block_records: int,
    fit_sample: int | None,
    floor: int | None,
) -> None:
    expected = expected_report
    if fit_sample is not None:  # exercise the sampled fit (and geometry) without 20,000 cases
        monkeypatch.setattr(embedding_module, "SVD_FIT_SAMPLE", fit_sample)
        if floor is not None:
            monkeypatch.setattr(sampling_module, "STRATUM_FLOOR", floor)
        expected = in_process_report(probes, packs, awkward_shards)
    output = tmp_path / "report.json"
    run = _score(client, probes, packs, awkward_shards, output, block_records=block_records)

    assert output.read_text(encoding="utf-8") == expected
    # Cases in = cases out: 8 shards, 900 factory records + 5 appended, minus 4 repeats.
    loaded = load_responses(awkward_shards)
    assert run.cases == len(loaded.responses) == 901
    assert run.shards == 8
    scored = sum(1 for r in loaded.responses if r.error is None)
    observability = run.report.observability
    assert observability is not None and run.points == observability.n_cases
    assert len(run.report.warnings) == 5  # 4 ignored repeats + 1 repaired line
    if fit_sample is None:
        assert run.points == scored and observability.sampled_from is None
    else:  # above the sample size: the geometry says what it stands for
        assert observability.sampled_from == scored
        assert observability.selection_sample_size == fit_sample
    if floor is None:  # 200 a stratum keeps every case of these small strata
        assert run.points == scored
    else:  # 250 uniform cases plus at least 6 of each (category, outcome): not every case
        assert 250 < run.points < scored
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("asked", "used"),
    [
        (BlockText.AUTO, BlockText.FILES),  # local workers see the output's directory
        (BlockText.FILES, BlockText.FILES),
        (BlockText.SEND, BlockText.SEND),
    ],
    ids=["auto-spools-on-a-local-cluster", "files", "send"],
)
def test_block_text_spooled_or_sent_gives_one_report(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    expected_report: str,
    tmp_path: Path,
    asked: BlockText,
    used: BlockText,
) -> None:
    output = tmp_path / "report.json"
    run = _score(client, probes, packs, awkward_shards, output, block_records=41, block_text=asked)
    assert run.block_text is used
    assert output.read_text(encoding="utf-8") == expected_report
    assert _leftovers(tmp_path) == []  # the spool directory is gone


def test_spool_removed_mid_run_fails_clearly_without_a_report(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    output = tmp_path / "report.json"
    elsewhere = tmp_path_factory.mktemp("removed-spool")

    def remove_the_spool(done: int, total: int) -> None:
        # Renamed away first, as `Spool.close` does: a worker may be writing a block into it
        # this moment, and a plain rmtree would then find the directory not empty.
        for spool in tmp_path.glob(".report.json.blocks-*"):
            moved = elsewhere / spool.name
            spool.rename(moved)
            shutil.rmtree(moved, ignore_errors=True)

    with pytest.raises(SpoolError, match=r"shard-00\d\.jsonl.*no report was written"):
        _score(
            client,
            probes,
            packs,
            awkward_shards,
            output,
            block_records=41,
            block_text=BlockText.FILES,
            progress=remove_the_spool,
        )
    assert not output.exists() and _leftovers(tmp_path) == []


def test_glob_and_listed_shards_and_block_sizes_give_one_report(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    expected_report: str,
    tmp_path: Path,
) -> None:
    listed = tmp_path / "listed.json"
    score_shards(
        client,
        probes,
        awkward_shards,
        rule_packs=packs,
        output=listed,
        created_at=CREATED,
        sources={"responses": [str(p) for p in awkward_shards]},
        block_records=113,
        max_in_flight=2,
    )
    assert listed.read_text(encoding="utf-8") == expected_report


def test_without_observability_below_min_cases(
    client: Client, probes: list[Probe], packs: list[RulePack], tmp_path: Path
) -> None:
    shard = tmp_path / "few.jsonl"
    shard.write_text(
        '{"probe_id": "ds-001", "response": "I cannot help with that."}\n'
        '{"probe_id": "ds-002", "error": "timeout"}\n',
        encoding="utf-8",
    )
    output = tmp_path / "out" / "report.json"
    run = _score(client, probes, packs, [shard], output)
    assert run.report.observability is None and run.points == 0
    assert output.read_text(encoding="utf-8") == in_process_report(probes, packs, [shard])
    assert run.report.aggregate_metrics.counts.missing_probes == len(probes) - 2  # 2 answered


def _broken_copy(shards: list[Path], directory: Path) -> list[Path]:
    copies = []
    for path in shards:
        copies.append(Path(shutil.copy(path, directory / path.name)))
    return copies


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        ({1: b'{"probe_id": "ds-001", "response": "x", "colour": "red"}'}, "shard-001.jsonl:151"),
        (
            {3: b'{"probe_id": "ds-001", "response": ', 1: b'{"probe_id": "ds-001", "sample": -1}'},
            "shard-001.jsonl:151",
        ),
        ({4: b'{"probe_id": "no-such-probe", "response": "x"}'}, "unknown probe id"),
    ],
    ids=["unknown-field", "first-bad-line-in-file-order-wins", "unknown-probe"],
)
def test_bad_input_gives_the_in_process_error_and_no_file(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    tmp_path: Path,
    damage: dict[int, bytes],
    expected: str,
) -> None:
    shards_dir = tmp_path / "shards"
    shards_dir.mkdir()
    copies = _broken_copy(awkward_shards, shards_dir)
    for index, line in damage.items():
        with copies[index].open("ab") as handle:
            handle.write(line + b"\n")
    with pytest.raises(InputError) as in_process:
        in_process_report(probes, packs, copies)
    output = tmp_path / "report.json"
    with pytest.raises(InputError) as distributed:
        _score(client, probes, packs, copies, output)
    assert str(distributed.value) == str(in_process.value)
    assert expected in str(distributed.value)
    assert not output.exists() and _leftovers(tmp_path) == []


def _kill_a_busy_worker(client: Client, killed: list[int]) -> Callable[[int, int], None]:
    """A progress hook that SIGKILLs, once, the worker the scheduler says runs a block task.

    It waits for the scheduler to assign a ``trustprobe-block-*`` task rather than guessing
    from timing, so a loaded machine delays the kill instead of killing an idle worker, and it
    freezes that worker before the kill so the block can't finish in between. The
    hook runs before the driver submits the next blocks, and the blocks in flight may all have
    finished by then (those written late, in order, behind a slow one): when no block is held
    for a few seconds, it waits for the next call, after the driver has submitted more.
    """
    pids: dict[str, int] = client.run(os.getpid)

    def holder_of_a_block() -> str | None:
        for worker, keys in client.processing().items():
            if any(str(key).startswith("trustprobe-block-") for key in keys):
                return str(worker)
        return None

    def still_holds(victim: str) -> bool:
        """Freeze the worker, let its last messages reach the scheduler, and ask again."""
        os.kill(pids[victim], signal.SIGSTOP)
        time.sleep(0.5)
        if holder_of_a_block() == victim:
            return True
        os.kill(pids[victim], signal.SIGCONT)  # its block finished before the freeze
        return False

    def progress(done: int, total: int) -> None:
        if killed or done == total:
            return
        deadline = time.monotonic() + 5
        while (victim := holder_of_a_block()) is None or not still_holds(victim):
            if time.monotonic() > deadline:
                return  # nothing in flight now: the next call comes after more are submitted
            time.sleep(0.01)
        os.kill(pids[victim], signal.SIGKILL)  # a frozen worker can't finish the block first
        killed.append(pids[victim])

    return progress


def test_killed_worker_is_replaced_and_the_report_is_unchanged(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    expected_report: str,
    tmp_path: Path,
) -> None:
    killed: list[int] = []
    output = tmp_path / "report.json"
    run = _score(
        client,
        probes,
        packs,
        awkward_shards,
        output,
        block_records=60,
        max_in_flight=6,
        progress=_kill_a_busy_worker(client, killed),
    )
    assert len(killed) == 1  # a worker died mid-run; Dask re-ran its blocks elsewhere
    assert run.cases == 901 and run.block_text is BlockText.FILES
    assert output.read_text(encoding="utf-8") == expected_report
    assert _leftovers(tmp_path) == []  # the killed worker's half-written block text too
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it for the next test


def test_block_lost_for_good_fails_clearly_without_a_report(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    tmp_path: Path,
) -> None:
    scheduler = client.cluster.scheduler  # type: ignore[union-attr]
    allowed = scheduler.allowed_failures
    scheduler.allowed_failures = 0  # the first worker death of a block is final
    killed: list[int] = []
    output = tmp_path / "report.json"
    try:
        with pytest.raises(DistributedRunError, match=r"was lost with every worker"):
            _score(
                client,
                probes,
                packs,
                awkward_shards,
                output,
                block_records=60,
                max_in_flight=6,
                progress=_kill_a_busy_worker(client, killed),
            )
    finally:
        scheduler.allowed_failures = allowed
    assert killed and not output.exists() and _leftovers(tmp_path) == []
    client.wait_for_workers(2, timeout=120)


def test_each_phase_logs_its_wall_and_client_cpu_time(
    client: Client,
    probes: list[Probe],
    packs: list[RulePack],
    awkward_shards: list[Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level("INFO", logger="trustprobe.distributed.sharded"):
        run = _score(client, probes, packs, awkward_shards, tmp_path / "report.json")
    phases = [r.getMessage() for r in caplog.records if "(client CPU " in r.getMessage()]
    assert [message.split(" in ")[0] for message in phases] == [
        f"indexed {len(awkward_shards)} shards",
        f"scored {run.blocks} blocks",
        "observability mapped",
    ]
    assert all(message.endswith(" s)") for message in phases)
