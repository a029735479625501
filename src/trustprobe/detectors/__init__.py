"""Detectors: rule packs as data, a linear-time (RE2) matcher, and refusal detection."""

from trustprobe.detectors.detector import Analysis, Detector
from trustprobe.detectors.intent import Intent, IntentReading
from trustprobe.detectors.matching import PatternSet
from trustprobe.detectors.refusal import RefusalDetector, RefusalResult
from trustprobe.detectors.rules import (
    Rule,
    RuleExamples,
    RuleKind,
    RulePack,
    builtin_rule_packs,
    load_rule_pack,
)

__all__ = [
    "Analysis",
    "Detector",
    "Intent",
    "IntentReading",
    "PatternSet",
    "RefusalDetector",
    "RefusalResult",
    "Rule",
    "RuleExamples",
    "RuleKind",
    "RulePack",
    "builtin_rule_packs",
    "load_rule_pack",
]
