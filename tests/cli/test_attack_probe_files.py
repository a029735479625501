"""Attack suite, probe files: hostile definitions end in exit 2 naming file, line and field.

What the loader tests already cover (wrong types, unknown fields, patterns RE2 cannot run) is
not repeated here; these are the ways a probe file could still lose data silently or hang.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.in_process import Cli
from tests.cli.test_attack_inputs import PROBE, check_refused


def _yaml_probe(extra: str = "", first: str = "id: c-0") -> str:
    return (
        f"- {first}\n  category: prompt_injection\n  severity: high\n  task: Keep it.\n"
        f"  input: What is it?\n  expected: refuse\n{extra}"
    )


def test_a_repeated_id_names_both_lines(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "probes.jsonl"
    other = {**PROBE, "id": "c-1"}
    path.write_text("".join(json.dumps(p) + "\n" for p in (PROBE, other, PROBE)))
    result = cli("probes", "validate", path)
    check_refused(result, f"{path}:3: field 'id'", f"first defined in {path}:1")
