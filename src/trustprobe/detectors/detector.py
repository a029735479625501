"""The scoring facade: every rule of every pack in one RE2 pass, plus refusal detection."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trustprobe.detectors.intent import (
    INTENT_PATTERNS,
    IntentReader,
    IntentReading,
    intent_parameters,
)
from trustprobe.detectors.matching import DEFAULT_MAX_MEM, PatternSet, encode_text
from trustprobe.detectors.refusal import (
    HELP_KINDS,
    NOT_REFUSED,
    RefusalDetector,
    RefusalResult,
    refusal_parameters,
)
from trustprobe.detectors.rules import Rule, RuleKind, RulePack, builtin_rule_packs
from trustprobe.errors import InputError
from trustprobe.formats import canonical_json, sha256_hex

_SAFE, _UNSAFE, _BOUNDARY = 0, 1, 2
_KIND_CODES = {RuleKind.SAFE: _SAFE, RuleKind.UNSAFE: _UNSAFE, RuleKind.BOUNDARY: _BOUNDARY}


@dataclass(frozen=True)
class Analysis:
    """What the rules found in one response, for one probe category."""

    safe: tuple[Rule, ...]
    """Matched safe-evidence rules that apply to the category."""
    unsafe: tuple[Rule, ...]
    """Matched unsafe-evidence rules that apply to the category."""
    refusal: RefusalResult
    """The refusal reading of the response."""
    intent: IntentReading
    """What the response did: declined, complied or unclear, and how sure the rules are."""


class Detector:
    """All rules of a set of packs compiled into one RE2 set, scanned once per response."""

    def __init__(self, packs: Sequence[RulePack], *, max_mem: int = DEFAULT_MAX_MEM) -> None:
        self.packs: tuple[RulePack, ...] = tuple(packs)
        owner: dict[str, str] = {}
        rules: list[Rule] = []
        for pack in self.packs:
            for index, rule in enumerate(pack.rules):
                if rule.id in owner:
                    raise InputError(
                        f"duplicate rule id '{rule.id}' in packs '{owner[rule.id]}' and "
                        f"'{pack.pack}'",
                        field=f"rules[{index}].id",
                    )
                owner[rule.id] = pack.pack
                rules.append(rule)
        self.rules: tuple[Rule, ...] = tuple(rules)
        boundary = [rule for rule in rules if rule.kind is RuleKind.BOUNDARY]
        self.refusal_detector = RefusalDetector(boundary, max_mem=max_mem)
        # What the refusal logic needs (cues within the opening, help evidence) and the intent
        # cues ride along in the same pass, after the rules.
        self._set = PatternSet(
            [rule.pattern for rule in rules]
            + list(self.refusal_detector.extra_patterns)
            + [pattern for _, pattern in INTENT_PATTERNS],
            max_mem=max_mem,
        )
        self._intent = IntentReader()
        cue_index = {rule.id: i for i, rule in enumerate(self.refusal_detector.rules)}
        self._cue_count = len(cue_index)
        # Per rule: (kind code, categories or None for "all", index among refusal cues).
        self._table: tuple[tuple[int, frozenset[str] | None, int], ...] = tuple(
            (
                _KIND_CODES[rule.kind],
                frozenset(rule.categories) if rule.categories else None,
                cue_index.get(rule.id, -1),
            )
            for rule in rules
        )
        self.max_mem: int = max_mem
        """RE2 memory budget of the pass (also for sets that extend it, like the scorer's)."""
        self.digest: str = _digest(self.packs)
        """SHA-256 of the canonical rule content and refusal parameters (report provenance)."""

    @classmethod
    def from_packs(cls, packs: Sequence[RulePack]) -> Detector:
        """A detector over ``packs`` (rule ids must be unique across them)."""
        return cls(packs)

    @classmethod
    def builtin(cls) -> Detector:
        """A detector over the built-in rule packs."""
        return cls(builtin_rule_packs())

    @property
    def pack_names(self) -> tuple[str, ...]:
        """``name@version`` of each pack, in load order."""
        return tuple(f"{pack.pack}@{pack.version}" for pack in self.packs)

    @property
    def patterns(self) -> tuple[str, ...]:
        """The patterns of the one pass, by index: every rule's, the refusal logic's, intent's."""
        return self._set.patterns

    def analyze(self, text: str, category: str) -> Analysis:
        """Match every rule against ``text`` in one pass and read it for refusal."""
        data = encode_text(text)
        return self.read(data, category, self._set.search(data))

    def search(self, data: bytes) -> list[int]:
        """The one pass: indices into :attr:`patterns` that occur in ``data``, ascending."""
        return self._set.search(data)

    def read(self, data: bytes, category: str, found: Sequence[int]) -> Analysis:
        """What one pass over ``data`` (the UTF-8 text) found means for a probe ``category``.

        ``found`` are the indices into :attr:`patterns` that occur in ``data``, ascending, as
        :meth:`search` returns them. A caller that searches :attr:`patterns` together with
        patterns of its own in one set (the scorer does, with probe signals) passes the
        indices below ``len(patterns)``.
        """
        if not found:
            return Analysis((), (), NOT_REFUSED, self._intent.read(data, NOT_REFUSED, (), ()))
        rules, table = self.rules, self._table
        count = len(rules)
        opening_at = count + self._cue_count  # extra patterns: cues in the opening, help, intent
        intent_at = opening_at + len(HELP_KINDS)
        safe: list[Rule] = []
        unsafe: list[Rule] = []
        cues: list[int] = []
        opening: list[int] = []
        help_found: list[int] = []
        intent_found: list[int] = []
        for index in found:
            if index >= count:
                if index < opening_at:
                    opening.append(index - count)
                elif index < intent_at:
                    help_found.append(index - opening_at)
                else:
                    intent_found.append(index - intent_at)
                continue
            kind, categories, cue = table[index]
            if categories is not None and category not in categories:
                continue
            if kind == _UNSAFE:
                unsafe.append(rules[index])
            elif kind == _SAFE:
                safe.append(rules[index])
            else:
                cues.append(cue)
        refusal = (
            self.refusal_detector.assess(data, cues, opening, help_found) if cues else NOT_REFUSED
        )
        help_kinds = [HELP_KINDS[i] for i in help_found]
        intent = self._intent.read(data, refusal, help_kinds, intent_found, safe)
        return Analysis(tuple(safe), tuple(unsafe), refusal, intent)


def _digest(packs: Sequence[RulePack]) -> str:
    """SHA-256 over what changes verdicts: rule fields that matter, and refusal parameters."""
    content = {
        "packs": sorted(
            (
                {
                    "pack": pack.pack,
                    "version": pack.version,
                    "rules": sorted(
                        (
                            rule.model_dump(
                                mode="json",
                                include={
                                    "id",
                                    "kind",
                                    "pattern",
                                    "weight",
                                    "failure_modes",
                                    "categories",
                                },
                            )
                            for rule in pack.rules
                        ),
                        key=lambda r: r["id"],
                    ),
                }
                for pack in packs
            ),
            key=lambda p: (p["pack"], p["version"]),
        ),
        "refusal": refusal_parameters(),
        "intent": intent_parameters(),
    }
    return sha256_hex(canonical_json(content))
