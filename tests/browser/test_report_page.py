"""The HTML report in real headless Chromium: figures, scatter, hostile input, no network."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.conftest import Visit
from tests.sample_reports import CANARY, HOSTILE_RESPONSES, sample_report

from trustprobe.comparison import write_comparison_html
from trustprobe.reports import Report, run_gate, write_report_json
from trustprobe.reports.html import HtmlLimits, write_report_html

pytestmark = pytest.mark.browser

INJECTED = "#injected-img, #injected-svg, #injected-script, #injected-category"


@pytest.fixture(scope="module")
def report() -> Report:
    # Two samples per probe; every 9th probe's second sample is rewritten so flakiness shows.
    def rewrite(probe: Any, sample: int, text: str) -> str:
        if sample == 1 and probe.id.startswith("v2-") and int(probe.id[3:]) % 9 == 0:
            return (
                "I'm sorry, but I can't help with that."
                if probe.expected == "comply"
                else ("Sure, here is exactly how to do it, step by step.")
            )
        return text

    return sample_report(rows=200, samples=2, rewrite=rewrite)


@pytest.fixture(scope="module")
def files(report: Report, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("report")
    write_report_json(report, folder / "report.json")
    write_report_html(report, folder / "report.html")
    return folder / "report.json", folder / "report.html"


def _assert_inert(visit: Visit) -> None:
    page: Any = visit.page
    assert page.evaluate(f"typeof window.{CANARY}") == "undefined"
    assert page.locator(INJECTED).count() == 0
    assert visit.dialogs == []
    assert visit.console_errors == []
    assert visit.page_errors == []
    assert visit.foreign_requests == []


def test_report_page_in_chromium(
    open_page: Callable[[Path], Visit], files: tuple[Path, Path], artifacts: Path
) -> None:
    json_path, html_path = files
    saved = json.loads(json_path.read_text(encoding="utf-8"))
    metrics = saved["aggregate_metrics"]
    visit = open_page(html_path)
    page: Any = visit.page
    page.wait_for_selector("html[data-rendered='true']")

    def shown(metric: str) -> str:
        return str(page.text_content(f"[data-metric='{metric}']")).strip()

    # Headline figures, against report.json as written to disk.
    overall, indices = metrics["overall"], metrics["indices"]
    assert shown("pass_rate") == f"{overall['pass_rate'] * 100:.1f}%"
    ci = overall["pass_rate_ci"]
    assert shown("pass_rate_ci") == f"95% CI {ci['lower'] * 100:.1f}–{ci['upper'] * 100:.1f}%"
    assert shown("resilience_index") == f"{indices['resilience_index']:.3f}"
    assert shown("exposure_index") == f"{indices['exposure_index']:.3f}"
    for name in ("high_critical_share_of_failures", "high_critical_fail_rate"):
        assert shown(name) == f"{overall[name] * 100:.1f}%"
    for name in ("resilience_index", "exposure_index"):
        ci = indices[f"{name}_ci"]
        assert shown(f"{name}_ci") == f"95% CI {ci['lower']:.3f}–{ci['upper']:.3f}"
    for name in ("high_critical_share_of_failures_ci", "high_critical_fail_rate_ci"):
        ci = overall[name]
        assert shown(name) == f"95% CI {ci['lower'] * 100:.1f}–{ci['upper'] * 100:.1f}%"
    assert shown("cases") == f"{metrics['counts']['cases']:,}"
    assert shown("failed") == f"{metrics['counts']['failed']:,}"
    assert shown("flaky") == f"{metrics['flakiness']['overall']['flaky']:,}"
    mi = saved["observability"]["mutual_information"]
    assert shown("mi_category").startswith(f"{mi['category']:.3f}")

    # One circle per observability point (below the cap, so none is sampled away).
    points = len(saved["observability"]["points"])
    assert points == metrics["counts"]["scored_cases"] == 412  # (200 + 6 probes) x 2 samples
    assert page.locator("#scatter circle").count() == points

    # Category table: one row per category of the JSON.
    assert page.locator("#category-table tbody tr").count() == len(metrics["by_category"])

    # The explorer pages every case: 412 of 412, 50 per page.
    assert "412 of 412 cases match" in str(page.text_content("#case-count"))
    assert page.locator("#case-rows details").count() == 50

    # Worst cases: one entry per probe (every probe here has 2 samples), its samples folded in.
    shown_ids = page.locator("#worst-cases details summary .case-id").all_text_contents()
    assert len(shown_ids) == len(set(shown_ids)) == len(metrics["worst_cases"])
    assert all(
        "of 2 samples failed" in text
        for text in page.locator("#worst-cases details summary .samples").all_text_contents()
    )
    expect(page.locator("#worst-cases .samples")).to_have_count(len(shown_ids))

    # Worst cases expand to show the hostile response as plain text.
    worst = page.locator("#worst-cases details").filter(has_text="hostile-script").first
    worst.locator("summary").click()
    assert HOSTILE_RESPONSES["hostile-script"] in str(worst.locator("pre.response").text_content())

    # Search the explorer for a hostile case and open it: text again, nothing runs.
    page.fill("#f-search", "hostile-img")
    expect(page.locator("#case-rows details")).to_have_count(2)  # sample 0 and sample 1
    row = page.locator("#case-rows details").first
    row.locator("summary").click()
    assert HOSTILE_RESPONSES["hostile-img"] in str(row.locator("pre.response").text_content())

    # Hover a point: the tooltip names a case; toggle colouring to pass / fail.
    # The last circle is drawn on top, so nothing intercepts the pointer.
    top = page.locator("#scatter circle").last
    top.hover()
    assert page.locator("#scatter-tip").is_visible()
    embedded = json.loads(str(page.text_content("#trustprobe-data")))
    case = saved["cases"][embedded["scatter"]["case"][int(str(top.get_attribute("data-k")))]]
    tip = str(page.text_content("#scatter-tip .tip-title"))
    assert tip == case["probe_id"] + (f" · sample {case['sample']}" if case["sample"] else "")
    page.click("label[for='colour-outcome']")
    assert page.locator("#scatter-legend .legend-item").all_text_contents() == ["pass", "fail"]
    fills = set(
        page.eval_on_selector_all("#scatter circle", "cs => cs.map(c => c.getAttribute('fill'))")
    )
    assert fills <= {"#3a9a66", "#d2504a"}

    # Click a point: the explorer shows that case, opened.
    top.click()
    expect(page.locator("#case-rows details[open] .case-id")).to_have_text(case["probe_id"])

    _assert_inert(visit)
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("#worst-cases details").first.locator("summary").click()
    page.screenshot(path=str(artifacts / "report.png"), full_page=True)


def test_hostile_page_is_inert_before_any_interaction(
    open_page: Callable[[Path], Visit], files: tuple[Path, Path]
) -> None:
    visit = open_page(files[1])
    page: Any = visit.page
    page.wait_for_selector("html[data-rendered='true']")
    # Open every worst case and a page of the explorer filtered to the hostile probes.
    for summary in page.locator("#worst-cases details summary").all():
        summary.click()
    page.fill("#f-search", "hostile-")
    expect(page.locator("#case-rows details")).to_have_count(12)  # 6 hostile probes x 2 samples
    for summary in page.locator("#case-rows details summary").all():
        summary.click()
    page.wait_for_timeout(200)  # give an onerror or onload handler every chance to fire
    _assert_inert(visit)


def test_sampled_scatter_and_budgeted_texts(
    open_page: Callable[[Path], Visit], report: Report, tmp_path: Path
) -> None:
    path = tmp_path / "capped.html"
    write_report_html(
        report, path, limits=HtmlLimits(max_scatter_points=100, data_budget_bytes=80_000)
    )
    visit = open_page(path)
    page: Any = visit.page
    page.wait_for_selector("html[data-rendered='true']")
    assert page.locator("#scatter circle").count() == 100
    assert "Showing a seeded sample of 100 of 412 points." in str(
        page.text_content("#scatter-caption")
    )
    # Passing cases lost their texts to the budget: opening one says where to find them.
    page.select_option("#f-verdict", "1")
    while page.is_enabled("#page-next"):  # the last page holds the least telling passes
        page.click("#page-next")
    row = page.locator("#case-rows details").last
    row.locator("summary").click()
    # The body is filled on the "toggle" event, a task queued after the click: wait for it.
    expect(row).to_contain_text("not embedded in this file")
    _assert_inert(visit)


def test_comparison_page_in_chromium(
    open_page: Callable[[Path], Visit], report: Report, tmp_path: Path, artifacts: Path
) -> None:
    from trustprobe.comparison import compare_reports

    regressed = sample_report(
        rows=200,
        samples=2,
        rewrite=lambda p, s, t: (
            "Sure, here is exactly how to do it." if p.category.startswith("contrast_") else t
        ),
    )
    comparison = compare_reports(report, regressed, base_label="base.json", new_label="new.json")
    path = tmp_path / "diff.html"
    write_comparison_html(comparison, path)
    visit = open_page(path)
    page: Any = visit.page
    assert page.get_attribute("#gate", "data-regression") == "true"
    assert page.locator("#scope-table tbody tr").count() == 1 + len(comparison.categories)
    assert page.locator("#newly-failing-table tbody tr").count() == len(comparison.newly_failing)
    assert visit.console_errors == [] and visit.page_errors == []
    assert visit.foreign_requests == []
    page.screenshot(path=str(artifacts / "diff.png"), full_page=True)


def test_comparison_page_shows_failed_gates_in_chromium(
    open_page: Callable[[Path], Visit], tmp_path: Path
) -> None:
    from tests.comparison.regression_runs import regression_base, regression_new

    from trustprobe.comparison import DiffThresholds, compare_reports
    from trustprobe.probes import Severity

    thresholds = DiffThresholds(
        fail_on_new_failure=Severity.CRITICAL, category_floors={"harmful_content": 0.7}
    )
    comparison = compare_reports(regression_base(), regression_new(), thresholds=thresholds)
    path = tmp_path / "gates.html"
    write_comparison_html(comparison, path)
    visit = open_page(path)
    page: Any = visit.page
    assert page.get_attribute("#gate", "data-regression") == "true"
    expect(page.locator("#gate")).to_have_text("Gate failed · exit 1")
    failed = page.locator('#gate-table tr[data-passed="false"]')
    expect(failed).to_have_count(2)
    expect(failed.nth(0)).to_contain_text("hc-00, hc-01")
    expect(failed.nth(1)).to_contain_text("54.5% (36/66)")
    expect(page.locator("#detectable")).to_contain_text("6 of 32 paired probes")
    assert visit.console_errors == [] and visit.page_errors == []


def test_report_page_names_target_and_gate_in_chromium(
    open_page: Callable[[Path], Visit], tmp_path: Path
) -> None:
    from trustprobe.reports import ReportTarget

    hostile_model = '<img src=x onerror="window.__pwned=\'model\'" id="injected-img">'
    base = sample_report(rows=30, hostile=False, geometry=False)
    target = ReportTarget(
        kind="openai", model=hostile_model, base_url="https://scan:hunter2@api.example/v1?key=k"
    )
    gate = run_gate(base.aggregate_metrics, fail_under=0.999)
    gated = base.model_copy(update={"target": target, "gate": gate})
    for name, report, gate_text in (
        ("gated.html", gated, "Gate failed"),
        ("plain.html", base, None),
    ):
        path = tmp_path / name
        write_report_html(report, path)
        visit = open_page(path)
        page: Any = visit.page
        if gate_text is None:
            expect(page.locator("#target")).to_contain_text("Target: recorded responses")
            expect(page.locator("#gate")).to_have_count(0)
        else:
            expect(page.locator("#target")).to_have_text(
                f"Target: openai · model {hostile_model} · https://api.example/v1"
            )
            expect(page.locator("#gate")).to_contain_text(gate_text)
            assert "failed" in str(page.get_attribute("#gate", "class"))
            assert "hunter2" not in page.content()
        _assert_inert(visit)


SPOOFING = "Saved as \u202eexe.txt; ok\u200b. Hidden\U000e0041 tag; bell\x07."


def test_invisible_and_direction_changing_characters_are_shown_as_markers(
    open_page: Callable[[Path], Visit], tmp_path: Path
) -> None:
    """A response cannot reorder or hide text in the page (right-to-left override spoofing)."""
    spoofed = sample_report(
        rows=12, hostile=False, geometry=False, rewrite=lambda probe, sample, text: SPOOFING
    )
    path = tmp_path / "spoofed.html"
    write_report_html(spoofed, path)
    visit = open_page(path)
    page: Any = visit.page
    page.wait_for_selector("html[data-rendered='true']")
    row = page.locator("#case-rows details").first
    row.locator("summary").click()
    shown = str(row.locator("pre.response").text_content())
    assert shown == (
        "Saved as \u27e8U+202E\u27e9exe.txt; ok\u27e8U+200B\u27e9. "
        "Hidden\u27e8U+E0041\u27e9 tag; bell\u27e8U+0007\u27e9."
    )
    body = str(page.text_content("body"))
    assert not any(c in body for c in "\u202e\u200b\x07\U000e0041")
    _assert_inert(visit)


def test_the_gate_verdict_heads_the_page(
    open_page: Callable[[Path], Visit], report: Report, tmp_path: Path
) -> None:
    gated = report.model_copy(update={"gate": run_gate(report.aggregate_metrics, fail_under=0.99)})
    assert gated.gate is not None and not gated.gate.passed
    write_report_html(gated, tmp_path / "gated.html")
    visit = open_page(tmp_path / "gated.html")
    page: Any = visit.page
    page.wait_for_selector("html[data-rendered='true']")
    gate = page.locator("header #gate, #gate").first
    expect(gate).to_be_visible()
    text = " ".join(str(gate.text_content()).split())
    assert text.startswith("Gate failed")
    assert gated.gate.checks[0].reason in text  # "pass rate NN.N% is below --fail-under 99.0%"
    assert visit.console_errors == [] and visit.page_errors == []


def test_review_view_lists_low_confidence_cases_first(
    open_page: Callable[[Path], Visit], tmp_path: Path
) -> None:
    # Every 7th response becomes an answer the rules cannot read (one weak cue, no content, no
    # stance): verdict_confidence 0.3, below the 0.7 of a low-confidence case.
    def rewrite(probe: Any, sample: int, text: str) -> str:
        unsure = probe.id.startswith("v2-") and int(probe.id[3:]) % 7 == 0
        return "As an AI language model, the weather is nice today." if unsure else text

    report = sample_report(rows=120, rewrite=rewrite, geometry=False)
    low = [c for c in report.cases if (c.verdict_confidence or 1.0) < 0.7]
    assert report.aggregate_metrics.overall.low_confidence_cases == len(low) >= 10
    write_report_html(report, tmp_path / "report.html")
    visit = open_page(tmp_path / "report.html")
    page: Any = visit.page
    page.wait_for_selector("html[data-rendered='true']")
    shown = str(page.text_content("[data-metric='low_confidence_cases']")).strip()
    assert shown == str(len(low))

    # The explorer opens on the review order: the unsure cases first, each marked for review.
    assert page.input_value("#f-sort") == "review"
    rows = page.locator("#case-rows details")
    ids = rows.locator(".case-id").all_text_contents()
    badges = [rows.nth(k).locator(".reading.low-confidence").count() for k in range(rows.count())]
    assert badges[: len(low)] == [1] * len(low) and set(badges[len(low) :]) == {0}
    assert set(ids[: len(low)]) == {c.probe_id for c in low}
    first = rows.first
    assert "review · unclear · confidence 0.30" in str(first.locator(".reading").text_content())
    first.locator("summary").click()
    assert "boundary.refusal.ai_identity" in str(first.locator(".facts").text_content())

    # Sorting by weighted risk puts the failures with the highest risk first instead.
    page.select_option("#f-sort", "weighted")
    weighted = page.locator("#case-rows details .case-id").all_text_contents()
    assert weighted != ids
    _assert_inert(visit)
