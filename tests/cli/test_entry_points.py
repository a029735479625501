"""Each way to start trustprobe, once, in a real process; other CLI tests run it in process.

The entry points are the console script (``[project.scripts]``), ``python -m trustprobe`` and
``python -m trustprobe.demo``. Each test checks that the process starts the command and that its
exit status is the one a shell or CI job sees.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.test_gates_cli import RESPONSES
from tests.cli.test_score_cli import PROBES, write_jsonl


def _run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    # A real process per entry point: how it starts and exits is what is tested.
    return subprocess.run(
        [*map(str, command)], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_console_script_exits_1_on_a_failed_gate(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "trustprobe"
    probes = write_jsonl(tmp_path / "probes.jsonl", PROBES)
    responses = write_jsonl(tmp_path / "responses.jsonl", RESPONSES)
    done = _run(
        script, "score", "-p", probes, "-r", responses, "-o", "report.json", "--fail-under", "0.9",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "gate FAILED: pass rate 50.0% is below --fail-under 90.0%" in done.stderr
    assert "trustprobe summary" in done.stdout
    assert (tmp_path / "report.json").exists()


def test_python_m_trustprobe_exits_2_on_bad_input(tmp_path: Path) -> None:
    probes = write_jsonl(tmp_path / "probes.jsonl", [{**PROBES[0], "severity": "dire"}])
    done = _run(sys.executable, "-m", "trustprobe", "probes", "validate", probes, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"{probes}:1: field 'severity'" in done.stderr
    assert "Traceback" not in done.stderr


def test_python_m_trustprobe_demo_is_the_demo_command(tmp_path: Path) -> None:
    done = _run(sys.executable, "-m", "trustprobe.demo", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    flat = " ".join(done.stdout.replace("│", " ").split())
    assert "Scan the built-in demo agent, write the reports and record the run" in flat
    assert "--out" in flat
