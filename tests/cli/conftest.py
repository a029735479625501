import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def trustprobe(tmp_path: Path) -> Run:
    """Run the real console entry point in a subprocess, as a user would."""

    def run(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "trustprobe", *map(str, args)],
            capture_output=True,
            text=True,
            input=stdin,
            cwd=tmp_path,
            timeout=120,
            check=False,
        )

    return run
