"""The cue-cost benchmark's split of a pattern at its top-level alternatives."""

from __future__ import annotations

import pytest
from benchmarks.cue_costs import top_level_alternatives, without

from trustprobe.detectors import builtin_rule_packs


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
