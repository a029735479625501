import subprocess
import sys
from pathlib import Path

import pytest

from trustprobe.trust import (
    DIMENSION_WEIGHTS,
    Dimension,
    WeightSumError,
    check_weight_sum,
)
from trustprobe.trust import dimensions as dimensions_module

SEED_TABLE = [
    ("accuracy", 0.11),
    ("reliability", 0.10),
    ("safety", 0.09),
    ("selfAudit", 0.07),
    ("security", 0.07),
    ("latency", 0.07),
    ("bond", 0.06),
    ("scopeHonesty", 0.06),
    ("memoryQuality", 0.06),
    ("costEfficiency", 0.05),
    ("evalRigor", 0.05),
    ("teamwork", 0.05),
    ("modelCompliance", 0.04),
    ("runtimeCompliance", 0.04),
    ("harnessStability", 0.04),
    ("skillMastery", 0.04),
]


def test_dimensions_are_the_seeds_names_in_its_order() -> None:
    assert [d.value for d in Dimension] == [name for name, _ in SEED_TABLE]


def test_weights_are_the_seeds_table() -> None:
    assert [(d.value, w) for d, w in DIMENSION_WEIGHTS.items()] == SEED_TABLE
    # 0.11 + 0.10 + 0.09 + 3 × 0.07 + 3 × 0.06 + 3 × 0.05 + 4 × 0.04 = 1.00
    assert check_weight_sum(DIMENSION_WEIGHTS) == pytest.approx(1.0, abs=1e-12)


def test_weights_are_read_only() -> None:
    with pytest.raises(TypeError):
        DIMENSION_WEIGHTS[Dimension.ACCURACY] = 0.5  # type: ignore[index]


def test_guard_tolerates_a_thousandth() -> None:
    nearly = dict(DIMENSION_WEIGHTS) | {Dimension.ACCURACY: 0.1091}  # sum 0.9991: within ± 0.001
    assert check_weight_sum(nearly) == pytest.approx(0.9991)
    off = dict(DIMENSION_WEIGHTS) | {Dimension.ACCURACY: 0.1120}  # sum 1.0020: outside
    with pytest.raises(WeightSumError, match=r"must sum to 1\.0, got 1\.0020"):
        check_weight_sum(off)


def test_guard_refuses_a_missing_dimension() -> None:
    partial = {d: w for d, w in DIMENSION_WEIGHTS.items() if d is not Dimension.TEAMWORK}
    with pytest.raises(WeightSumError, match="teamwork"):
        check_weight_sum(partial)


def _run_module_copy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    copy = tmp_path / "dimensions_copy.py"
    copy.write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(copy)], capture_output=True, text=True, timeout=60, check=False
    )


def test_import_guard_crashes_on_a_broken_table(tmp_path: Path) -> None:
    source = Path(dimensions_module.__file__).read_text(encoding="utf-8")
    assert source.count("Dimension.ACCURACY: 0.11,") == 1
    intact = _run_module_copy(tmp_path, source)
    assert intact.returncode == 0, intact.stderr  # the copy itself loads: only the edit breaks it
    # A 17th-dimension-style slip: accuracy 0.12 makes the table sum to 1.01.
    broken = _run_module_copy(
        tmp_path, source.replace("Dimension.ACCURACY: 0.11,", "Dimension.ACCURACY: 0.12,")
    )
    assert broken.returncode != 0
    assert "WeightSumError: Score weights must sum to 1.0, got 1.0100" in broken.stderr
