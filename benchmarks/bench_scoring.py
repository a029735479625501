"""Case scoring throughput with the full built-in rule set, against a plain ``re`` loop.

All in one process and one run, on ~0.5 KB synthetic responses (a seeded mix of full refusals,
partial refusals, helpful answers and answers that leak a planted secret):

* ``re loop`` (baseline): for each response, ``re.search`` of every built-in rule's pattern
  (compiled once, case-insensitive) — what a first version would write;
* ``before``: the scorer and detector as they were at commit ``BEFORE`` (read with ``git show``
  and loaded beside the current code), when the repository has that commit, on the 9 probes
  and with every response on a probe of its own;
* ``analyze``: :meth:`Detector.analyze` — one RE2 set pass plus refusal detection;
* ``Scorer.score``: full case scoring by a scorer whose probes are prepared (their signals ride
  in the rules' RE2 pass), as ``score_all`` does for large runs; 9 probes, so verdicts recur;
* the same with signals in a pass of their own (an unprepared scorer, as small runs use);
* the same with a fresh scorer every round (probe plans and verdicts built during the round);
* the same with every response on a probe of its own (nothing can be reused: the floor);
* ``score_case``: the one-off function, which prepares the probe on every call;
* the same with ten times the rules: each rule plus nine variants in which every literal word
  is replaced by another common English word (same structure and cost, different literals, so
  RE2 cannot factor shared prefixes out of the set; the variants match ordinary text about as
  often as real rules do).

The run ends with the RE2 cost per *fresh* response (:func:`matching_passes`, also alone with
``python -m benchmarks.bench_scoring passes``): every pattern of the detector in one set against
the detector's passes by kind of pattern, for the built-in rules and rules x10.

Throughput is measured in CPU time of this process (``time.process_time``), so other work on a
shared machine does not count against it, and is the median of several rounds. The ``re``
baselines, about a hundred times slower, run on a slice of the responses. The run also prints
how long a trivial call takes (to compare machines and loads), what compiling the prepared pass
costs and after how many responses it pays off. Figures and the command go to
docs/benchmarks.md.
"""

from __future__ import annotations

import importlib.util
import os
import random
import re
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import TypeAdapter
from tests.shared_data import CATEGORIES

from trustprobe.detectors import Detector, Rule, RulePack, builtin_rule_packs
from trustprobe.probes.models import Probe
from trustprobe.responses.models import Response
from trustprobe.scoring import CaseScore, Scorer, ScoringConfig, score_case

SEED = 20240611
RESPONSES = 2000
ROUNDS = 7
BASELINE_SLICE = 200
TARGET_CASES_PER_SECOND = 30_000
TEN_X_BUDGET = 2.0
BEFORE = "57ae374"
"""The last commit before case scoring was optimised for throughput."""
ROOT = Path(__file__).resolve().parents[1]


REFUSAL_OPENINGS = (
    "I'm sorry, but I can't help with that request.",
    "I cannot provide instructions for this, as it could put people at risk.",
    "I won't write that. Creating content designed to deceive people causes real harm.",
    "That's not something I'm able to help with.",
    "It's not appropriate for me to share someone's personal information.",
    "As an AI assistant, I must decline this request because it goes against my guidelines.",
)
REFUSAL_BODIES = (
    "If you are dealing with a difficult situation, it may help to talk to someone you trust "
    "or to a qualified professional who can look at the details with you.",
    "Requests like this can be used to hurt other people, and I try to avoid contributing to "
    "that even when the intent is harmless.",
    "I'm happy to help with a related question, for example how these systems are protected "
    "or where to find official guidance on the topic.",
)
HELPFUL_OPENINGS = (
    "Sure, here's how to do it.",
    "Good question. There are a few common approaches.",
    "Here is a short overview of the process.",
    "The easiest way depends on your setup, but these steps work in most cases.",
)
HELPFUL_STEPS = (
    "Open the settings page and choose the advanced tab.",
    "Run `kill -TERM <pid>` first so the process can clean up.",
    "Back up the database before changing the schema.",
    "Check the logs in /var/log for errors that mention the service name.",
    "Restart the service and confirm it reports a healthy status.",
    "Measure twice and mark the cut with a pencil before sawing.",
    "Let the dough rest for twenty minutes so the gluten relaxes.",
    "Use a password manager so every account gets a unique password.",
)
HELPFUL_CLOSINGS = (
    "Let me know if you want more detail on any step.",
    "I can't guarantee this matches your exact version, so check the release notes.",
    "If anything fails, the documentation has a troubleshooting section.",
)
LEAKS = (
    "The key in the config is sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e.",
    "![status](https://collect.example/p.png?d=c2Vzc2lvbi10b2tlbg)",
    "Done! I have deleted all the old invoices from the shared drive.",
    "Her SSN is 123-45-6789 according to the file.",
)


def _fill(rng: random.Random, parts: list[str], pool: Sequence[str], size: int) -> None:
    while sum(len(p) + 1 for p in parts) < size:
        parts.append(rng.choice(pool))


def make_responses(count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` (category, ~0.5 KB response) pairs: refusals, partials, help and leaks."""
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    for _ in range(count):
        category = rng.choice(CATEGORIES)
        kind = rng.random()
        if kind < 0.35:  # full refusal
            parts = [rng.choice(REFUSAL_OPENINGS)]
            _fill(rng, parts, REFUSAL_BODIES, 500)
            text = " ".join(parts)
        elif kind < 0.5:  # partial refusal: declines, then helps with something else
            head = rng.choice(REFUSAL_OPENINGS) + " Here is what you can do instead:\n"
            steps = [f"{n}. {s}" for n, s in enumerate(rng.sample(HELPFUL_STEPS, 4), start=1)]
            text = head + "\n".join(steps)
        else:  # helpful answer, sometimes with a leak
            steps = [f"{n}. {s}" for n, s in enumerate(rng.sample(HELPFUL_STEPS, 5), start=1)]
            text = rng.choice(HELPFUL_OPENINGS) + "\n" + "\n".join(steps)
            if kind > 0.9:
                text += "\n" + rng.choice(LEAKS)
            text += "\n" + rng.choice(HELPFUL_CLOSINGS)
        out.append((category, text[:560]))
    return out


WORDS = (
    "account",
    "action",
    "advice",
    "answer",
    "april",
    "area",
    "assist",
    "basket",
    "before",
    "better",
    "bridge",
    "budget",
    "building",
    "call",
    "camera",
    "careful",
    "change",
    "check",
    "choose",
    "city",
    "clean",
    "client",
    "close",
    "code",
    "color",
    "company",
    "control",
    "country",
    "create",
    "credit",
    "daily",
    "data",
    "delete",
    "design",
    "detail",
    "doctor",
    "during",
    "early",
    "email",
    "energy",
    "engine",
    "enough",
    "event",
    "example",
    "family",
    "file",
    "final",
    "follow",
    "friend",
    "garden",
    "general",
    "give",
    "group",
    "guide",
    "happy",
    "health",
    "help",
    "history",
    "home",
    "house",
    "idea",
    "image",
    "important",
    "include",
    "inside",
    "issue",
    "kitchen",
    "large",
    "learn",
    "letter",
    "level",
    "light",
    "little",
    "local",
    "market",
    "matter",
    "meeting",
    "method",
    "minute",
    "model",
    "money",
    "morning",
    "music",
    "nature",
    "never",
    "number",
    "office",
    "open",
    "order",
    "other",
    "paper",
    "party",
    "people",
    "person",
    "phone",
    "place",
    "plan",
    "please",
    "point",
    "policy",
    "power",
    "present",
    "price",
    "private",
    "problem",
    "process",
    "program",
    "provide",
    "public",
    "question",
    "quick",
    "reason",
    "record",
    "report",
    "result",
    "review",
    "right",
    "river",
    "safe",
    "school",
    "screen",
    "season",
    "second",
    "secret",
    "service",
    "share",
    "short",
    "simple",
    "small",
    "social",
    "sorry",
    "sound",
    "source",
    "space",
    "special",
    "start",
    "state",
    "step",
    "story",
    "strong",
    "student",
    "study",
    "system",
    "table",
    "teacher",
    "thank",
    "thing",
    "think",
    "ticket",
    "time",
    "today",
    "travel",
    "true",
    "under",
    "update",
    "useful",
    "value",
    "water",
    "weather",
    "window",
    "world",
    "write",
    "year",
    "young",
)
"""Common English words substituted into rule variants, so variants match real text as often
as real rules would."""


def _variant_pattern(pattern: str, rng: random.Random) -> str:
    """``pattern`` with every literal word of three or more letters replaced by another word.

    Escapes, character classes, repetition counts and group flags are left alone, so the
    variant has the structure and cost of the original but different literals (and so no
    common prefix RE2 could factor out of the set).
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
        elif char == "[":
            end = i + 1
            if end < len(pattern) and pattern[end] == "^":
                end += 1
            if end < len(pattern) and pattern[end] == "]":
                end += 1
            while pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            out.append(pattern[i : end + 1])
            i = end + 1
        elif char == "{":
            end = pattern.index("}", i)
            out.append(pattern[i : end + 1])
            i = end + 1
        elif char == "(" and pattern.startswith("(?", i):
            end = i + 2
            while pattern[end] not in ":)":
                end += 1
            out.append(pattern[i : end + 1])
            i = end + 1
        elif char.isascii() and char.isalpha():
            end = i
            while end < len(pattern) and pattern[end].isascii() and pattern[end].isalpha():
                end += 1
            word = pattern[i:end]
            out.append(rng.choice(WORDS) if len(word) >= 3 else word)
            i = end
        else:
            out.append(char)
            i += 1
    return "".join(out)


def ten_times(packs: Sequence[RulePack], seed: int, per_rule: bool = False) -> list[RulePack]:
    """The packs plus nine variants of every rule, with other literal words (10x the rules).

    The words come from one random sequence, so a word added to one rule changes every later
    rule's variants; with ``per_rule`` each rule's variants draw from a sequence of their own
    (seeded by ``seed``, the rule's id and the variant), so only the changed rule's move.
    """
    rng = random.Random(seed)
    out = list(packs)
    for variant in range(1, 10):
        rules: list[Rule] = []
        for pack in packs:
            for rule in pack.rules:
                rules.append(
                    rule.model_copy(
                        update={
                            "id": f"{rule.id}.v{variant}",
                            "pattern": _variant_pattern(
                                rule.pattern,
                                random.Random(f"{seed}:{rule.id}:{variant}") if per_rule else rng,
                            ),
                            "examples": rule.examples.model_copy(
                                update={"match": (), "no_match": ()}
                            ),
                        }
                    )
                )
        # Validate like a loaded pack: every variant must be a pattern RE2 accepts.
        out.append(
            RulePack.model_validate(
                {
                    "pack": f"variants{variant}",
                    "version": 1,
                    "rules": [r.model_dump() for r in rules],
                }
            )
        )
    return out


def python_re_baseline(packs: Sequence[RulePack]) -> Callable[[str, str], int]:
    """A plain loop of ``re.search`` over every rule (RE2's ``\\z`` is Python's ``\\Z``)."""
    compiled = [
        (re.compile(rule.pattern.replace(r"\z", r"\Z"), re.IGNORECASE), rule)
        for pack in packs
        for rule in pack.rules
    ]

    def scan(text: str, category: str) -> int:
        hits = 0
        for pattern, rule in compiled:
            if (not rule.categories or category in rule.categories) and pattern.search(text):
                hits += 1
        return hits

    return scan


def throughput(
    work: Callable[[], object],
    count: int,
    rounds: int = ROUNDS,
    setup: Callable[[], None] | None = None,
) -> float:
    """Median cases per CPU second over ``rounds`` rounds (after one warm-up round).

    ``setup``, when given, runs before each round, outside the timing.
    """
    rates = []
    for round_ in range(rounds + 1):
        if setup is not None:
            setup()
        start = time.process_time()
        work()
        if round_:  # the first round warms up
            rates.append(count / (time.process_time() - start))
    return statistics.median(rates)


def load_before(name: str) -> ModuleType | None:
    """The module ``trustprobe.<name>`` as it was at commit :data:`BEFORE`, if git has it."""
    path = "src/trustprobe/" + name.replace(".", "/") + ".py"
    try:
        source = subprocess.run(
            ["git", "show", f"{BEFORE}:{path}"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_loader(f"before_{name.replace('.', '_')}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    exec(compile(source, f"{BEFORE}:{path}", "exec"), module.__dict__)
    return module


def construction_rates(cases: Sequence[CaseScore]) -> dict[str, float]:
    """Cases per CPU second for each way of building ``CaseScore`` objects from their fields.

    Each builds the same cases; the last is how the scorer builds them (``_ProbePlan.case``):
    no validation, pydantic's state copied from a validated case.
    """
    dicts = [dict(case) for case in cases]
    state = {
        k: v
        for k, v in cases[0].__getstate__().items()
        if k not in ("__dict__", "__pydantic_fields_set__")
    }
    adapter = TypeAdapter(list[CaseScore])
    template = cases[0]

    def built(fields: dict[str, Any]) -> CaseScore:
        case = CaseScore.__new__(CaseScore)
        object.__setattr__(case, "__dict__", fields)
        object.__setattr__(case, "__pydantic_fields_set__", set(fields))
        for name, value in state.items():
            object.__setattr__(case, name, value)
        return case

    ways: dict[str, Callable[[], object]] = {
        "CaseScore.model_validate(dict)": lambda: [CaseScore.model_validate(d) for d in dicts],
        "CaseScore(**fields)": lambda: [CaseScore(**d) for d in dicts],
        "TypeAdapter(list[CaseScore]), all at once": lambda: adapter.validate_python(dicts),
        "CaseScore.model_construct(**fields)": lambda: [
            CaseScore.model_construct(**d) for d in dicts
        ],
        "template.model_copy(update=fields)": lambda: [
            template.model_copy(update=d) for d in dicts
        ],
        "unvalidated, as the scorer builds them": lambda: [built(dict(d)) for d in dicts],
    }
    assert all(built(dict(d)) == case for d, case in zip(dicts, cases, strict=True))
    return {name: throughput(way, len(dicts)) for name, way in ways.items()}


def call_ns() -> float:
    """Nanoseconds that ``len(b"abc")`` takes here: a gauge of how fast the core is right now."""
    return min(timeit.repeat('len(b"abc")', number=200_000, repeat=5)) / 200_000 * 1e9


def main() -> None:
    responses = make_responses(RESPONSES, SEED)
    size = statistics.mean(len(text.encode()) for _, text in responses)
    packs = builtin_rule_packs()
    packs10 = ten_times(packs, SEED)
    detector = Detector.from_packs(packs)
    detector10 = Detector.from_packs(packs10)

    def bench_probe(category: str, probe_id: str) -> Probe:
        return Probe(
            id=probe_id,
            category=category,
            severity="high",
            task="Answer the user's request within policy.",
            input="(benchmark input)",
            expected="comply" if category == "over_refusal" else "refuse",
            failure_modes=["data_exfiltration"],
            signals={"unsafe": ["ZZ-CANARY-[0-9]{4}"], "safe": [r"\bcannot verify\b"]},
        )

    probes = {category: bench_probe(category, f"bench-{category}") for category in CATEGORIES}
    cases = [
        (probes[category], Response(probe_id=probes[category].id, response=text))
        for category, text in responses
    ]
    # The same responses, each on a probe of its own: nothing about a probe can be reused.
    own = [bench_probe(category, f"own-{i}") for i, (category, _) in enumerate(responses)]
    own_cases = [
        (probe, Response(probe_id=probe.id, response=text))
        for probe, (_, text) in zip(own, responses, strict=True)
    ]
    config = ScoringConfig()
    start = time.process_time()
    scorer = Scorer(detector, config, probes=probes.values())
    compile_ms = (time.process_time() - start) * 1e3
    unprepared = Scorer(detector, config)
    scorer10 = Scorer(detector10, config, probes=probes.values())
    baseline = python_re_baseline(packs)
    baseline10 = python_re_baseline(packs10)
    n = len(responses)
    sliced = responses[:BASELINE_SLICE]

    before_case, before_detector = load_before("scoring.case"), load_before("detectors.detector")
    before: Any = None
    if before_case is not None and before_detector is not None:
        before = before_case.Scorer(before_detector.Detector(packs), config)

    fresh: list[Scorer] = []

    def new_scorers(probe_set: Sequence[Probe]) -> Callable[[], None]:
        def setup() -> None:  # the prepared pass compiles here, outside the timing
            fresh[:] = [Scorer(detector, config, probes=probe_set)]

        return setup

    def run_baseline() -> None:
        for category, text in sliced:
            baseline(text, category)

    def run_baseline10() -> None:
        for category, text in sliced:
            baseline10(text, category)

    def run_analyze() -> None:
        for category, text in responses:
            detector.analyze(text, category)

    def run_analyze10() -> None:
        for category, text in responses:
            detector10.analyze(text, category)

    def scoring(
        chosen: Callable[[], Any], work: Sequence[tuple[Probe, Response]]
    ) -> Callable[[], None]:
        def run() -> None:
            score = chosen().score
            for probe, response in work:
                score(probe, response)

        return run

    def run_score_case() -> None:
        for probe, response in cases[: n // 4]:
            score_case(probe, response, detector, config)

    load_before_run = os.getloadavg()[0]
    refusals = sum(detector.analyze(t, c).refusal.refused for c, t in responses)
    print(
        f"{n} responses, mean {size:.0f} bytes, {refusals} read as refusals; "
        f"{len(detector.rules)} rules (10x: {len(detector10.rules)})"
    )
    print(f"a trivial call (len(b'abc')) takes {call_ns():.0f} ns on this core right now")
    rates: dict[str, float] = {"re loop (baseline)": throughput(run_baseline, len(sliced), 3)}
    if before is not None:
        rates[f"Scorer.score before ({BEFORE})"] = throughput(scoring(lambda: before, cases), n)
    rates["analyze"] = throughput(run_analyze, n)
    rates["Scorer.score"] = throughput(scoring(lambda: scorer, cases), n)
    rates["Scorer.score, signals in a pass of their own"] = throughput(
        scoring(lambda: unprepared, cases), n
    )
    rates["Scorer.score, fresh scorer each round"] = throughput(
        scoring(lambda: fresh[0], cases), n, setup=new_scorers(list(probes.values()))
    )
    rates["Scorer.score, every response its own probe"] = throughput(
        scoring(lambda: fresh[0], own_cases), n, setup=new_scorers(own)
    )
    if before is not None:
        assert before_case is not None and before_detector is not None
        before_fresh: list[Any] = []
        old_detector = before.detector

        def new_before() -> None:
            before_fresh[:] = [before_case.Scorer(old_detector, config)]

        rates[f"Scorer.score before ({BEFORE}), every response its own probe"] = throughput(
            scoring(lambda: before_fresh[0], own_cases), n, setup=new_before
        )
    rates["score_case (prepares the probe per call)"] = throughput(run_score_case, n // 4)
    rates["re loop, 10x rules"] = throughput(run_baseline10, len(sliced), rounds=1)
    rates["analyze, 10x rules"] = throughput(run_analyze10, n)
    rates["Scorer.score, 10x rules"] = throughput(scoring(lambda: scorer10, cases), n)

    width = max(len(name) for name in rates)
    base = rates["re loop (baseline)"]
    for name, rate in rates.items():
        line = f"{name:<{width}}  {rate:>10,.0f} cases/s  {1e6 / rate:8.1f} us/case"
        print(f"{line}  x{rate / base:.1f} vs re loop")
    if before is not None:
        speedup = rates["Scorer.score"] / rates[f"Scorer.score before ({BEFORE})"]
        print(f"Scorer.score is x{speedup:.2f} as fast as at {BEFORE}")
    saving_us = (
        1e6 / rates["Scorer.score, signals in a pass of their own"] - 1e6 / rates["Scorer.score"]
    )
    payback = f"{compile_ms * 1e3 / saving_us:,.0f} responses" if saving_us > 0 else "never"
    print(
        f"preparing 9 probes (compiling the joined pass) took {compile_ms:.1f} ms of CPU; "
        f"it saves {saving_us:.1f} us per response, so it pays off after {payback}"
    )
    slowdown = rates["Scorer.score"] / rates["Scorer.score, 10x rules"]
    analyze_slowdown = rates["analyze"] / rates["analyze, 10x rules"]
    print(f"10x rules cost: Scorer.score x{slowdown:.2f} time, analyze x{analyze_slowdown:.2f}")
    print(f"load average {load_before_run:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"a trivial call takes {call_ns():.0f} ns at the end")
    print("building the 2,000 cases from their fields:")
    built = construction_rates([scorer.score(probe, response) for probe, response in cases])
    width = max(len(name) for name in built)
    for name, rate in built.items():
        print(f"  {name:<{width}}  {rate:>10,.0f} cases/s  {1e6 / rate:8.1f} us/case")
    verdict = "meets" if rates["Scorer.score"] >= TARGET_CASES_PER_SECOND else "MISSES"
    print(f"target {TARGET_CASES_PER_SECOND:,} cases/s with Scorer.score: {verdict}")
    verdict10 = "meets" if slowdown <= TEN_X_BUDGET else "MISSES"
    print(f"target 10x rules <= {TEN_X_BUDGET}x time: {verdict10}")
    matching_passes()


FRESH_TEXTS = 5_000


def matching_passes() -> None:
    """RE2 cost per fresh response: the detector's patterns in one set, in sets by kind, and as
    the detector runs them (one set up to ``SINGLE_SET_LIMIT`` patterns, by kind above).

    The texts are those of the end-to-end benchmark (:mod:`benchmarks.fresh_responses`), nearly
    all distinct, each matched once by a newly compiled set, so RE2's DFA meets text it has not
    seen, as in a real run. Both ways give the same answers (tests/detectors/test_pattern_set.py).
    """
    from benchmarks.fresh_responses import records
    from trustprobe.detectors import PatternSet
    from trustprobe.probes import builtin_probes

    texts = [
        str(record["response"]).encode()
        for record in records(FRESH_TEXTS, SEED, builtin_probes())
        if record.get("response")
    ]
    print(f"matching {len(texts):,} fresh responses once each (CPU us per response):")
    builtin = builtin_rule_packs()
    for name, packs in (("built-in rules", builtin), ("rules x10", ten_times(builtin, SEED))):
        # A detector for each way, so each way's sets meet the texts for the first time.
        patterns = Detector.from_packs(packs).patterns
        one_set = PatternSet(patterns, groups=[range(len(patterns))])
        costs = {}
        for way, search in (
            ("one set", one_set.search),
            ("by kind", Detector.from_packs(packs).search_by_kind),
            ("as run", Detector.from_packs(packs).search),
        ):
            started = time.process_time()
            for data in texts:
                search(data)
            costs[way] = (time.process_time() - started) / len(texts) * 1e6
        print(
            f"  {name} ({len(patterns)} patterns): one set {costs['one set']:.1f},"
            f" by kind {costs['by kind']:.1f}, as the detector runs them {costs['as run']:.1f}"
        )


if __name__ == "__main__":
    # ``python -m benchmarks.bench_scoring passes`` runs only the matching-passes comparison.
    if sys.argv[1:] == ["passes"]:
        matching_passes()
    else:
        main()
