"""The cue-cost benchmark's split of a pattern at its top-level alternatives."""

from __future__ import annotations

import pytest
from benchmarks.bench_scoring import ten_times
from benchmarks.cue_costs import top_level_alternatives, with_patterns_of, without

from trustprobe.detectors import builtin_rule_packs
from trustprobe.detectors.rules import RulePack


@pytest.mark.parametrize(
    ("pattern", "parts"),
    [
        (r"a|b", ["a", "b"]),
        (r"\ba(?:x|y)\b|c", [r"\ba(?:x|y)\b", "c"]),
        (r"[|]x|y", ["[|]x", "y"]),  # a | in a class does not split
        (r"[]|]x|[^]|]y", ["[]|]x", "[^]|]y"]),  # nor after a leading ]
        (r"\|a|b", [r"\|a", "b"]),  # nor an escaped one
        (r"(?:a|b)", ["(?:a|b)"]),
    ],
)
def test_top_level_alternatives(pattern: str, parts: list[str]) -> None:
    assert top_level_alternatives(pattern) == parts
    assert "|".join(parts) == pattern


def test_without_drops_one_alternative_of_the_rule_only() -> None:
    packs = builtin_rule_packs()
    rule_id = "boundary.refusal.privacy_grounds"
    rules = {rule.id: rule for pack in packs for rule in pack.rules}
    dropped = {rule.id: rule for pack in without(packs, rule_id, 2) for rule in pack.rules}
    first, _, third = top_level_alternatives(rules[rule_id].pattern)
    assert dropped[rule_id].pattern == f"{first}|{third}"
    assert all(dropped[i].pattern == rules[i].pattern for i in rules if i != rule_id)


def _with_pattern(rule_id: str, pattern: str) -> list[RulePack]:
    """The built-in packs with one rule's pattern replaced."""
    packs = builtin_rule_packs()
    return [
        pack.model_copy(
            update={
                "rules": tuple(
                    rule.model_copy(update={"pattern": pattern}) if rule.id == rule_id else rule
                    for rule in pack.rules
                )
            }
        )
        for pack in packs
    ]


def test_with_patterns_of_takes_the_other_packs_rules_by_id() -> None:
    packs = builtin_rule_packs()
    rule_id = "boundary.refusal.terse"
    (changed,) = [p for p in _with_pattern(rule_id, r"\Anever\z") if p.pack == "refusal"]
    swapped = {rule.id: rule for pack in with_patterns_of(packs, changed) for rule in pack.rules}
    assert swapped[rule_id].pattern == r"\Anever\z"
    # every other rule of the other pack is the built-in one, so nothing else changes
    assert all(
        swapped[r.id].pattern == r.pattern for p in packs for r in p.rules if r.id != rule_id
    )


def test_rule_words_move_only_the_changed_rules_variants() -> None:
    rule_id = "boundary.refusal.terse"
    before = ten_times(builtin_rule_packs(), 7, per_rule=True)
    after = ten_times(_with_pattern(rule_id, r"\A\s*(?:no|nope|never mind)\s*\z"), 7, per_rule=True)
    pairs = [
        (b, a)
        for bp, ap in zip(before, after, strict=True)
        for b, a in zip(bp.rules, ap.rules, strict=True)
    ]
    changed = {b.id for b, a in pairs if b.pattern != a.pattern}
    # the rule and its nine variants, and no other rule's variant words
    assert changed == {rule_id, *(f"{rule_id}.v{n}" for n in range(1, 10))}
