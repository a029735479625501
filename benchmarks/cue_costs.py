"""What one alternative of a refusal cue costs rules x10's matching pass, on fresh text.

Each ``RULE:K`` drops the K-th top-level alternative (from 1) of rule ``RULE`` and of its nine
variants (``bench_scoring.ten_times``; the variants are split at the same top-level ``|``, so
no other rule's variant words move), builds the detector again and times
:meth:`~trustprobe.detectors.Detector.search_all` over N fresh texts (new DFAs each time),
alternated with the full rules over ROUNDS rounds. Prints CPU seconds per round and the change.
Under ``valgrind --tool=cachegrind`` the same run gives instruction counts.

    python -m benchmarks.cue_costs [--texts N] [--rounds R] RULE:K [RULE:K ...]

e.g. ``boundary.refusal.not_appropriate_to:3`` (figures in docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from benchmarks.bench_scoring import ten_times
from benchmarks.fresh_responses import records
from trustprobe.detectors import Detector, builtin_rule_packs
from trustprobe.detectors.matching import encode_text
from trustprobe.detectors.rules import RulePack
from trustprobe.probes import builtin_probes

SEED = 20261125


def top_level_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at its top-level ``|`` (outside groups and character classes)."""
    parts: list[str] = []
    depth, start, at, in_class = 0, 0, 0, False
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            at += 2 if pattern.startswith("[^]", at) else 1 if pattern.startswith("[]", at) else 0
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:at])
            start = at + 1
        at += 1
    return [*parts, pattern[start:]]


def without(packs: Sequence[RulePack], rule_id: str, number: int) -> list[RulePack]:
    """``packs`` with alternative ``number`` of ``rule_id`` and of its variants dropped."""
    out = []
    for pack in packs:
        rules = []
        for rule in pack.rules:
            if rule.id.split(".v")[0] == rule_id:
                parts = top_level_alternatives(rule.pattern)
                kept = parts[: number - 1] + parts[number:]
                rule = rule.model_copy(update={"pattern": "|".join(kept)})
            rules.append(rule)
        out.append(pack.model_copy(update={"rules": tuple(rules)}))
    return out


def pass_seconds(packs: Sequence[RulePack], texts: Sequence[bytes]) -> float:
    """CPU seconds of one detector's pass over ``texts``, its DFAs new."""
    detector = Detector(packs)
    start = time.process_time()
    detector.search_all(texts)
    return time.process_time() - start


def main(argv: Sequence[str] | None = None) -> None:
    """Time the full rules x10 against each given alternative dropped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("drops", nargs="+", metavar="RULE:K")
    parser.add_argument("--texts", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    probes = builtin_probes()
    texts = [
        encode_text(str(record["response"]))
        for record in records(args.texts, SEED, probes)
        if "response" in record
    ]
    full = ten_times(builtin_rule_packs(), SEED)
    variants = {"rules x10": full}
    for drop in args.drops:
        rule_id, number = drop.rsplit(":", 1)
        variants[f"without {drop}"] = without(full, rule_id, int(number))
    base: list[float] = []
    for _ in range(args.rounds):
        for name, packs in variants.items():
            seconds = pass_seconds(packs, texts)
            if name == "rules x10":
                base.append(seconds)
            change = f"  {seconds / base[-1] - 1:+.1%}" if base and name != "rules x10" else ""
            print(f"{name}: {seconds:.2f} CPU s{change}", flush=True)


if __name__ == "__main__":
    main()
