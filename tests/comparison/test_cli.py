"""``trustprobe diff`` and ``trustprobe report`` as a CI job runs them: exit codes and outputs.

The commands run in process (the ``cli`` fixture); a subprocess per test would pay the package's
import time again each time.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.cli.in_process import Cli
from tests.comparison.regression_runs import regression_base, regression_new
from tests.sample_reports import sample_report

from trustprobe.probes import Probe
from trustprobe.reports import write_report_json

WIDE = {"COLUMNS": "200"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("runs")
    refused = [f"v2-{i}" for i in range(26, 51)]  # contrast_homonyms: all refused in XSTest

    def regress(probe: Probe, sample: int, text: str) -> str:
        return "Sure, here is how to do it." if probe.id in refused[:10] else text

    paths = {
        "base": folder / "base.json",
        "new": folder / "new.json",
        "broken": folder / "broken.json",
        "future": folder / "future.json",
    }
    base = sample_report(rows=100, hostile=True)
    write_report_json(base, paths["base"])
    write_report_json(sample_report(rows=100, hostile=True, rewrite=regress), paths["new"])
    paths["broken"].write_text('{"schema_version": "1.0",\n "cases": [}\n', encoding="utf-8")
    future = json.loads(paths["base"].read_text(encoding="utf-8"))
    future["schema_version"] = "2.0"
    paths["future"].write_text(json.dumps(future), encoding="utf-8")
    return paths


def test_diff_gates_a_regression_and_writes_every_output(
    runs: dict[str, Path], cli: Cli, tmp_path: Path
) -> None:
    junit, html, out = tmp_path / "junit.xml", tmp_path / "diff.html", tmp_path / "diff.json"
    done = cli(
        "diff", runs["base"], runs["new"], "--junit", junit, "--html", html, "--json", out, env=WIDE
    )
    assert done.returncode == 1, done.stderr
    assert "REGRESSION" in done.stdout
    # 10 newly failing, none fixed: p = 2 * (1/2)^10 = 0.001953.
    assert "0.0020" in done.stdout
    comparison = json.loads(out.read_text(encoding="utf-8"))
    assert comparison["regression"] is True
    assert comparison["overall"]["paired"]["regressed"] == 10
    suites = {s.get("name"): s for s in ET.parse(junit).getroot().findall("./testsuite")}
    gates = suites.pop("trustprobe.gates")
    assert sum(len(s.findall("testcase")) for s in suites.values()) == 106
    significance = gates.find("testcase[@name='significance[overall and categories]']/failure")
    assert significance is not None and significance.get("type") == "significance"
    assert 'data-regression="true"' in html.read_text(encoding="utf-8")


def test_diff_passes_when_below_thresholds(runs: dict[str, Path], cli: Cli) -> None:
    # Overall drop 10 / 106 = 0.094 < 0.1, and only the overall change may gate.
    done = cli("diff", runs["base"], runs["new"], "--min-drop", "0.1", "--overall-only", env=WIDE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no meaningful regression" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("broken", "new"), "broken.json:2: not valid JSON", id="invalid-json"),
        pytest.param(("base", "future"), "different schema versions", id="schema-mismatch"),
        pytest.param(("base", "missing"), "missing.json: cannot read file", id="missing-file"),
    ],
)
def test_diff_bad_input_exits_2(
    runs: dict[str, Path], cli: Cli, args: tuple[str, str], message: str
) -> None:
    paths = [runs.get(name, runs["base"].parent / f"{name}.json") for name in args]
    done = cli("diff", *paths, env=WIDE)
    assert done.returncode == 2
    assert message in " ".join(done.stderr.split())


def test_diff_rejects_alpha_outside_the_open_interval(runs: dict[str, Path], cli: Cli) -> None:
    done = cli("diff", runs["base"], runs["new"], "--alpha", "1", env=WIDE)
    assert done.returncode == 2
    assert "strictly between 0 and 1" in done.stderr


def test_report_command_writes_html(runs: dict[str, Path], cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = cli("report", runs["base"], "--html", out, "--max-scatter-points", "50", env=WIDE)
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert "Showing a seeded sample of 50 of 106 points." in html
    done = cli("report", runs["future"], "--html", tmp_path / "x.html", env=WIDE)
    assert done.returncode == 2
    assert "schema version 2.0 is not supported" in " ".join(done.stderr.split())
    assert not (tmp_path / "x.html").exists()


@pytest.fixture(scope="module")
def collapse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The base and new reports of :mod:`tests.comparison.regression_runs`, on disk."""
    folder = tmp_path_factory.mktemp("collapse")
    base, new = folder / "base.json", folder / "new.json"
    write_report_json(regression_base(), base)
    write_report_json(regression_new(), new)
    return base, new


def test_diff_alone_lets_the_category_collapse_pass(cli: Cli, collapse: tuple[Path, Path]) -> None:
    result = cli("diff", *collapse, env=WIDE)
    assert result.returncode == 0, result.stderr
    # The smallest detectable change is stated: 6 of 32 paired probes at α = 0.05.
    assert "Smallest detectable change: 6 of 32 paired probes" in result.stdout


def test_diff_gates_fail_the_category_collapse(
    cli: Cli, collapse: tuple[Path, Path], tmp_path: Path
) -> None:
    junit, html, md, out = (tmp_path / n for n in ("j.xml", "d.html", "d.md", "d.json"))
    result = cli(
        "diff", *collapse,
        "--fail-on-new-failure", "critical",
        "--category-floor", "harmful_content=0.7",
        "--category-floor", "privacy_pii=0.9",
        "--junit", junit, "--html", html, "--markdown", md, "--json", out, env=WIDE,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "failed gate(s): new_failure, category_floor" in result.stdout
    assert "FAIL  new_failure (critical)" in result.stdout
    assert "'harmful_content' passes 54.5% (36/66) in the new run, below its floor of 70.0%" in (
        result.stdout
    )
    comparison = json.loads(out.read_text(encoding="utf-8"))
    outcome = {(g["gate"], g["subject"]): g["passed"] for g in comparison["gates"]}
    assert outcome == {
        ("significance", "overall and categories"): True,
        ("new_failure", "critical"): False,
        ("category_floor", "harmful_content"): False,
        ("category_floor", "privacy_pii"): True,
    }
    gates = ET.parse(junit).getroot().find("./testsuite[@name='trustprobe.gates']")
    assert gates is not None and gates.get("failures") == "2" and gates.get("tests") == "4"
    failure = gates.find("testcase[@name='new_failure[critical]']/failure")
    assert failure is not None and "hc-00\nhc-01" in (failure.text or "")
    markdown = md.read_text(encoding="utf-8")
    assert "**Regression** (exit 1)" in markdown
    assert "Targets: recorded responses → recorded responses" in markdown
    assert "| new_failure | critical | **FAIL** |" in markdown
    assert "| category_floor | privacy_pii | pass |" in markdown
    page = html.read_text(encoding="utf-8")
    assert 'data-gate="category_floor" data-passed="false"' in page
    assert 'data-regression="true"' in page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("--category-floor", "harmful_content"), "CATEGORY=RATE", id="no-rate"),
        pytest.param(("--category-floor", "harmful_content=70"), "within 0–1", id="percent"),
        pytest.param(
            ("--category-floor", "a=0.5", "--category-floor", "a=0.6"), "two floors", id="twice"
        ),
        pytest.param(("--category-floor", "harmful_contnet=0.7"), "harmful_contnet", id="typo"),
        pytest.param(("--fail-on-new-failure", "severe"), "severe", id="severity"),
    ],
)
def test_diff_gate_options_refuse_bad_values(
    cli: Cli, collapse: tuple[Path, Path], args: tuple[str, ...], message: str
) -> None:
    result = cli("diff", *collapse, *args, env=WIDE)
    assert result.returncode == 2, result.stderr
    assert message in " ".join(result.stderr.split())
