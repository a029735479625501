"""Scoring sharded responses on Dask: throughput against one in-process core, and memory.

Workload: ``--cases`` (default 2,000,000) synthetic responses to the 282 built-in probes in
``--shards`` (default 20) JSONL files, written by ``tests/distributed/shard_factory.py`` with
seed 7: refusals, partial refusals, helpful answers, leaks, 3 % harness errors. With
``--format parquet`` the same records go to Parquet files instead (row groups of
``--row-group-size`` rows, default pyarrow's), read in process and on Dask alike.

Every measurement runs in a fresh subprocess, so each peak RSS (``getrusage`` ``ru_maxrss``)
belongs to that measurement alone:

* ``in-process`` (the baseline): ``stream_report``, exactly what ``trustprobe score`` runs,
  pinned to one core, on the first ``--small-shards`` shards (default 4, i.e. 400,000 cases;
  it streams, so its memory does not depend on that choice);
* ``dask`` on the same small input, twice: a ``LocalCluster`` of ``--workers`` (default 2)
  worker processes with one thread each, then ``score_shards`` with the blocks' text sent back
  with their results (``BlockText.SEND``), and written by the workers to files beside the
  output (``BlockText.FILES``, what a local cluster uses). Client and scheduler share the same
  two cores. Each report is checked to be byte-identical to the baseline's;
* ``dask`` on every shard (``--cases``): the peak RSS of each worker process, and of the
  client, against the small run's shows whether memory depends on the total.

Run: ``.venv/bin/python -m benchmarks distributed [--cases N] [--shards S] [--small-shards K]
[--format jsonl|parquet]``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CREATED = "2026-01-01T00:00:00+00:00"


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            sha.update(chunk)
    return sha.hexdigest()


def _shards(directory: Path, count: int) -> list[Path]:
    """The first ``count`` shards of ``directory``: its JSONL ones, or else its Parquet ones."""
    found = sorted(directory.glob("shard-*.jsonl")) or sorted(directory.glob("shard-*.parquet"))
    return found[:count]


def child_generate(
    directory: Path, cases: int, shards: int, parquet: bool, row_group_size: int | None
) -> dict[str, Any]:
    from tests.distributed.shard_factory import write_shards

    started = time.perf_counter()
    write_shards(
        directory, cases=cases, shards=shards, parquet=parquet, row_group_size=row_group_size
    )
    return {"seconds": time.perf_counter() - started}


def child_in_process(directory: Path, shards: int, output: Path) -> dict[str, Any]:
    from datetime import datetime

    from trustprobe.cli.collection import bulk_collection
    from trustprobe.detectors import Detector, builtin_rule_packs
    from trustprobe.probes import builtin_probes
    from trustprobe.reports import stream_report

    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    paths = _shards(directory, shards)
    probes, packs = builtin_probes(), builtin_rule_packs()
    started, cpu = time.perf_counter(), time.process_time()
    with bulk_collection():  # as ``trustprobe score`` runs it
        report = stream_report(
            probes,
            paths,
            output,
            detector=Detector.from_packs(packs),
            created_at=datetime.fromisoformat(CREATED),
            sources={"responses": [str(p) for p in paths]},
        )
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu,
        "cases": report.aggregate_metrics.counts.cases,
        "peak_rss_mb": _peak_rss_mb(),
        "sha256": _digest(output),
        "load_average": os.getloadavg()[0],
    }


def child_dask(
    directory: Path, shards: int, workers: int, output: Path, block_text: str
) -> dict[str, Any]:
    import logging
    from datetime import datetime

    from trustprobe.cli.collection import bulk_collection
    from trustprobe.detectors import builtin_rule_packs
    from trustprobe.distributed import BlockText, dask_client, score_shards
    from trustprobe.probes import builtin_probes

    logging.basicConfig(level=logging.INFO, format="    %(message)s", stream=sys.stderr)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    paths = _shards(directory, shards)
    probes, packs = builtin_probes(), builtin_rule_packs()
    # The cluster the CLI starts for ``--engine dask --workers N``, collecting as it does.
    with dask_client(workers=workers) as client, bulk_collection():
        client.wait_for_workers(workers)
        # The baseline imported trustprobe before its clock started; so do the workers.
        client.run(importlib.import_module, "trustprobe.distributed.job")
        rss_before = _peak_rss_mb()
        worker_cpu = client.run(time.process_time)
        started, cpu = time.perf_counter(), time.process_time()
        run = score_shards(
            client,
            probes,
            paths,
            rule_packs=packs,
            output=output,
            created_at=datetime.fromisoformat(CREATED),
            sources={"responses": [str(p) for p in paths]},
            block_text=BlockText(block_text),
        )
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        worker_cpu_after = client.run(time.process_time)
        worker_peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return {
        "seconds": seconds,
        "block_text": str(run.block_text),
        "cases": run.cases,
        "blocks": run.blocks,
        "client_peak_rss_mb": _peak_rss_mb(),
        "client_rss_before_run_mb": rss_before,
        "worker_peak_rss_mb": sorted(worker_peaks.values()),
        "worker_cpu_seconds": sorted(worker_cpu_after[w] - worker_cpu[w] for w in worker_cpu),
        "client_cpu_seconds": cpu,
        "load_average": os.getloadavg()[0],
        "sha256": _digest(output),
    }


def _child(*args: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "benchmarks.bench_distributed", "--child", *args]
    done = subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _print_dask(result: dict[str, Any], shards: int, workers: int) -> None:
    peaks = ", ".join(f"{p:,.0f}" for p in result["worker_peak_rss_mb"])
    cpus = " + ".join(f"{c:.1f}" for c in result["worker_cpu_seconds"])
    print(
        f"dask, {workers} workers, block text {result['block_text']}, {result['cases']:,} cases"
        f" in {shards} shards ({result['blocks']} blocks): {result['seconds']:.1f} s wall, "
        f"{result['cases'] / result['seconds']:,.0f} cases/s; CPU: workers {cpus} s, client and"
        f" scheduler {result['client_cpu_seconds']:.1f} s; peak RSS: workers {peaks} MB, client"
        f" {result['client_peak_rss_mb']:,.0f} MB; load average after {result['load_average']:.1f}"
    )


def _print_in_process(base: dict[str, Any]) -> None:
    print(
        f"in-process, 1 core, {base['cases']:,} cases: {base['seconds']:.1f} s wall, "
        f"{base['cpu_seconds']:.1f} s CPU, {base['cases'] / base['seconds']:,.0f} cases/s,"
        f" peak RSS {base['peak_rss_mb']:,.0f} MB; load average after {base['load_average']:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="benchmarks distributed")
    parser.add_argument("--cases", type=int, default=2_000_000)
    parser.add_argument("--shards", type=int, default=20)
    parser.add_argument("--small-shards", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="alternating small-input rounds")
    parser.add_argument("--data", type=Path, default=None, help="reuse/keep shards here")
    parser.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl")
    parser.add_argument("--row-group-size", type=int, default=0, help="Parquet; 0: pyarrow's")
    options, _ = parser.parse_known_args()
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load:.1f}")
    data = options.data or Path(tempfile.mkdtemp(prefix="trustprobe-bench-shards-"))
    scratch = Path(tempfile.mkdtemp(prefix="trustprobe-bench-out-"))
    small, workers = options.small_shards, str(options.workers)
    try:
        if not _shards(data, options.shards):
            made = _child(
                "generate", str(data), str(options.cases), str(options.shards), options.format,
                str(options.row_group_size),
            )  # fmt: skip
            print(
                f"generated {options.cases:,} cases in {options.shards} shards "
                f"in {made['seconds']:.0f} s (not timed below)"
            )
        inputs = _shards(data, options.shards)
        size_mb = sum(p.stat().st_size for p in inputs) / 2**20
        kind = "Parquet" if inputs[0].suffix == ".parquet" else "JSONL"
        print(f"input: {size_mb:,.0f} MiB of {kind}")
        bases: list[dict[str, Any]] = []
        smalls: dict[str, list[dict[str, Any]]] = {"send": [], "files": []}
        # Alternate them on the same input, so a busy spell on a shared machine hits each.
        for _ in range(options.rounds):
            base = _child("in-process", str(data), str(small), str(scratch / "in-process.json"))
            _print_in_process(base)
            bases.append(base)
            for mode, runs in smalls.items():
                out = str(scratch / f"small-{mode}.json")
                result = _child("dask", str(data), str(small), workers, out, mode)
                _print_dask(result, small, options.workers)
                runs.append(result)
        out = str(scratch / "full.json")
        full = _child("dask", str(data), str(options.shards), workers, out, "auto")
        _print_dask(full, options.shards, options.workers)

        base = min(bases, key=lambda r: r["seconds"])
        best = {mode: min(runs, key=lambda r: r["seconds"]) for mode, runs in smalls.items()}
        for mode, run in best.items():
            print(
                f"speed-up at {base['cases']:,} cases, {options.workers} workers (block text"
                f" {mode}) vs 1 in-process core, best of {options.rounds} each:"
                f" {base['seconds'] / run['seconds']:.2f}x wall"
            )
        # What two otherwise idle cores would give: all CPU of the distributed run (workers,
        # client, scheduler) shared by two cores, against the in-process CPU on one.
        labelled = [(f"small, block text {mode}", run) for mode, run in best.items()]
        for label, run in [*labelled, ("full", full)]:
            total = sum(run["worker_cpu_seconds"]) + run["client_cpu_seconds"]
            per_case = total / run["cases"] / options.workers
            alone = base["cpu_seconds"] / base["cases"]
            print(
                f"CPU per case, {label} run: in-process {alone * 1e6:.0f} us on 1 core; dask "
                f"{total / run['cases'] * 1e6:.0f} us in all = {per_case * 1e6:.0f} us on "
                f"{options.workers} cores -> {alone / per_case:.2f}x if the cores were idle"
            )
        same = {r["sha256"] for r in [*bases, *smalls["send"], *smalls["files"]]}
        print(f"dask reports byte-identical to the in-process ones: {len(same) == 1}")
        small_run = best["files"]
        growth = max(full["worker_peak_rss_mb"]) - max(small_run["worker_peak_rss_mb"])
        print(
            f"worker peak RSS, {full['cases']:,} vs {small_run['cases']:,} cases:"
            f" {growth:+,.0f} MB; client:"
            f" {full['client_peak_rss_mb'] - small_run['client_peak_rss_mb']:+,.0f} MB"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if options.data is None:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        mode, *rest = sys.argv[2:]
        if mode == "generate":
            parquet, row_group_size = rest[3] == "parquet", int(rest[4]) or None
            out = child_generate(Path(rest[0]), int(rest[1]), int(rest[2]), parquet, row_group_size)
        elif mode == "in-process":
            out = child_in_process(Path(rest[0]), int(rest[1]), Path(rest[2]))
        else:
            out = child_dask(Path(rest[0]), int(rest[1]), int(rest[2]), Path(rest[3]), rest[4])
        print(json.dumps(out))
    else:
        main()
