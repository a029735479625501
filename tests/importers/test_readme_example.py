"""The README's "Bring your existing evals" commands, run as written on the committed files."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from tests.importers.fixtures import (
    GARAK_REPORT,
    INSPECT_LOG,
    INSPECT_MAPPING,
    PROMPTFOO_RESULTS,
    run,
)

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands() -> list[list[str]]:
    section = README.read_text(encoding="utf-8").split("## Bring your existing evals", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.replace("\\\n", " ").splitlines() if not line.startswith("#")]
    return [shlex.split(line) for line in lines if line.strip()]


def test_readme_imports_three_tools_into_one_explained_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("inspect_ai")
    for source in (GARAK_REPORT, PROMPTFOO_RESULTS, INSPECT_LOG, INSPECT_MAPPING):
        shutil.copy(source, tmp_path / source.name)
    monkeypatch.chdir(tmp_path)
    outputs = []
    for command in _commands():
        if command[0] == "cat":  # cat A B >> C
            *parts, _, target = command[1:]
            with open(target, "a", encoding="utf-8") as handle:
                for part in parts:
                    handle.write(Path(part).read_text(encoding="utf-8"))
            continue
        assert command[0] == "trustprobe"
        result = run(*command[1:])
        assert result.exit_code == 0, (command, result.output)
        outputs.append(result.stdout)
    explanation = outputs[-1]
    for tool, file in (
        ("garak 0.17.1", "garak-repeat.report.jsonl"),
        ("inspect 0.3.285", "injection-guard.eval"),
        ("promptfoo 0.121.20", "results.json"),
    ):
        assert f"source: {tool} run" in explanation and f"({file}, sha256" in explanation
    assert (tmp_path / "trust.html").exists()
    assert (tmp_path / "rescored" / "probes.jsonl").exists()
