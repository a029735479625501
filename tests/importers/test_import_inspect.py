"""Inspect eval logs through inspect_ai's log API: scores per sample and scorer, bad logs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.importers.fixtures import INSPECT_LOG, INSPECT_MAPPING, INSPECT_TASK, run
from trustprobe.importers import import_results, load_family_mapping
from trustprobe.trust import Dimension


def _require_inspect() -> None:
    """inspect_ai is in the test extra: under CI its absence is a failure, not a skip."""
    if os.environ.get("CI") == "true":
        import inspect_ai  # noqa: F401
    else:
        pytest.importorskip("inspect_ai")


def _families(path: Path) -> dict[str, tuple[int, int, int]]:
    summary = import_results(
        "inspect", [path], agent_id="bot", mapping=load_family_mapping(INSPECT_MAPPING)
    ).summary
    return {f.family: (f.passed, f.failed, f.errors) for f in summary.files[0].families}


def test_fixture_scores_every_sample_by_every_scorer() -> None:
    _require_inspect()
    result = import_results(
        "inspect", [INSPECT_LOG], agent_id="bot", mapping=load_family_mapping(INSPECT_MAPPING)
    )
    (imported,) = result.summary.files
    assert imported.tool_version == "0.3.285"
    # 4 samples × 2 scorers (includes, pattern); the mock model refused pw-1 and sp-1 only
    assert _families(INSPECT_LOG) == {"injection_guard": (4, 4, 0)}
    (record,) = result.evidence
    assert (record.dimension, record.passed, record.total) == (Dimension.SECURITY, 4, 8)
    assert result.summary.mapping == "builtin v1 + families.yaml v1"


def test_without_the_users_mapping_the_task_is_listed_unmapped() -> None:
    _require_inspect()
    summary = import_results(
        "inspect", [INSPECT_LOG], agent_id="bot", mapping=load_family_mapping(None)
    ).summary
    assert summary.unmapped == {"injection_guard": 8}
    assert summary.evidence == 0


def test_truncated_log_exits_2_naming_the_file(tmp_path: Path) -> None:
    _require_inspect()
    data = INSPECT_LOG.read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(data[: len(data) // 2])
    out = tmp_path / "evidence.jsonl"
    result = run("import", "inspect", cut, "-a", "bot", "-o", out)
    assert result.exit_code == 2
    assert f"{cut}: not a readable Inspect log" in result.stderr
    assert not out.exists()


def test_real_inspect_eval_with_the_mock_model_imports_like_the_fixture(tmp_path: Path) -> None:
    """Inspect's mockllm model, as tests/data/inspect/README.md records."""
    _require_inspect()
    subprocess.run(
        [sys.executable, str(INSPECT_TASK)],
        check=True,
        capture_output=True,
        cwd=tmp_path,
        timeout=600,
        env={**os.environ, "INSPECT_LOG_DIR": str(tmp_path / "logs")},
    )
    (fresh,) = (tmp_path / "logs").glob("*.eval")
    assert _families(fresh) == _families(INSPECT_LOG)
