"""A real ``dask scheduler`` and two ``dask worker`` processes on loopback, driven by the CLI.

The cluster runs in its own processes; the command that drives it runs in this one.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client

from tests.cli.in_process import Cli
from tests.distributed.conftest import write_awkward_shards

DASK = Path(sys.executable).parent / "dask"
START_TIMEOUT_S = 90


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM what we started, then SIGKILL its session (our own process groups) if needed."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + 3
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``tcp://127.0.0.1:PORT`` of a scheduler (free port chosen by the OS) with two workers."""
    directory = tmp_path_factory.mktemp("dask")
    scheduler_file = directory / "scheduler.json"
    log = (directory / "cluster.log").open("wb")
    processes: list[subprocess.Popen[bytes]] = []

    def start(*args: str | Path) -> None:
        processes.append(
            subprocess.Popen(
                [str(DASK), *map(str, args)],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=directory,
                start_new_session=True,
            )
        )

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", scheduler_file)  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT_S
        while not scheduler_file.exists():
            assert processes[0].poll() is None, (directory / "cluster.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        for number in range(2):
            start("worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard",
                  "--local-directory", directory / f"worker-{number}")  # fmt: skip
        with Client(address, timeout=START_TIMEOUT_S) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT_S)
        yield address
    finally:
        _stop(processes)
        log.close()


def _without_times(text: str) -> str:
    return re.sub(r'"created_at": "[^"]+"', '"created_at": ""', text)


def test_cli_on_scheduler_and_two_worker_processes_matches_in_process(
    cli: Cli, scheduler: str, tmp_path: Path
) -> None:
    shards = write_awkward_shards(tmp_path / "shards", cases=600, shards=5)
    listed = [arg for path in shards for arg in ("-r", path.relative_to(tmp_path))]
    local = cli("score", "-p", "builtin", *listed, "-o", "local.json", "--markdown", "local.md")
    assert local.returncode == 0, local.stderr
    on_cluster = cli(
        "score", "-p", "builtin", "-r", "shards/*.jsonl", "-o", "dask.json",
        "--markdown", "dask.md", "--engine", "dask", "--scheduler", scheduler,
    )  # fmt: skip
    assert on_cluster.returncode == 0, on_cluster.stderr

    dask_report = (tmp_path / "dask.json").read_text(encoding="utf-8")
    local_report = (tmp_path / "local.json").read_text(encoding="utf-8")
    assert _without_times(dask_report) == _without_times(local_report)
    assert dask_report != local_report  # only the creation times differ, and they do
    report = json.loads(dask_report)
    assert len(report["cases"]) == report["aggregate_metrics"]["counts"]["cases"] == 601
    assert report["provenance"]["sources"]["responses"] == [
        str(p.relative_to(tmp_path)) for p in shards
    ]
    markdown = [(tmp_path / name).read_text().splitlines() for name in ("local.md", "dask.md")]
    assert [line for line in markdown[0] if not line.startswith("Created")] == [
        line for line in markdown[1] if not line.startswith("Created")
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--engine", "spark"), "unknown engine 'spark'"),
        (("--engine", "dask", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"),
         "give --scheduler or --workers, not both"),
        (("--engine", "dask", "--workers", "1", "-r", "nothing/*.jsonl"),
         "nothing/*.jsonl: no file matches"),
        (("--workers", "2"), "--workers needs --engine dask"),
    ],
    ids=["unknown-engine", "scheduler-and-workers", "pattern-matching-nothing", "workers-alone"],
)  # fmt: skip
def test_cli_refuses_bad_engine_options(
    cli: Cli, tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    # These are refused before any cluster is started or reached.
    (tmp_path / "r.jsonl").write_text('{"probe_id": "ds-001", "response": "ok"}\n')
    result = cli("score", "-p", "builtin", "-r", "r.jsonl", "-o", "out.json", *options)
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "out.json").exists()
