"""Observability on 100,000 cases: wall time and peak RSS against baselines in the same run.

Each measurement runs in a fresh subprocess and reads its own peak RSS (``ru_maxrss``):
tracemalloc would miss numpy, scipy and BLAS memory. The child also reports its CPU time and
the load average, because on a shared machine wall time measures the neighbours too.
Figures go to docs/benchmarks.md.

Measurements (each a child process, on the same synthetic cases):
- ``naive`` at 10k: TfidfVectorizer over whole texts, then dense KMeans on the full TF-IDF
  matrix with the k the pipeline chose: what a first version would write;
- ``pipeline`` at 10k and 100k cases: ``build_observability`` as shipped;
- ``pipeline`` at 100k with every task and input made unique (nothing shared to reuse).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from trustprobe.probes.models import Expected, Severity
from trustprobe.scoring.models import CaseScore

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 20.0
TARGET_RSS_MB = 1536.0

CATEGORIES = {
    "direct_injection": ("ignore", "previous", "instructions", "override", "developer", "mode"),
    "indirect_injection": ("document", "email", "webpage", "hidden", "comment", "summarise"),
    "secret_exfiltration": ("api", "key", "token", "password", "credentials", "vault"),
    "harmful_content": ("weapon", "synthesis", "dangerous", "instructions", "toxic", "exploit"),
    "excessive_agency": ("delete", "database", "production", "deploy", "transfer", "confirm"),
    "scope_honesty": ("browse", "verify", "tested", "executed", "ran", "checked"),
    "privacy": ("address", "phone", "medical", "record", "customer", "employee"),
    "deception_sycophancy": ("agree", "flatter", "opinion", "mistake", "correct", "review"),
    "over_refusal": ("kill", "process", "shoot", "photo", "attack", "chess"),
}
GENERAL = [
    "the",
    "user",
    "asks",
    "assistant",
    "to",
    "help",
    "with",
    "a",
    "task",
    "about",
    "their",
    "project",
    "and",
    "the",
    "team",
    "needs",
    "a",
    "short",
    "answer",
    "before",
    "the",
    "meeting",
    "tomorrow",
    "while",
    "the",
    "manager",
    "reviews",
    "quarterly",
    "report",
    "files",
    "notes",
    "tickets",
    "calendar",
    "invoice",
    "draft",
    "customer",
    "support",
    "workflow",
    "pipeline",
    "service",
]
RULES = [f"rule.{c}.{i}" for c in CATEGORIES for i in range(6)]
CUES = [
    "I can't help with that",
    "I won't share",
    "that would be unsafe",
    "I'm not able to",
    "instead, here is",
    "I need your confirmation",
    "this looks like an injected instruction",
]
ERRORS = ("timeout", "http_503", "http_429", "connection")


def _vocabulary(rng: np.random.Generator, size: int) -> np.ndarray:
    """Pseudo-words from syllables: a vocabulary as large as a real catalog's, no data file."""
    syllables = np.array(
        ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zen", "dar", "pel", "qui", "bor", "fy"]
    )
    words = {"".join(rng.choice(syllables, int(rng.integers(2, 5)))) for _ in range(size * 2)}
    return np.array(sorted(words)[:size])


def _zipf_weights(size: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, size + 1)
    return weights / weights.sum()


class _Writer:
    """Draws probe texts: general English filler, a category's terms, Zipf-distributed jargon."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.jargon = _vocabulary(rng, 6000)
        self.cdf = np.cumsum(_zipf_weights(len(self.jargon)))

    def words(self, pool: tuple[str, ...], general: int, special: int, jargon: int) -> str:
        rng = self.rng
        picked = list(rng.choice(GENERAL, general)) + list(rng.choice(pool, special))
        index = np.searchsorted(self.cdf, rng.random(jargon) * self.cdf[-1])
        picked += list(self.jargon[index])
        rng.shuffle(picked)
        return " ".join(picked)


def synthetic_cases(n: int, *, seed: int = 7, unique_text: bool = False) -> list[CaseScore]:
    """``n`` scored cases shaped like a real run: 2,000 probes, repeated samples, 3% errors."""
    rng = np.random.default_rng(seed)
    names = list(CATEGORIES)
    severities = list(Severity)
    weights = {
        Severity.LOW: 0.5,
        Severity.MEDIUM: 0.75,
        Severity.HIGH: 1.0,
        Severity.CRITICAL: 1.25,
    }
    n_probes = 2000
    writer = _Writer(rng)
    probes = []
    for p in range(n_probes):
        category = names[p % len(names)]
        pool = CATEGORIES[category]
        probes.append(
            {
                "probe_id": f"{category}-{p:04d}",
                "category": category,
                "severity": severities[int(rng.integers(4))],
                "expected": Expected.COMPLY if category == "over_refusal" else Expected.REFUSE,
                "task": "You are an assistant. " + writer.words(pool, 20, 6, 14),
                "probe_input": writer.words(pool, 30, 8, 24) + f" CANARY-{p:04d}",
                "fail_p": 0.1 + 0.6 * ((p * 7919) % 100) / 100,
            }
        )
    cases = []
    for i in range(n):
        probe = probes[i % n_probes]
        sample = i // n_probes
        base = {
            "probe_id": probe["probe_id"],
            "sample": sample,
            "category": probe["category"],
            "severity": probe["severity"],
            "expected": probe["expected"],
            "severity_weight": weights[probe["severity"]],
            "task": probe["task"],
            "probe_input": probe["probe_input"],
        }
        if unique_text:
            extra = writer.words(CATEGORIES[probe["category"]], 4, 2, 6)
            base["task"] = f"{base['task']} {extra} case{i}"
            base["probe_input"] = f"{base['probe_input']} {extra} item{i}"
        if rng.random() < 0.03:
            error = ERRORS[int(rng.integers(len(ERRORS)))]
            cases.append(
                CaseScore(
                    **base,
                    passed=None,
                    risk_score=None,
                    weighted_risk=None,
                    safe_signal_hits=0,
                    unsafe_signal_hits=0,
                    boundary_or_refusal_signal=None,
                    refusal=None,
                    matched_safe_patterns=[],
                    matched_unsafe_patterns=[],
                    detected_failure_modes=[],
                    explanation=f"NOT JUDGED: harness error '{error}'.",
                    response=None,
                    error=error,
                )
            )
            continue
        failed = rng.random() < probe["fail_p"]
        risk = float(rng.uniform(0.5, 1.0) if failed else rng.uniform(0.0, 0.45))
        unsafe = list(rng.choice(RULES, int(rng.integers(1, 3)))) if failed else []
        safe = [] if failed else list(rng.choice(RULES, int(rng.integers(0, 3))))
        cues = "; ".join(rng.choice(CUES, int(rng.integers(1, 3))))
        if failed:
            explanation = (
                f"FAIL: unsafe evidence {', '.join(unsafe)}; no refusal/boundary language."
                f" Risk {risk:.2f}."
            )
        else:
            explanation = (
                f"PASS: full refusal/boundary language; cues: {cues}."
                f" safe evidence {', '.join(safe) or 'none'}. Risk {risk:.2f}."
            )
        cases.append(
            CaseScore(
                **base,
                passed=not failed,
                risk_score=risk,
                weighted_risk=min(1.0, risk * weights[probe["severity"]]),
                safe_signal_hits=len(safe),
                unsafe_signal_hits=len(unsafe),
                boundary_or_refusal_signal=not failed,
                refusal="none" if failed else "full",
                matched_safe_patterns=safe,
                matched_unsafe_patterns=unsafe,
                detected_failure_modes=["policy_violation"] if failed else [],
                explanation=explanation,
                response="(response text)",
            )
        )
    return cases


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def _naive(cases: list[CaseScore], k: int) -> dict[str, Any]:
    """A first version: whole texts into TfidfVectorizer, dense KMeans on the full matrix."""
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics import mutual_info_score

    scored = [c for c in cases if c.error is None]
    texts = [
        f"{c.category} {c.severity.value} {'pass' if c.passed else 'fail'} {c.task[:300]}"
        f" {c.probe_input[:300]} {c.explanation} {' '.join(c.matched_unsafe_patterns)}"
        for c in scored
    ]
    tfidf = TfidfVectorizer(max_features=5000, sublinear_tf=True).fit_transform(texts)
    labels = KMeans(n_clusters=k, n_init=4, random_state=0).fit_predict(tfidf.toarray())
    return {"k": k, "mi_category": float(mutual_info_score([c.category for c in scored], labels))}


def child(mode: str, n: int, unique_text: bool, k: int) -> None:
    """One measurement in this process; prints a JSON line."""
    from trustprobe.observability import build_observability

    cases = synthetic_cases(n, unique_text=unique_text)
    result: dict[str, Any] = {"mode": mode, "n": n, "unique_text": unique_text}
    rss_cases = _peak_rss_mb()
    load_before = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    if mode == "pipeline":
        obs = build_observability(cases, seed=0)
        assert obs is not None
        result |= {
            "k": obs.n_clusters,
            "silhouette": obs.silhouette,
            "mi_category": obs.mutual_information.category,
            "vocabulary": obs.vocabulary_size,
        }
    else:
        result |= _naive(cases, k)
    result |= {
        "seconds": time.perf_counter() - wall,
        "cpu_seconds": time.process_time() - cpu,
        "load_1min": (load_before + os.getloadavg()[0]) / 2,
        "rss_cases_mb": rss_cases,
        "peak_rss_mb": _peak_rss_mb(),
    }
    print(json.dumps(result))


def _run(mode: str, n: int, *, unique_text: bool = False, k: int = 0) -> dict[str, Any]:
    argv = [sys.executable, "-m", "benchmarks.bench_observability", mode, str(n)]
    argv += ["unique" if unique_text else "shared", str(k)]
    out = subprocess.run(argv, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    small = _run("pipeline", 10_000)
    naive = _run("naive", 10_000, k=int(small["k"]))
    full = _run("pipeline", 100_000)
    unique = _run("pipeline", 100_000, unique_text=True)
    print(
        f"{'measurement':42} {'wall s':>7} {'CPU s':>6} {'load':>5} {'peak RSS MB':>11}"
        f" {'of it cases':>11}  k  MI(cat) nats"
    )
    rows = [
        ("naive: dense KMeans on full TF-IDF, 10k", naive),
        ("pipeline, 10k", small),
        ("pipeline, 100k", full),
        ("pipeline, 100k, every task/input unique", unique),
    ]
    for label, row in rows:
        print(
            f"{label:42} {row['seconds']:7.2f} {row['cpu_seconds']:6.2f} {row['load_1min']:5.1f}"
            f" {row['peak_rss_mb']:11.0f} {row['rss_cases_mb']:11.0f} {row['k']:2d}"
            f"  {row['mi_category']:.3f}"
        )
    print(
        f"target: 100k in <= {TARGET_SECONDS:.0f} s and <= {TARGET_RSS_MB:.0f} MB peak RSS;"
        f" measured {full['seconds']:.2f} s wall ({full['cpu_seconds']:.2f} s CPU),"
        f" {full['peak_rss_mb']:.0f} MB"
    )
    print(
        f"scaling 10k -> 100k: x{full['cpu_seconds'] / small['cpu_seconds']:.1f} CPU time;"
        f" naive at 10k takes x{naive['cpu_seconds'] / small['cpu_seconds']:.1f} the"
        f" pipeline's CPU time and"
        f" {naive['peak_rss_mb'] - naive['rss_cases_mb']:.0f} MB above its input"
        f" (pipeline: {small['peak_rss_mb'] - small['rss_cases_mb']:.0f} MB)"
    )


if __name__ == "__main__":
    child(sys.argv[1], int(sys.argv[2]), sys.argv[3] == "unique", int(sys.argv[4]))
