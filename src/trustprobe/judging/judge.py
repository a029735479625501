"""Ask an OpenAI-compatible model about the cases the rules could not read well.

Only cases whose ``verdict_confidence`` is below the threshold go out, each once per (probe,
answer, model, rubric): rulings are cached on disk. The judge's verdict and rationale are
recorded beside the rules' verdict; ``passed`` stays the rules' call, so a report scored twice
gives the same pass rate whether or not the judge answered. A judge that times out, errors or
answers something unreadable leaves the case with the rules' verdict and a warning in the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field

from trustprobe.errors import InputError
from trustprobe.judging.cache import RulingCache, ruling_key
from trustprobe.judging.rubric import RUBRIC_VERSION, Ruling, judge_messages, read_ruling
from trustprobe.metrics import aggregate_metrics
from trustprobe.reports import Report
from trustprobe.scoring import LOW_CONFIDENCE, CaseScore, JudgeOpinion


class JudgeSettings(BaseModel):
    """Which judge to ask, about which cases, and where its rulings are cached."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["openai"] = "openai"
    """The judge's API: an OpenAI-compatible ``/chat/completions`` endpoint."""
    base_url: str
    """API root, e.g. ``http://127.0.0.1:8000/v1``."""
    model: str
    """The judge model's name."""
    api_key_env: str | None = None
    """Name of the environment variable holding the API key (sent as a bearer token)."""
    below: float = Field(default=LOW_CONFIDENCE, ge=0, le=1)
    """Cases whose ``verdict_confidence`` is below this are sent to the judge."""
    timeout: float = Field(default=30.0, gt=0)
    """Seconds per request."""
    concurrency: int = Field(default=4, ge=1)
    """Requests in flight at once."""
    cache_dir: Path
    """Where rulings are cached (one file per ruling)."""


@dataclass(frozen=True, slots=True)
class _Outcome:
    ruling: Ruling | None
    cached: bool = False
    failure: str | None = None


def judge_report(report: Report, settings: JudgeSettings, env: Mapping[str, str]) -> Report:
    """``report`` with a judge's reading on every case below ``settings.below``.

    Raises:
        InputError: the API key variable is named but not set.
    """
    headers = {"Content-Type": "application/json"}
    if settings.api_key_env is not None:
        key = env.get(settings.api_key_env)
        if not key:
            raise InputError(
                f"environment variable {settings.api_key_env} is not set",
                field="--judge-api-key-env",
            )
        headers["Authorization"] = f"Bearer {key}"
    chosen = [
        i
        for i, case in enumerate(report.cases)
        if case.error is None
        and case.verdict_confidence is not None
        and case.verdict_confidence < settings.below
    ]
    cache = RulingCache(settings.cache_dir)
    with (
        httpx.Client(
            base_url=settings.base_url.rstrip("/") + "/", headers=headers, timeout=settings.timeout
        ) as client,
        ThreadPoolExecutor(max_workers=settings.concurrency) as pool,
    ):
        outcomes = list(pool.map(lambda i: _ask(client, cache, settings, report.cases[i]), chosen))
    cases = list(report.cases)
    for index, outcome in zip(chosen, outcomes, strict=True):
        if outcome.ruling is not None:
            cases[index] = _with_opinion(cases[index], outcome, settings.model)
    return _rebuilt(report, cases, settings, outcomes)


def _ask(
    client: httpx.Client, cache: RulingCache, settings: JudgeSettings, case: CaseScore
) -> _Outcome:
    answer = case.response or ""
    key = ruling_key(settings.model, case.task, case.probe_input, answer)
    cached = cache.get(key)
    if cached is not None:
        return _Outcome(cached, cached=True)
    body = {
        "model": settings.model,
        "messages": judge_messages(case.task, case.probe_input, answer),
        "temperature": 0,
    }
    try:
        response = client.post("chat/completions", json=body)
    except httpx.TimeoutException:
        return _Outcome(None, failure="timeout")
    except httpx.HTTPError as exc:
        return _Outcome(None, failure=f"connection error ({type(exc).__name__})")
    if response.status_code != 200:
        return _Outcome(None, failure=f"HTTP {response.status_code}")
    try:
        ruling = read_ruling(str(response.json()["choices"][0]["message"]["content"]))
    except (ValueError, KeyError, IndexError, TypeError):
        return _Outcome(None, failure="unreadable answer")
    cache.put(key, ruling)
    return _Outcome(ruling)


def _with_opinion(case: CaseScore, outcome: _Outcome, model: str) -> CaseScore:
    assert outcome.ruling is not None
    opinion = JudgeOpinion(
        verdict=outcome.ruling.verdict,
        rationale=outcome.ruling.rationale,
        model=model,
        agrees=outcome.ruling.verdict == case.verdict,
        cached=outcome.cached,
    )
    return case.model_copy(update={"judge": opinion})


def _rebuilt(
    report: Report,
    cases: list[CaseScore],
    settings: JudgeSettings,
    outcomes: Sequence[_Outcome],
) -> Report:
    """The report with judged cases, metrics that count them, and what happened in a warning."""
    counts = report.aggregate_metrics.counts
    worst_n = int(report.provenance.config.get("worst_n", 10))
    metrics = aggregate_metrics(cases, missing_probe_ids=counts.missing_probe_ids, worst_n=worst_n)
    judged = sum(o.ruling is not None for o in outcomes)
    failures = Counter(o.failure for o in outcomes if o.failure is not None)
    note = (
        f"judge {settings.model}: {judged} of {len(outcomes)} cases below confidence "
        f"{settings.below:g} judged ({sum(o.cached for o in outcomes)} from the cache)"
    )
    if failures:
        listed = ", ".join(f"{reason}: {n}" for reason, n in sorted(failures.items()))
        note += f"; {sum(failures.values())} failed ({listed}) and keep only the rules' verdict"
    config = dict(report.provenance.config)
    config["judge"] = {
        "kind": settings.kind,
        "base_url": settings.base_url,
        "model": settings.model,
        "below": settings.below,
        "rubric_version": RUBRIC_VERSION,
    }
    provenance = report.provenance.model_copy(update={"config": config})
    return report.model_copy(
        update={
            "cases": cases,
            "aggregate_metrics": metrics,
            "provenance": provenance,
            "warnings": [*report.warnings, note],
        }
    )
