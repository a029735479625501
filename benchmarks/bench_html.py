"""HTML report at scale: file size and time to a usable page in headless Chromium.

A 100,000-case report (20,000 XSTest-derived probes x 5 samples, every response distinct) is
built with the real pipeline, rendered, and opened from disk in Debian's Chromium. Baselines in
the same run: a 1,000-case report from the same generator, and the 100,000-case report with the
scatter drawn unsampled (every point, no cap).

Browser time is the page's own ``performance`` clock: ``loadEventEnd`` of the navigation and the
``trustprobe-rendered`` mark the page script sets once the explorer and the scatter are drawn.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from tests.shared_data import CHROMIUM_ARGS, find_chromium, xstest_rows

from trustprobe.detectors import Detector
from trustprobe.probes import Probe
from trustprobe.reports import Report, build_report
from trustprobe.reports.html import HtmlLimits, write_report_html
from trustprobe.responses import Response

SAMPLES = 5
REPEATS = 3
REFUSAL = "I'm sorry, but I can't help with that request."


def make_run(probe_count: int) -> tuple[list[Probe], list[Response]]:
    """``probe_count`` probes cycling over XSTest, ``SAMPLES`` distinct responses each."""
    rows = xstest_rows()
    probes: list[Probe] = []
    responses: list[Response] = []
    for i in range(probe_count):
        row = rows[i % len(rows)]
        unsafe = row["type"].startswith("contrast_")
        probe = Probe(
            id=f"{row['id']}-r{i // len(rows):03d}",
            category=row["type"],
            severity=("critical" if i % 3 == 0 else "high")
            if unsafe
            else ("medium" if i % 4 == 0 else "low"),
            task="You are a helpful general-purpose assistant.",
            input=row["prompt"],
            expected="refuse" if unsafe else "comply",
            failure_modes=["harmful_compliance"] if unsafe else ["over_refusal"],
        )
        probes.append(probe)
        for sample in range(SAMPLES):
            text = row["completion"]
            if i % 11 == 0 and sample == SAMPLES - 1:
                text = REFUSAL  # a flaky last sample on every 11th probe
            # The run and sample marker leads the response so that cut excerpts stay distinct
            # too: identical excerpts would be stored once and flatter the file size.
            responses.append(
                Response(
                    probe_id=probe.id,
                    sample=sample,
                    response=f"[run {i}, sample {sample}] {text}",
                    latency_ms=400.0 + (i * 37 + sample * 11) % 900,
                )
            )
    return probes, responses


def build(probe_count: int, detector: Detector) -> tuple[Report, float]:
    probes, responses = make_run(probe_count)
    start = time.perf_counter()
    report = build_report(probes, responses, detector=detector, seed=0)
    return report, time.perf_counter() - start


def render(report: Report, path: Path, limits: HtmlLimits) -> float:
    start = time.perf_counter()
    write_report_html(report, path, limits=limits)
    return time.perf_counter() - start


def browser_times(path: Path) -> tuple[float, float]:
    """Median (load event, rendered mark) in ms over ``REPEATS`` fresh pages."""
    from playwright.sync_api import sync_playwright

    loads: list[float] = []
    rendered: list[float] = []
    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("Chromium is needed for the browser figures: apt-get install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            for _ in range(REPEATS):
                page = browser.new_page(viewport={"width": 1360, "height": 900})
                page.goto(path.resolve().as_uri(), wait_until="load", timeout=120_000)
                page.wait_for_selector("html[data-rendered='true']", timeout=120_000)
                nav = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
                mark = page.evaluate(
                    "performance.getEntriesByName('trustprobe-rendered')[0].startTime"
                )
                loads.append(float(nav))
                rendered.append(float(mark))
                page.close()
        finally:
            browser.close()
    return statistics.median(loads), statistics.median(rendered)


def main() -> None:
    detector = Detector.builtin()
    small, small_build = build(200, detector)  # 200 probes x 5 samples = 1,000 cases
    large, large_build = build(20_000, detector)  # 20,000 x 5 = 100,000 cases
    print(
        f"build_report: {len(small.cases):,} cases {small_build:.1f} s; "
        f"{len(large.cases):,} cases {large_build:.1f} s "
        f"({large.aggregate_metrics.counts.failed:,} failed)"
    )
    capped = HtmlLimits()
    unsampled = HtmlLimits(max_scatter_points=len(large.cases))
    variants = [
        ("1,000 cases (baseline)", small, capped),
        ("100,000 cases, scatter unsampled (baseline)", large, unsampled),
        ("100,000 cases", large, capped),
    ]
    with tempfile.TemporaryDirectory() as folder:
        print(
            f"{'variant':<46} {'render s':>9} {'size MB':>8} {'points':>7} "
            f"{'explained':>9} {'responses':>9} {'cut at':>6} {'load ms':>8} {'rendered ms':>12}"
        )
        for number, (name, report, limits) in enumerate(variants):
            path = Path(folder) / f"report-{number}.html"
            seconds = render(report, path, limits)
            size = path.stat().st_size / 1e6
            html = path.read_text(encoding="utf-8")
            shown = _shown_points(html)
            texts = _embedded(html, "texts_embedded")
            explained = _embedded(html, "explanations_embedded")
            cut = _embedded(html, "text_chars")
            load, ready = browser_times(path)
            print(
                f"{name:<46} {seconds:>9.2f} {size:>8.2f} {shown:>7,} {explained:>9,} "
                f"{texts:>9,} {cut:>6} {load:>8.0f} {ready:>12.0f}"
            )


def _shown_points(html: str) -> int:
    start = html.index('"scatter":{') if '"scatter":{' in html else -1
    if start < 0:
        return 0
    segment = html[html.index('"case":[', start) + 8 :]
    return segment[: segment.index("]")].count(",") + 1


def _embedded(html: str, key: str) -> int:
    marker = f'"{key}":'
    segment = html[html.index(marker) + len(marker) :]
    return int(segment[: segment.index(",")])


if __name__ == "__main__":
    main()
