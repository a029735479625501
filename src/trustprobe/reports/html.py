r"""The self-contained HTML report: one file, no network, safe against hostile agent output.

Escaping strategy (docs/report.md):

* Everything drawn server-side goes through Jinja2 with autoescape on, and only ever into
  element content or quoted attributes.
* Data for the page script is one JSON document in a ``<script type="application/json">``
  block, with ``<``, ``>``, ``&``, U+2028 and U+2029 written as ``\uXXXX`` escapes so no text
  can close the block; the script reads it with ``JSON.parse(textContent)`` and puts text in
  the DOM only through ``textContent``.
* A Content-Security-Policy meta tag forbids every network fetch (``default-src 'none'``) and
  allows only the page's own inline style and script, pinned by SHA-256 hash: should an
  injected ``<script>`` ever slip through, the browser still refuses to run it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from trustprobe.detectors import Intent
from trustprobe.formats import atomic_write_text, show_invisible
from trustprobe.metrics import ConfidenceInterval, RunMetrics
from trustprobe.probes import Severity
from trustprobe.reports.models import Report
from trustprobe.reports.render import target_line
from trustprobe.reports.trace import TraceLine, call_trace, trace_text
from trustprobe.reports.worst import worst_probes
from trustprobe.scoring.models import LOW_CONFIDENCE, CaseScore

SEVERITIES = tuple(Severity)
"""Severities in rising order; the page codes each by its position."""
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#86bcb6",
    "#d37295",
    "#8cd17d",
)
"""Cluster colours (Tableau 10 and two more), shared by the page script and the cluster table."""
# Lone surrogates cannot be encoded as UTF-8 (a JSON "\ud800" escape in a responses file can
# produce one); NUL is a parse error in HTML. Both become U+FFFD in the written page.
_UNWRITABLE = re.compile("[\ud800-\udfff\x00]")
_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_JSON_UNSAFE = re.compile("[<>&\u2028\u2029]")


@dataclass(frozen=True)
class HtmlLimits:
    """Size limits that keep the page fast on very large runs (docs/report.md)."""

    max_scatter_points: int = 5000
    """Scatter points drawn at most; larger runs show a seeded uniform sample of this size."""
    data_budget_bytes: int = 12_500_000
    """Size the embedded case data may reach; case texts stop being embedded beyond it."""
    case_text_chars: int = 1200
    """Characters of each response, task and input embedded for the case explorer."""
    worst_case_chars: int = 4000
    """Characters of response, task and input shown for each worst case."""
    sample_seed: int = 0
    """Seed of the scatter sample, so the same report always draws the same points."""


# -- formatting filters -------------------------------------------------------------------------


def _pct(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value * 100:.{digits}f}%"


def _signed_points(value: float | None, digits: int = 1) -> str:
    """Format a difference of rates in percentage points, with an explicit sign."""
    if value is None:
        return "—"
    shown = round(value * 100, digits)
    sign = "+" if shown > 0 else ("−" if shown < 0 else "±")
    return f"{sign}{abs(shown):.{digits}f} pp"


def _fixed(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _interval(ci: ConfidenceInterval | None, digits: int = 1) -> str:
    if ci is None:
        return ""
    return f"{ci.confidence * 100:g}% CI {ci.lower * 100:.{digits}f}–{ci.upper * 100:.{digits}f}%"


def _index_interval(ci: ConfidenceInterval | None, digits: int = 3) -> str:
    """An interval of a 0–1 index, in the index's own units (not percent)."""
    if ci is None:
        return ""
    return f"{ci.confidence * 100:g}% CI {ci.lower:.{digits}f}–{ci.upper:.{digits}f}"


def _tone(pass_rate: float | None) -> str:
    """Colour class of a pass rate: good from 90%, warn from 70%, bad below."""
    if pass_rate is None:
        return "neutral"
    return "good" if pass_rate >= 0.9 else ("warn" if pass_rate >= 0.7 else "bad")


def _count(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _p_value(value: float | None) -> str:
    if value is None:
        return "—"
    return "< 0.0001" if value < 0.0001 else f"{value:.4f}"


def _when(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _scrub(text: str) -> str:
    # On the whole page, the data script included: every response the page shows is covered.
    return show_invisible(_UNWRITABLE.sub("\ufffd", text))


def _visible(value: Any) -> Any:
    r"""``value`` with invisible characters shown in every string (:func:`show_invisible`).

    Applied to the page's data before it is embedded: JSON spells control characters as
    ``\u0007`` escapes, which the pass over the finished page could not see.
    """
    if isinstance(value, str):
        return show_invisible(value)
    if isinstance(value, list):
        return [_visible(item) for item in value]
    if isinstance(value, dict):
        return {key: _visible(item) for key, item in value.items()}
    return value


def script_json(data: Any) -> str:
    """JSON safe to place inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group()], text)


def _json_size(text: str) -> int:
    """Bytes ``text`` takes once embedded by :func:`script_json`."""
    return len(script_json(text).encode("utf-8"))


def _asset(name: str) -> str:
    return (resources.files("trustprobe.reports") / "templates" / name).read_text("utf-8")


def _csp_hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _environment(package: str) -> Environment:
    """Templates of ``package`` first, then this package's (for the ``page.html.j2`` shell)."""
    loaders = [
        PackageLoader(p, "templates") for p in dict.fromkeys((package, "trustprobe.reports"))
    ]
    env = Environment(
        loader=ChoiceLoader(loaders),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        pct=_pct,
        points=_signed_points,
        fixed=_fixed,
        interval=_interval,
        index_interval=_index_interval,
        tone=_tone,
        count=_count,
        p_value=_p_value,
        when=_when,
    )
    return env


def render_page(
    template: str, *, package: str = "trustprobe.reports", script: str | None, **context: Any
) -> str:
    """Render a self-contained page: stylesheet and optional script inlined, pinned in the CSP.

    ``template`` comes from ``package``'s ``templates`` folder and may extend this package's
    ``page.html.j2`` shell; the shared filters (``pct``, ``interval``, ``when``…) are available.
    """
    css = _asset("report.css")
    policy = [
        "default-src 'none'",
        f"style-src {_csp_hash(css)}",
        f"script-src {_csp_hash(script)}" if script is not None else "script-src 'none'",
        "img-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    html = (
        _environment(package)
        .get_template(template)
        .render(
            css=Markup(css),
            script=Markup(script) if script is not None else None,
            csp="; ".join(policy),
            **context,
        )
    )
    return _scrub(html)


# -- charts -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    """One row of a horizontal bar chart, in chart units (0–100 across)."""

    label: str
    value_text: str
    width: float
    low: float | None = None
    high: float | None = None
    tone: str = "neutral"


def _category_bars(metrics: RunMetrics) -> list[Bar]:
    rows = [(name, m) for name, m in metrics.by_category.items() if m.pass_rate is not None]
    rows.sort(key=lambda item: (item[1].pass_rate or 0.0, item[0]))
    bars = []
    for name, m in rows:
        rate = m.pass_rate or 0.0
        ci = m.pass_rate_ci
        bars.append(
            Bar(
                label=name,
                value_text=f"{_pct(rate)} of {m.n:,}",
                width=rate * 100,
                low=ci.lower * 100 if ci else None,
                high=ci.upper * 100 if ci else None,
                tone=_tone(rate),
            )
        )
    return bars


def _histogram_bars(histogram: Mapping[str, int], limit: int = 20) -> list[Bar]:
    items = list(histogram.items())[:limit]
    top = max((count for _, count in items), default=0)
    return [
        Bar(label=mode, value_text=f"{count:,}", width=100 * count / top if top else 0.0)
        for mode, count in items
    ]


# -- worst cases and the embedded case data -----------------------------------------------------


@dataclass(frozen=True)
class ShownText:
    """A text cut to a display length, remembering whether it was cut."""

    text: str
    cut: bool

    @classmethod
    def of(cls, text: str | None, limit: int, already_cut: bool = False) -> ShownText | None:
        """Cut ``text`` to ``limit`` characters; ``None`` stays ``None``."""
        if text is None:
            return None
        return cls(text[:limit], already_cut or len(text) > limit)


@dataclass(frozen=True)
class WorstCaseView:
    """A worst case joined with its full case record, for the expandable list."""

    rank: int
    case: CaseScore
    index: int
    samples_text: str
    """How the probe's samples fared, e.g. "3 of 3 samples failed"; empty for one sample."""
    task: ShownText
    probe_input: ShownText
    response: ShownText | None
    trace: list[TraceLine]
    """The case's tool calls, each argument and result cut to the display length."""


def _worst_views(report: Report, limit: int) -> list[WorstCaseView]:
    where = {(c.probe_id, c.sample): i for i, c in enumerate(report.cases)}
    views = []
    for rank, entry in enumerate(worst_probes(report), start=1):
        worst = entry.worst
        index = where.get((worst.probe_id, worst.sample))
        if index is None:
            continue  # metrics always come from these cases; a hand-edited report may differ
        case = report.cases[index]
        views.append(
            WorstCaseView(
                rank=rank,
                case=case,
                index=index,
                samples_text=entry.samples_text,
                task=ShownText(case.task[:limit], len(case.task) > limit),
                probe_input=ShownText(case.probe_input[:limit], len(case.probe_input) > limit),
                response=ShownText.of(case.response, limit, case.response_truncated),
                trace=[
                    replace(
                        line,
                        arguments=line.arguments[:limit],
                        result=None if line.result is None else line.result[:limit],
                    )
                    for line in call_trace(case)
                ],
            )
        )
    return views


class _Strings:
    """Interned strings of the embedded data: repeated refusals and explanations cost once."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def cost(self, text: str) -> int:
        """Bytes adding ``text`` would take (0 when it is already in the table)."""
        return 0 if text in self.index else _json_size(show_invisible(text)) + 1

    def add(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.items)
            self.items.append(text)
        return found


def _priority(cases: Sequence[CaseScore]) -> list[int]:
    """Case indices in the order their texts are worth embedding.

    Failures first, then low-confidence passes (listed first for review), errors, the rest.
    """

    def key(i: int) -> tuple[int, float, int]:
        case = cases[i]
        low = case.verdict_confidence is not None and case.verdict_confidence < LOW_CONFIDENCE
        group = 0 if case.passed is False else (1 if low else (2 if case.passed is None else 3))
        return (group, -(case.weighted_risk or 0.0), i)

    return sorted(range(len(cases)), key=key)


def _text_limit(cases: Sequence[CaseScore], order: Sequence[int], limit: int, budget: int) -> int:
    """Longest cut among ``limit``, 2/3, 1/2, 1/3, 1/4 of it whose failure texts fit ``budget``.

    An estimate (characters plus 10% for JSON escapes), used only to choose the cut; the
    embedding itself still counts every byte.
    """
    failures = [i for i in order if cases[i].passed is False]
    candidates = [limit, limit * 2 // 3, limit // 2, limit // 3, limit // 4]
    for candidate in candidates:
        need = 0
        seen: set[str] = set()
        for i in failures:
            case = cases[i]
            need += min(len(case.response or ""), candidate) + 24
            if case.probe_id not in seen:
                seen.add(case.probe_id)
                need += min(len(case.task), candidate) + min(len(case.probe_input), candidate)
        if need * 1.1 <= budget:
            return candidate
    return candidates[-1]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _case_data(report: Report, limits: HtmlLimits, reserved: int) -> dict[str, Any]:
    """Columnar case data for the explorer; texts embedded in priority order within budget."""
    cases = report.cases
    categories = sorted({c.category for c in cases})
    strings = _Strings()
    probes, columns = _case_columns(cases, categories, strings)
    skeleton = script_json({"p": probes, "c": columns, "s": strings.items, "k": categories})
    budget = limits.data_budget_bytes - reserved - len(skeleton.encode("utf-8"))
    order = _priority(cases)
    explained, budget = _embed_explanations(
        cases, order, columns, strings, budget, limits.case_text_chars
    )
    # Responses and probe texts go in the same order, with what is left; cut shorter on big
    # runs so that every failure gets at least the start of its response.
    limit = _text_limit(cases, order, limits.case_text_chars, budget)
    embedded = _embed_texts(cases, order[:explained], probes, columns, strings, budget, limit)
    return {
        "categories": categories,
        "severities": [severity.value for severity in SEVERITIES],
        "probes": probes,
        "cases": columns,
        "strings": strings.items,
        "total": len(cases),
        "readings": _READINGS,
        "low_confidence": LOW_CONFIDENCE,
        "explanations_embedded": explained,
        "texts_embedded": embedded,
        "text_chars": limit,
    }


_READINGS = [intent.value for intent in Intent]
"""The intent readings, by the index the case columns give."""


def _case_columns(
    cases: Sequence[CaseScore], categories: list[str], strings: _Strings
) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """The probes' and the cases' columns, texts not yet embedded (-1: no text)."""
    category_index = {name: i for i, name in enumerate(categories)}
    probe_index: dict[str, int] = {}
    probes: dict[str, list[Any]] = {
        "id": [],
        "category": [],
        "severity": [],
        "expected": [],
        "task": [],
        "input": [],
    }
    columns: dict[str, list[Any]] = {
        "probe": [],
        "sample": [],
        "verdict": [],
        "risk": [],
        "weighted": [],
        "error": [],
        "explanation": [],
        "response": [],
        "cut": [],
        "trace": [],
        "reading": [],
        "confidence": [],
        "cues": [],
        "judge": [],
    }
    for case in cases:
        slot = probe_index.get(case.probe_id)
        if slot is None:
            slot = probe_index[case.probe_id] = len(probes["id"])
            probes["id"].append(case.probe_id)
            probes["category"].append(category_index[case.category])
            probes["severity"].append(SEVERITIES.index(case.severity))
            probes["expected"].append(case.expected.value)
            probes["task"].append(-1)
            probes["input"].append(-1)
        columns["probe"].append(slot)
        columns["sample"].append(case.sample)
        columns["verdict"].append(None if case.passed is None else int(case.passed))
        columns["risk"].append(_round(case.risk_score))
        columns["weighted"].append(_round(case.weighted_risk))
        columns["error"].append(-1 if case.error is None else strings.add(case.error))
        columns["explanation"].append(-1)
        columns["response"].append(-1)
        columns["cut"].append(0)
        columns["trace"].append(-1)
        columns["reading"].append(None if case.verdict is None else _READINGS.index(case.verdict))
        columns["confidence"].append(_round(case.verdict_confidence))
        columns["cues"].append(
            strings.add(", ".join(case.verdict_cues)) if case.verdict_cues else -1
        )
        judge = case.judge
        columns["judge"].append(
            -1
            if judge is None
            else strings.add(
                f"{judge.verdict.value} ({'agrees' if judge.agrees else 'disagrees'}, "
                f"{judge.model}): {judge.rationale}"
            )
        )
    return probes, columns


def _embed_explanations(
    cases: Sequence[CaseScore],
    order: Sequence[int],
    columns: dict[str, list[Any]],
    strings: _Strings,
    budget: int,
    limit: int,
) -> tuple[int, int]:
    """Embed explanations in ``order`` while they fit: how many went in, and the budget left.

    Explanations are short and mostly shared between cases; the index replacing each -1 costs
    a few more bytes (8 covers 7 digits).
    """
    explained = 0
    for i in order:
        explanation = cases[i].explanation[:limit]
        cost = strings.cost(explanation) + 8
        if cost > budget:
            break  # cases go in priority order, so what is left out is the least telling
        budget -= cost
        columns["explanation"][i] = strings.add(explanation)
        explained += 1
    return explained, budget


def _embed_texts(
    cases: Sequence[CaseScore],
    order: Sequence[int],
    probes: dict[str, list[Any]],
    columns: dict[str, list[Any]],
    strings: _Strings,
    budget: int,
    limit: int,
) -> int:
    """Embed responses, tool-call traces and probe texts, cut at ``limit``, while they fit.

    Returns how many cases, in ``order``, got theirs.
    """
    embedded = 0
    for i in order:
        case = cases[i]
        slot = columns["probe"][i]
        response = case.response[:limit] if case.response is not None else None
        trace = trace_text(call_trace(case), limit) if case.tool_calls else None
        task = case.task[:limit]
        probe_input = case.probe_input[:limit]
        need_probe = probes["task"][slot] == -1
        cost = 24 + (strings.cost(response) if response is not None else 0)
        cost += strings.cost(trace) + 8 if trace is not None else 0
        if need_probe:
            cost += strings.cost(task) + strings.cost(probe_input)
        if cost > budget:
            break
        budget -= cost
        embedded += 1
        if response is not None:
            columns["response"][i] = strings.add(response)
            columns["cut"][i] = int(case.response_truncated or len(case.response or "") > limit)
        if trace is not None:
            columns["trace"][i] = strings.add(trace)
        if need_probe:
            probes["task"][slot] = strings.add(task)
            probes["input"][slot] = strings.add(probe_input)
    return embedded


def _scatter_data(report: Report, limits: HtmlLimits) -> dict[str, Any] | None:
    """Scatter points (seeded uniform sample above the cap) and the cluster legend."""
    obs = report.observability
    if obs is None:
        return None
    points = list(_observability_points(report))
    total = len(points)
    keep = np.arange(total)
    if total > limits.max_scatter_points:
        rng = np.random.default_rng(limits.sample_seed)
        keep = np.sort(rng.choice(total, size=limits.max_scatter_points, replace=False))
    chosen = [points[int(i)] for i in keep]
    return {
        "total": total,
        "case": [p[0] for p in chosen],
        "x": [round(p[1], 4) for p in chosen],
        "y": [round(p[2], 4) for p in chosen],
        "cluster": [p[3] for p in chosen],
        "clusters": _cluster_legend(report),
    }


def _observability_points(report: Report) -> Iterable[tuple[int, float, float, int]]:
    """(case index, x, y, cluster id) for every case the observability placed."""
    obs = report.observability
    assert obs is not None
    where = {(c.probe_id, c.sample): i for i, c in enumerate(report.cases)}
    for point in obs.points:
        index = where.get((point.probe_id, point.sample))
        if index is not None:
            yield index, point.scatter_x, point.scatter_y, point.cluster


def _cluster_legend(report: Report) -> list[dict[str, Any]]:
    obs = report.observability
    assert obs is not None
    return [{"id": c.cluster, "size": c.size} for c in obs.clusters]


# -- public API ---------------------------------------------------------------------------------


def render_report_html(report: Report, *, limits: HtmlLimits | None = None) -> str:
    """Render ``report`` as one self-contained HTML page (no network, escaped throughout)."""
    limits = limits or HtmlLimits()
    metrics = report.aggregate_metrics
    scatter = _scatter_data(report, limits)
    reserved = len(script_json(scatter).encode("utf-8")) if scatter else 0
    data = _case_data(report, limits, reserved)
    data["scatter"] = scatter
    data["palette"] = list(PALETTE)
    payload = script_json(_visible(data))
    return render_page(
        "report.html.j2",
        script=_asset("report.js"),
        report=report,
        target=target_line(report),
        metrics=metrics,
        palette=PALETTE,
        provenance=report.provenance,
        config_json=json.dumps(report.provenance.config, indent=2, sort_keys=True),
        category_bars=_category_bars(metrics),
        mode_bars=_histogram_bars(metrics.failure_mode_histogram),
        worst=_worst_views(report, limits.worst_case_chars),
        scatter=scatter,
        texts_embedded=data["texts_embedded"],
        explanations_embedded=data["explanations_embedded"],
        text_chars=data["text_chars"],
        limits=limits,
        data=Markup(payload),
    )


def write_report_html(
    report: Report, path: str | Path, *, limits: HtmlLimits | None = None
) -> None:
    """Write :func:`render_report_html` of ``report`` to ``path`` atomically."""
    atomic_write_text(path, render_report_html(report, limits=limits))
