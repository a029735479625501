"""What one alternative of a refusal cue costs rules x10's matching pass, on fresh text.

Each ``RULE:K`` drops the K-th top-level alternative (from 1) of rule ``RULE`` and of its nine
variants (``bench_scoring.ten_times``; the variants are split at the same top-level ``|``, so
no other rule's variant words move), builds the detector again and times
:meth:`~trustprobe.detectors.Detector.search_all` over N fresh texts (new DFAs each time),
alternated with the full rules over ROUNDS rounds. Prints CPU seconds per round and the change.
Under ``valgrind --tool=cachegrind`` the same run gives instruction counts.

``--before PACK.yaml`` also times the rules with every rule of that pack file (an earlier version
of a built-in pack, e.g. from ``git show COMMIT:src/trustprobe/detectors/packs/refusal.yaml``) in
place of the rule of the same id. ``--rule-words`` draws each rule's variant words from a sequence
of its own (``ten_times(..., per_rule=True)``), so rules that differ leave every other rule's
variants as they were and the comparison is of the changed rules alone.

    python -m benchmarks.cue_costs [--texts N] [--rounds R] [--rule-words] [--before PACK.yaml]
        [RULE:K ...]

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
from trustprobe.detectors.rules import RulePack, load_rule_pack
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


def with_patterns_of(packs: Sequence[RulePack], other: RulePack) -> list[RulePack]:
    """``packs`` with each rule that ``other`` also has given ``other``'s pattern."""
    patterns = {rule.id: rule.pattern for rule in other.rules}
    return [
        pack.model_copy(
            update={
                "rules": tuple(
                    rule.model_copy(update={"pattern": patterns[rule.id]})
                    if rule.id in patterns
                    else rule
                    for rule in pack.rules
                )
            }
        )
        for pack in packs
    ]


def pass_seconds(packs: Sequence[RulePack], texts: Sequence[bytes]) -> float:
    """CPU seconds of one detector's pass over ``texts``, its DFAs new."""
    detector = Detector(packs)
    start = time.process_time()
    detector.search_all(texts)
    return time.process_time() - start


def main(argv: Sequence[str] | None = None) -> None:
    """Time the full rules x10 against each given alternative dropped, or an earlier pack."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("drops", nargs="*", metavar="RULE:K")
    parser.add_argument("--texts", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rule-words", action="store_true")
    parser.add_argument("--before", metavar="PACK.yaml")
    args = parser.parse_args(argv)
    probes = builtin_probes()
    texts = [
        encode_text(str(record["response"]))
        for record in records(args.texts, SEED, probes)
        if "response" in record
    ]
    builtin = builtin_rule_packs()
    full = ten_times(builtin, SEED, args.rule_words)
    variants = {"rules x10": full}
    if args.before:
        before = with_patterns_of(builtin, load_rule_pack(args.before))
        variants[f"with {args.before}"] = ten_times(before, SEED, args.rule_words)
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
