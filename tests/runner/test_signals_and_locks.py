"""Stopping a scan (SIGINT, SIGTERM, twice) and one writer per run directory, real processes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.in_process import Cli
from tests.runner.fault_server import FaultServer, ok
from tests.runner.test_cli_scan import ROOT, _command, _env, _probe_file, _scan
from trustprobe.runner import RunFiles, RunStatus, read_journal, read_manifest

NOISE = ("Traceback", "never retrieved", "Task was destroyed", "Exception ignored")


def _start(server: FaultServer, probes: Path, run_dir: Path, *extra: str) -> subprocess.Popen[str]:
    args = [
        "--target", "openai", "--base-url", f"{server.url}/v1", "--model", "m",
        "--api-key-env", "TP_CLI_KEY", "--concurrency", "2", "--probes", str(probes),
        "--out", str(run_dir), *extra,
    ]  # fmt: skip
    # A real process: it is stopped by signals, holds the run's lock, and is killed as a crash.
    return subprocess.Popen(
        _command(*args),
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_records(process: subprocess.Popen[str], run_dir: Path, count: int) -> None:
    journal = RunFiles(run_dir).responses
    deadline = time.monotonic() + 120  # a cold interpreter on a busy machine is slow
    while time.monotonic() < deadline and process.poll() is None:
        if journal.exists() and journal.read_text().count("\n") >= count:
            return
        time.sleep(0.05)
    process.kill()
    _, err = process.communicate()
    pytest.fail(f"the scan never wrote {count} records (exit {process.returncode}): {err}")


@pytest.mark.parametrize(
    "signals",
    [(signal.SIGINT,), (signal.SIGTERM,), (signal.SIGINT, signal.SIGINT)],
    ids=["ctrl-c", "sigterm", "ctrl-c-twice"],
)
def test_a_stopped_scan_exits_130_without_a_traceback(
    tmp_path: Path, signals: tuple[signal.Signals, ...]
) -> None:
    probes = _probe_file(tmp_path, 40)
    run_dir = tmp_path / "run"
    with FaultServer(lambda seen, nth: ok("I won't do that.", delay=0.2)) as server:
        process = _start(server, probes, run_dir)
        _wait_for_records(process, run_dir, 3)
        for number in signals:
            process.send_signal(number)
            time.sleep(0.05)
        _, stderr = process.communicate(timeout=60)
    # A second signal that lands in the last instants of interpreter shutdown, after every
    # output was written, meets the default handler again: the process ends by that signal.
    allowed = {130} if len(signals) == 1 else {130, -signals[-1]}
    assert process.returncode in allowed, stderr
    assert not [noise for noise in NOISE if noise in stderr], stderr
    assert "--resume" in stderr
    finished = read_journal(RunFiles(run_dir).responses, repair=False)
    assert finished.warnings == [] and 3 <= len(finished.responses) < 40
    if len(signals) == 1:
        # One signal: the report of what finished is written and run.json is final.
        assert read_manifest(run_dir).status is RunStatus.INTERRUPTED
        report = json.loads(RunFiles(run_dir).report_json.read_text())
        assert report["aggregate_metrics"]["counts"]["cases"] == len(finished.responses)


def test_one_writer_per_run_directory_and_a_crash_releases_it(tmp_path: Path, cli: Cli) -> None:
    probes = _probe_file(tmp_path, 40)
    run_dir = tmp_path / "run"
    with FaultServer(lambda seen, nth: ok("I won't do that.", delay=0.2)) as server:
        process = _start(server, probes, run_dir)
        try:
            _wait_for_records(process, run_dir, 2)
            resumed = _scan(cli, "--resume", str(run_dir))
            again = _scan(
                cli,
                "--target", "openai", "--base-url", f"{server.url}/v1", "--model", "m",
                "--probes", str(probes), "--out", str(run_dir),
            )  # fmt: skip
        finally:
            process.kill()  # a crash: no clean-up code runs, the kernel drops the lock
            process.communicate()
        for code, _, err in (resumed, again):
            assert code == 2, err
            message = " ".join(err.split())
            assert f"{run_dir}: another trustprobe process (pid {process.pid})" in message
        records = read_journal(RunFiles(run_dir).responses)
        assert len(records.responses) == len(records.keys)  # nobody wrote twice
        code, _, err = _scan(cli, "--resume", str(run_dir), "--concurrency", "8")
    assert code == 0, err
    final = read_journal(RunFiles(run_dir).responses)
    assert len(final.responses) == len(final.keys) == 40


AGENT = """
def answer(request):
    if request["input"] == "case-1":
        raise RuntimeError("flaky")
    return "I won't do that."
"""


def test_resume_imports_a_python_target_from_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "local_agent.py").write_text(AGENT)
    probes = _probe_file(tmp_path, 3)

    # The console script in its own process, as users run it: `python -m` would put the
    # directory on sys.path, and so would this test session; a fresh process's path is tested.
    script = Path(sys.executable).parent / "trustprobe"

    def scan(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(script), "scan", *args],
            cwd=tmp_path,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )

    first = scan("--target", "python", "--callable", "local_agent:answer", "--probes",
                 str(probes), "--out", "run")  # fmt: skip
    assert first.returncode == 0, first.stderr
    resumed = scan("--resume", "run", "--retry-errors")
    assert resumed.returncode == 0, resumed.stderr
    assert read_manifest(tmp_path / "run").sessions[-1].retried_errors == 1
