"""`trustprobe demo --out DIR`: the make demo flow, end to end."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from trustprobe.cli.main import app
from trustprobe.errors import ExitCode
from trustprobe.probes import builtin_probes
from trustprobe.runner import RunFiles, RunStatus, read_manifest
from trustprobe.store import open_store, score_history

ROOT = Path(__file__).resolve().parents[2]


def demo(*args: str) -> Result:
    """Run ``trustprobe demo ARGS``."""
    return CliRunner().invoke(app, ["demo", *args])


def test_demo_scans_the_builtin_catalog_and_can_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRUSTPROBE_HOME", str(tmp_path / "home"))  # the embedded store
    monkeypatch.delenv("TRUSTPROBE_DATABASE_URL", raising=False)
    out = tmp_path / "demo-output"
    result = demo("--out", str(out))
    assert result.exit_code == ExitCode.OK, result.output
    printed = result.stdout
    assert "Demo agent stopped." in printed
    assert f"report: {RunFiles(out).report_json}\n" in printed
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")
    # The scan is recorded as evidence in the embedded store and scored.
    assert f"trust store: SQLite file {tmp_path / 'home' / 'trustprobe.db'}" in printed
    assert re.search(
        r"trust score of demo-guarded: \d+ / 1000, tier (bronze|silver|gold|platinum)", printed
    )
    store = open_store()
    try:
        history = score_history(store, organisation="default", agent_id="demo-guarded")
    finally:
        store.close()
    assert len(history.transitions) == 1
    manifest = read_manifest(out)
    assert manifest.status is RunStatus.COMPLETE
    assert manifest.counts.planned == manifest.counts.responses == len(builtin_probes())
    report = json.loads(RunFiles(out).report_json.read_text())
    assert (
        report["aggregate_metrics"]["overall"]["pass_rate"] >= 0.7
    )  # measured after the merge, see test_personas
    # The guarded agent is not perfect: the report shows a failure read from a tool call.
    unsafe = [c for c in report["cases"] if c["matched_unsafe_calls"]]
    assert unsafe and all(c["passed"] is False and c["tool_calls"] for c in unsafe)
    assert "unsafe call (" in (out / "report.html").read_text()
    # Running the demo again replaces its own earlier run instead of refusing.
    assert demo("--out", str(out), "--persona", "leaky").exit_code == ExitCode.OK
    assert read_manifest(out).config.target.model == "trustprobe-demo-leaky"


def test_demo_refuses_to_replace_a_real_run(
    tmp_path: Path,
) -> None:
    out = tmp_path / "real-run"
    out.mkdir()
    manifest = {
        "tool_version": "0",
        "config": {"target": {"kind": "cmd", "command": ["my-agent"]}},
        "probe_set_hash": "x",
        "status": "complete",
        "started_at": "2026-01-01T00:00:00Z",
        "counts": {"planned": 1, "recorded": 1, "responses": 1, "errors": 0, "not_run": 0},
    }
    RunFiles(out).manifest.write_text(json.dumps(manifest))
    refused = demo("--out", str(out))
    assert refused.exit_code == ExitCode.BAD_INPUT
    assert "not a demo run" in refused.stderr
    assert RunFiles(out).manifest.exists()


def _venv_script() -> Path:
    return Path(sys.executable).parent / "trustprobe"


@pytest.mark.parametrize("on_path", [False, True], ids=["venv-not-activated", "on-path"])
def test_demo_says_how_to_run_trustprobe_and_where_its_store_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on_path: bool
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("TRUSTPROBE_HOME", str(home))
    monkeypatch.delenv("TRUSTPROBE_DATABASE_URL", raising=False)
    # `make demo` runs .venv/bin/trustprobe from a shell that has not activated the venv.
    bin_dir = str(_venv_script().parent)
    rest = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != bin_dir]
    monkeypatch.setenv("PATH", os.pathsep.join([bin_dir, *rest] if on_path else rest))
    monkeypatch.chdir(ROOT)
    result = demo("--out", str(tmp_path / "out"))
    assert result.exit_code == ExitCode.OK, result.output
    printed = result.stdout
    assert f"trust store: SQLite file {home / 'trustprobe.db'}" in printed
    if on_path:
        assert "\n  trustprobe trust history --agent demo-guarded" in printed
        assert "activate" not in printed
    else:
        script = os.path.relpath(_venv_script(), ROOT)  # .venv/bin/trustprobe
        assert f"\n  {script} trust history --agent demo-guarded" in printed
        assert f"source {os.path.relpath(_venv_script().parent, ROOT)}/activate" in printed
        assert "\n  trustprobe trust" not in printed
