"""``trustprobe trust``: composite trust scores from evidence, and evidence from a probe report."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from pydantic import TypeAdapter, ValidationError
from rich import box
from rich.markup import escape
from rich.table import Table

from trustprobe.cli.console import console, err_console
from trustprobe.cli.file_options import check_outputs_apart
from trustprobe.errors import InputError
from trustprobe.formats import Identifier, atomic_write_text
from trustprobe.reports import read_report
from trustprobe.trust import (
    Evidence,
    TrustScore,
    compute_trust_score,
    evidence_canonical_json,
    evidence_from_report,
    load_category_mapping,
    load_evidence,
    load_trust_config,
    report_created_at,
    resolve_weights,
    write_trust_html,
)

app = typer.Typer(
    help="Composite trust: 16 dimensions, decay, jury, security gate, tiers.",
    no_args_is_help=True,
)


def parse_moment(text: str, option: str) -> datetime:
    """Parse an RFC 3339 time given to ``option``; it must carry a timezone offset."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InputError(f"not an RFC 3339 time: {text!r}", field=option) from exc
    if moment.tzinfo is None:
        raise InputError("needs a timezone offset (e.g. 'Z' or '+02:00')", field=option)
    try:
        return moment.astimezone(UTC)
    except OverflowError as exc:  # 0001-01-01T00:00:00+05:00 is before year 1 in UTC
        raise InputError(f"{text!r} lies outside the years 1 to 9999 in UTC", field=option) from exc


_AGENT: TypeAdapter[str] = TypeAdapter(Identifier)


def parse_agent(text: str, option: str = "--agent") -> str:
    """An agent id given to ``option``, held to the rules every evidence record's id follows."""
    try:
        return _AGENT.validate_python(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        cause = (first.get("ctx") or {}).get("error")
        raise InputError(str(cause or first["msg"]), field=option) from None


def _number(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _render(result: TrustScore) -> None:
    table = Table(
        title=f"Trust score of {result.agent_id} as of {result.as_of.isoformat()}",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        caption="— : no evidence (excluded, weight redistributed); low: jury under the minimum",
    )
    table.add_column("dimension", no_wrap=True)
    for header in ("raw", "score", "weight", "eff.w", "points", "items", "age d"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("note", no_wrap=True)
    for dimension, line in result.dimensions.items():
        note = "low" if line.low_confidence else ""
        table.add_row(
            dimension.value,
            _number(line.raw_score),
            _number(line.score),
            f"{line.weight:.3f}",
            f"{line.effective_weight:.3f}",
            _number(line.contribution),
            str(line.evidence_count),
            _number(line.freshest_age_days),
            note,
        )
    console.print(table)
    if result.composite is None:
        console.print("composite: [bold]null[/] — tier [bold]unrated[/]", markup=True)
    else:
        interval = result.interval
        spread = "" if interval is None else f" (interval {interval.low}–{interval.high})"
        console.print(
            f"composite: [bold]{result.composite}[/]{spread} — tier [bold]{result.tier}[/]",
            markup=True,
        )
    margin = result.tier_margin
    if margin.next_tier is not None:
        console.print(
            f"tier margin: {margin.points_above_floor} above the floor, "
            f"{margin.points_to_next} to {margin.next_tier}"
        )
    elif margin.points_above_floor is not None:
        console.print(f"tier margin: {margin.points_above_floor} above the floor")
    coverage = result.coverage
    console.print(
        f"coverage: {coverage.covered_count}/{coverage.total} dimensions; "
        f"requirement {'met' if coverage.meets_requirement else 'not met'}"
    )
    gate = result.security_gate
    verdict = f"applied — {gate.reason}" if gate.applied else "clear"
    console.print(f"security gate: {verdict}")
    console.print(f"weights: {result.weights_source}")
    for source in result.sources:
        run = f"run {source.run_id}" if source.run_id else "no run id"
        digest = f", sha256 {source.file_sha256[:12]}" if source.file_sha256 else ""
        dimensions = ", ".join(d.value for d in source.dimensions)
        console.print(
            escape(
                f"source: {source.tool} {source.tool_version or ''} {run} "
                f"({source.file or 'no file'}{digest}): {source.evidence_count} item(s) → "
                f"{dimensions}; families {', '.join(source.families) or '—'}"
            ),
            soft_wrap=True,
            highlight=False,
            markup=True,
        )
    for reason in result.reasons:
        console.print(f"• {reason}")


def _warn_if_about_others(path: Path, agent: str, records: list[Evidence]) -> None:
    """Say whom a file is about when it holds nothing about ``agent`` (a typo scores null)."""
    if not records or any(r.agent_id == agent for r in records):
        return
    agents = Counter(r.agent_id for r in records)
    named = ", ".join(f"{n} record(s) about {a!r}" for a, n in agents.most_common(5))
    more = f" and {len(agents) - 5} more agent(s)" if len(agents) > 5 else ""
    err_console.print(
        escape(f"warning: {path} holds no evidence about agent {agent!r}; it has {named}{more}"),
        style="yellow",
        soft_wrap=True,
        markup=True,
    )


@app.command("score")
def score(
    evidence: Annotated[Path, typer.Option("--evidence", "-e", help="Evidence JSONL file.")],
    agent: Annotated[str, typer.Option("--agent", "-a", help="Agent id to score.")],
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="RFC 3339 time of the score (default: now).")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the score as JSON.")] = False,
    weights_override: Annotated[
        Path | None, typer.Option("--weights-override", help="Partial weight override (JSON).")
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Trust settings (JSON or YAML).")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Also write the score and its sources as an HTML page."),
    ] = None,
) -> None:
    """Score one agent from an evidence file and explain the result."""
    agent = parse_agent(agent)
    optional = [p for p in (weights_override, config) if p is not None]
    check_outputs_apart([evidence, *optional], [("--html", html)])
    now = datetime.now(UTC) if as_of is None else parse_moment(as_of, "--as-of")
    settings = None if config is None else load_trust_config(config)
    weights = resolve_weights(settings, override_path=weights_override)
    records = load_evidence(evidence)
    result = compute_trust_score(agent, records, now=now, config=settings, weights=weights)
    _warn_if_about_others(evidence, agent, records)
    if html is not None:
        write_trust_html(result, html)
    if json_output:
        typer.echo(result.model_dump_json(indent=2))
    else:
        _render(result)


@app.command("evidence")
def evidence(
    report: Annotated[Path, typer.Argument(help="Probe report JSON.")],
    agent: Annotated[str, typer.Option("--agent", "-a", help="Agent the report is about.")],
    observed_at: Annotated[
        str | None,
        typer.Option(
            "--observed-at", help="RFC 3339 time (default: the report's provenance.created_at)."
        ),
    ] = None,
    mapping: Annotated[
        Path | None, typer.Option("--mapping", help="Category → dimension mapping (JSON or YAML).")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write evidence JSONL here (default: stdout)."),
    ] = None,
) -> None:
    """Turn a probe report into evidence records (JSONL)."""
    agent = parse_agent(agent)
    check_outputs_apart([report, *([] if mapping is None else [mapping])], [("--output", output)])
    data = read_report(report)
    if observed_at is not None:
        moment = parse_moment(observed_at, "--observed-at")
    else:
        created = report_created_at(data)
        if created is None:
            raise InputError(
                "the report has no timezone-aware provenance.created_at; pass --observed-at",
                path=report,
                field="provenance.created_at",
            )
        moment = created
    records = evidence_from_report(
        data,
        agent_id=agent,
        observed_at=moment,
        mapping=None if mapping is None else load_category_mapping(mapping),
        path=report,
    )
    text = "".join(evidence_canonical_json(r) + "\n" for r in records)
    if output is None:
        typer.echo(text, nl=False)
    else:
        atomic_write_text(output, text)
