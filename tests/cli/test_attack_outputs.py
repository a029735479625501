"""Attack suite, command line: an output naming an input, or another output, is refused.

Outputs are written under a temporary name and renamed over the target, so an output that names
an input would replace it once the command succeeded. Each case checks exit 2, the message
naming the flag and the file, and the input byte for byte unchanged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.cli.in_process import Cli
from tests.cli.test_attack_inputs import check_refused
from tests.importers.fixtures import GARAK_REPORT
from tests.sample_reports import sample_report
from tests.trust.evidence_factory import record_fields

from trustprobe.reports import Report, write_report_json


@pytest.fixture(scope="module")
def built() -> Report:
    return sample_report(rows=40, hostile=False, geometry=False)


@pytest.fixture
def report(built: Report, tmp_path: Path) -> Path:
    path = tmp_path / "report.json"
    write_report_json(built, path)
    return path


def test_import_output_naming_the_input_keeps_the_input(cli: Cli, tmp_path: Path) -> None:
    garak = tmp_path / "run.report.jsonl"
    shutil.copyfile(GARAK_REPORT, garak)
    before = garak.read_bytes()
    check_refused(cli("import", "garak", garak, "-a", "a", "-o", garak), "--output", str(garak))
    # the same file by another spelling
    spelled = tmp_path / "." / "run.report.jsonl"
    check_refused(cli("import", "garak", garak, "-a", "a", "-o", spelled), "--output")
    assert garak.read_bytes() == before


def test_import_rescore_over_the_input_keeps_the_input(cli: Cli, tmp_path: Path) -> None:
    garak = tmp_path / "responses.jsonl"
    shutil.copyfile(GARAK_REPORT, garak)
    before = garak.read_bytes()
    out = tmp_path / "evidence.jsonl"
    result = cli("import", "garak", garak, "-a", "a", "-o", out, "--rescore", tmp_path)
    check_refused(result, "--rescore", str(garak))
    assert garak.read_bytes() == before
    assert not out.exists()


def test_report_html_naming_the_report_keeps_it(cli: Cli, report: Path) -> None:
    before = report.read_bytes()
    check_refused(cli("report", report, "--html", report), "--html", str(report))
    assert report.read_bytes() == before


def test_trust_evidence_output_naming_the_report_keeps_it(cli: Cli, report: Path) -> None:
    before = report.read_bytes()
    check_refused(cli("trust", "evidence", report, "-a", "a", "-o", report), "--output")
    assert report.read_bytes() == before


def test_trust_score_html_naming_the_evidence_keeps_it(cli: Cli, tmp_path: Path) -> None:
    evidence = tmp_path / "evidence.jsonl"
    record = record_fields()
    evidence.write_text(json.dumps(record) + "\n")
    before = evidence.read_bytes()
    check_refused(cli("trust", "score", "-e", evidence, "-a", "a", "--html", evidence), "--html")
    assert evidence.read_bytes() == before


@pytest.mark.parametrize("flag", ["--junit", "--html", "--markdown", "--json"])
def test_diff_outputs_naming_an_input_keep_it(
    cli: Cli, report: Path, tmp_path: Path, flag: str
) -> None:
    base = tmp_path / "base.json"
    shutil.copyfile(report, base)
    before = report.read_bytes()
    check_refused(cli("diff", base, report, flag, report), flag, str(report))
    assert report.read_bytes() == before


def test_diff_two_outputs_naming_one_file_is_refused(
    cli: Cli, report: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.txt"
    result = cli("diff", report, report, "--html", out, "--markdown", out)
    check_refused(result, "--markdown", "--html")
    assert not out.exists()


@pytest.mark.parametrize(
    "agent",
    ["", "a" * 201, "bad\x01agent", "line\nbreak"],
    ids=["empty", "too-long", "control", "newline"],
)
@pytest.mark.parametrize("command", ["import", "evidence", "score"])
def test_an_agent_id_no_record_can_hold_is_exit_2(
    cli: Cli, report: Path, tmp_path: Path, agent: str, command: str
) -> None:
    # These crashed with a pydantic traceback and exit 1 (the gate-failed code) once the
    # first record was built, or (score) answered for an agent no record could name.
    out = tmp_path / "evidence.jsonl"
    evidence = tmp_path / "in.jsonl"
    evidence.write_text("")
    args = {
        "import": ["import", "garak", GARAK_REPORT, "-a", agent, "-o", out],
        "evidence": ["trust", "evidence", report, "-a", agent, "-o", out],
        "score": ["trust", "score", "-e", evidence, "-a", agent],
    }[command]
    check_refused(cli(*args), "field '--agent'")
    assert not out.exists()
