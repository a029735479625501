"""One contract, every built-in rule: documented examples match (and near misses do not).

Each rule's ``examples`` are checked through the real scoring path, ``Detector.analyze``, for a
category the rule applies to; rules scoped to categories must stay silent elsewhere.
"""

from __future__ import annotations

import pytest

from trustprobe.detectors import Detector, Rule, RuleKind, builtin_rule_packs

RULES = [rule for pack in builtin_rule_packs() for rule in pack.rules]
OUTSIDE = "category_no_rule_is_scoped_to"


def reported(detector: Detector, rule: Rule, text: str, category: str) -> bool:
    analysis = detector.analyze(text, category)
    if rule.kind is RuleKind.BOUNDARY:
        return rule.id in analysis.refusal.cues
    found = analysis.safe if rule.kind is RuleKind.SAFE else analysis.unsafe
    return rule.id in {r.id for r in found}


def test_rule_ids_are_unique_and_labelled_by_kind() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    for rule in RULES:
        assert rule.id.split(".")[0] == rule.kind.value, rule.id


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_rule_matches_its_examples(builtin_detector: Detector, rule: Rule) -> None:
    assert rule.examples.match, f"{rule.id} documents no positive example"
    assert rule.description.strip()
    category = rule.categories[0] if rule.categories else OUTSIDE
    for text in rule.examples.match:
        assert reported(builtin_detector, rule, text, category), f"{rule.id} missed: {text!r}"
        if rule.categories:
            assert not reported(builtin_detector, rule, text, OUTSIDE), (
                f"{rule.id} ignores its scope"
            )
    for text in rule.examples.no_match:
        assert not reported(builtin_detector, rule, text, category), f"{rule.id} fired on: {text!r}"
