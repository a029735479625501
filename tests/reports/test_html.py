"""The HTML report without a browser: escaping, CSP pinning, data budget and sampling."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.sample_reports import HOSTILE_RESPONSES, sample_report

from trustprobe.reports import Report
from trustprobe.reports.html import (
    HtmlLimits,
    render_report_html,
    script_json,
    write_report_html,
)

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "trustprobe" / "reports" / "templates"


class _Page(HTMLParser):
    """Every start tag with its attributes, and the text of each script and style element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.raw: dict[str, list[str]] = {"script": [], "style": []}
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in self.raw:
            self._open = tag
            self.raw[tag].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._open:
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self.raw[self._open][-1] += data


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def _data(page: _Page) -> dict[str, Any]:
    blocks = [
        text
        for (tag, attrs), text in zip(
            [t for t in page.tags if t[0] == "script"], page.raw["script"], strict=True
        )
        if attrs.get("type") == "application/json"
    ]
    assert len(blocks) == 1
    data: dict[str, Any] = json.loads(blocks[0])
    return data


@pytest.fixture(scope="module")
def report() -> Report:
    return sample_report(rows=120)


@pytest.fixture(scope="module")
def html(report: Report) -> str:
    return render_report_html(report)


@given(st.text())
def test_script_json_cannot_close_its_element(text: str) -> None:
    encoded = script_json({"t": text})
    assert not set(encoded) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(encoded) == {"t": text}


def test_script_json_escapes_by_hand() -> None:
    # '<' -> \u003c, '/' stays, '>' -> \u003e, '&' -> \u0026, U+2028 -> \u2028 (6 ASCII chars)
    assert script_json("</script>&\u2028") == '"\\u003c/script\\u003e\\u0026\\u2028"'


def test_hostile_responses_add_no_markup(report: Report, html: str) -> None:
    page = _parse(html)
    tags = [tag for tag, _ in page.tags]
    # Exactly two scripts: the JSON data block and the page script; no image, no iframe.
    assert tags.count("script") == 2
    assert not {"img", "iframe", "object", "embed", "textarea", "link"} & set(tags)
    for tag, attrs in page.tags:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        assert not str(attrs.get("id", "")).startswith("injected"), (tag, attrs)
    # The hostile texts are there, as text: the worst cases hold them escaped.
    assert "&lt;script&gt;window.__pwned = &#39;script&#39;&lt;/script&gt;" in html
    assert "{{ 7*7 }}" in html
    assert "\x00" not in html


def test_every_case_is_in_the_embedded_data(report: Report, html: str) -> None:
    data = _data(_parse(html))
    cases = data["cases"]
    assert data["total"] == len(report.cases) == 126  # 120 XSTest rows + 6 hostile probes
    assert len(cases["probe"]) == 126
    ids = [data["probes"]["id"][p] for p in cases["probe"]]
    assert ids == [c.probe_id for c in report.cases]
    verdicts = [None if v is None else bool(v) for v in cases["verdict"]]
    assert verdicts == [c.passed for c in report.cases]
    # Under the default budget every text is embedded.
    assert data["texts_embedded"] == 126
    hostile = ids.index("hostile-img")
    assert data["strings"][cases["response"][hostile]] == HOSTILE_RESPONSES["hostile-img"]


def test_csp_forbids_network_and_pins_inline_code_by_hash(html: str) -> None:
    page = _parse(html)
    metas = [
        a for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    ]
    assert len(metas) == 1
    policy = dict(part.split(" ", 1) for part in str(metas[0]["content"]).split("; "))
    assert policy["default-src"] == "'none'"
    assert "unsafe-inline" not in str(metas[0]["content"])

    def pin(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    code = [
        text
        for (tag, attrs), text in zip(
            [t for t in page.tags if t[0] == "script"], page.raw["script"], strict=True
        )
        if "type" not in attrs
    ]
    assert policy["script-src"] == pin(code[0])
    assert policy["style-src"] == pin(page.raw["style"][0])


def test_page_script_never_writes_markup() -> None:
    source = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in source
    # No template writes report data into a script, style or URL context.
    for template in TEMPLATES.glob("*.j2"):
        text = template.read_text(encoding="utf-8")
        assert "|safe" not in text.replace(" ", "")
        assert not re.search(r"(href|src|style)=\"\{\{", text)


def test_text_budget_embeds_failures_first(report: Report) -> None:
    limits = HtmlLimits(data_budget_bytes=60_000)
    data = _data(_parse(render_report_html(report, limits=limits)))
    cases = data["cases"]
    explained = [i for i, x in enumerate(cases["explanation"]) if x >= 0]
    answered = [i for i, x in enumerate(cases["response"]) if x >= 0]
    assert len(explained) == data["explanations_embedded"]
    assert len(answered) == data["texts_embedded"]  # no harness error in this run
    assert 0 < len(answered) < len(explained) <= len(report.cases)
    assert set(answered) <= set(explained)
    failed = {i for i, c in enumerate(report.cases) if c.passed is False}
    # Failures go before passes, so every embedded response belongs to a failure until all
    # failures have one.
    assert set(answered) <= failed or failed <= set(answered)
    assert set(explained) <= failed or failed <= set(explained)
    # Responses were cut to one of the documented fractions of 1,200 characters.
    assert data["text_chars"] in {1200, 800, 600, 400, 300}
    assert all(len(data["strings"][cases["response"][i]]) <= data["text_chars"] for i in answered)
    payload = script_json({k: v for k, v in data.items() if k not in ("scatter", "palette")})
    assert len(payload.encode("utf-8")) <= 60_000


def test_scatter_is_a_seeded_sample_above_the_cap(report: Report) -> None:
    assert report.observability is not None
    points = len(report.observability.points)
    small = HtmlLimits(max_scatter_points=40)
    first = _data(_parse(render_report_html(report, limits=small)))["scatter"]
    again = _data(_parse(render_report_html(report, limits=small)))["scatter"]
    assert first == again
    assert first["total"] == points
    assert len(first["case"]) == len(set(first["case"])) == 40
    assert first["case"] == sorted(first["case"])
    full = _data(_parse(render_report_html(report)))["scatter"]
    assert len(full["case"]) == points


def test_small_run_without_geometry_renders(tmp_path: Path) -> None:
    report = sample_report(rows=3, hostile=False)
    assert report.observability is None
    out = tmp_path / "small.html"
    write_report_html(report, out)
    html = out.read_text(encoding="utf-8")
    assert "Not computed for this run" in html
    assert _data(_parse(html))["scatter"] is None
    assert [p.name for p in tmp_path.iterdir()] == ["small.html"]  # no temporary file left


def test_headline_figures_match_the_metrics(report: Report, html: str) -> None:
    overall = report.aggregate_metrics.overall
    assert overall.pass_rate is not None and overall.pass_rate_ci is not None
    ci = overall.pass_rate_ci
    assert f'data-metric="pass_rate">{overall.pass_rate * 100:.1f}%<' in html
    assert f"95% CI {ci.lower * 100:.1f}–{ci.upper * 100:.1f}%" in html
    indices = report.aggregate_metrics.indices
    assert f'data-metric="resilience_index">{indices.resilience_index:.3f}<' in html
    assert f'data-metric="exposure_index">{indices.exposure_index:.3f}<' in html
    # The index and high/critical intervals are read from the metrics, not recomputed.
    exposure, resilience = indices.exposure_index_ci, indices.resilience_index_ci
    share = overall.high_critical_share_of_failures_ci
    severe_rate = overall.high_critical_fail_rate_ci
    assert exposure is not None and resilience is not None
    assert share is not None and severe_rate is not None
    for metric, text in [
        ("exposure_index_ci", f"95% CI {exposure.lower:.3f}–{exposure.upper:.3f}"),
        ("resilience_index_ci", f"95% CI {resilience.lower:.3f}–{resilience.upper:.3f}"),
        (
            "high_critical_share_of_failures_ci",
            f"95% CI {share.lower * 100:.1f}–{share.upper * 100:.1f}%",
        ),
        (
            "high_critical_fail_rate_ci",
            f"95% CI {severe_rate.lower * 100:.1f}–{severe_rate.upper * 100:.1f}%",
        ),
    ]:
        assert f'data-metric="{metric}">{text}<' in html
    by_severity = report.aggregate_metrics.by_severity
    severe = by_severity["high"].failed + by_severity["critical"].failed
    scored = by_severity["high"].n + by_severity["critical"].n
    assert f"{severe:,} of {scored:,} scored high or critical cases failed" in html
    assert "High-stakes" not in html


def test_undefined_intervals_are_left_blank() -> None:
    report = sample_report(rows=1, hostile=False)
    metrics = report.aggregate_metrics
    assert metrics.counts.scored_cases == 1 and metrics.indices.exposure_index_ci is None
    html = render_report_html(report)
    for metric in ("exposure_index_ci", "resilience_index_ci"):
        assert f'data-metric="{metric}"></div>' in html
