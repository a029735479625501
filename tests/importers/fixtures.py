"""The committed outputs of real garak, promptfoo and Inspect runs, and how to run the CLI."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from trustprobe.cli.main import app

DATA = Path(__file__).resolve().parents[1] / "data"
GARAK_REPORT = DATA / "garak" / "garak-repeat.report.jsonl"
GARAK_CONFIG = DATA / "garak" / "garak-repeat.yaml"
PROMPTFOO_RESULTS = DATA / "promptfoo" / "results.json"
PROMPTFOO_CONFIG = DATA / "promptfoo" / "promptfooconfig.yaml"
INSPECT_LOG = DATA / "inspect" / "injection-guard.eval"
INSPECT_TASK = DATA / "inspect" / "injection_guard.py"
INSPECT_MAPPING = DATA / "inspect" / "families.yaml"


def run(*args: str | Path) -> Any:
    """``trustprobe ARGS`` in this process; errors come back as exit codes, as for a user."""
    return CliRunner().invoke(app, [str(a) for a in args])


def tool_on_path(name: str) -> str:
    """The tool's executable; skip when it is not installed (CI does not install this one)."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (put it on PATH to run against the real tool)")
    return found


def tool_env() -> dict[str, str]:
    """No network for the tools: no telemetry, no update checks, no model downloads."""
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
    }
