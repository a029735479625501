"""Attack suite, command line: reports holding numbers JSON has no spelling for.

Python's JSON reader takes ``NaN``, ``Infinity`` and ``-Infinity``; no JSON writer of ours makes
them, and every command that reads a report must refuse them with exit 2 naming the file and
the field, never crash or compare NaN as if it were a number.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.cli.in_process import Cli
from tests.sample_reports import sample_report

from trustprobe.reports import Report, write_report_json


@pytest.fixture(scope="module")
def built() -> Report:
    return sample_report(rows=20, hostile=False, geometry=False)


def _flat(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1E+999"])
@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["report", "{bad}", "--html", "{out}"], id="report"),
        pytest.param(["trust", "evidence", "{bad}", "-a", "a", "-o", "{out}"], id="evidence"),
        pytest.param(["diff", "{good}", "{bad}", "--json", "{out}"], id="diff"),
    ],
)
def test_a_non_finite_number_in_a_report_is_exit_2_naming_the_field(
    cli: Cli, built: Report, tmp_path: Path, literal: str, command: list[str]
) -> None:
    good = tmp_path / "good.json"
    write_report_json(built, good)
    text = good.read_text(encoding="utf-8")
    cases = re.search(r'(?<!_)"cases": \[', text)
    assert cases is not None
    number = re.compile(r'"risk_score": ?([^,}]+)').search(text, cases.end())
    assert number is not None
    start, end = number.span(1)
    bad = tmp_path / "bad.json"
    bad.write_text(text[:start] + literal + text[end:], encoding="utf-8")
    out = tmp_path / "out"
    names = {"bad": str(bad), "good": str(good), "out": str(out)}
    result = cli(*(part.format(**names) for part in command))
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert _flat(f"{bad}") in _flat(result.stderr)
    assert _flat("field 'cases.0.risk_score'") in _flat(result.stderr), result.stderr
    assert not out.exists()
