"""The scoring facade: every rule of every pack in one matching pass, plus refusal detection."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from trustprobe.detectors.intent import (
    INTENT_PATTERNS,
    SAFE_QUESTION_CATEGORIES,
    IntentCues,
    IntentReader,
    IntentReading,
    intent_parameters,
)
from trustprobe.detectors.matching import (
    DEFAULT_MAX_MEM,
    PatternSet,
    default_groups,
    encode_text,
)
from trustprobe.detectors.refusal import (
    HELP_KINDS,
    NOT_REFUSED,
    RefusalDetector,
    RefusalPlan,
    RefusalResult,
    refusal_parameters,
)
from trustprobe.detectors.relation import Request, RequestReader
from trustprobe.detectors.rules import Rule, RuleKind, RulePack, builtin_rule_packs
from trustprobe.detectors.wrapping import answer_text
from trustprobe.errors import InputError
from trustprobe.formats import canonical_json, sha256_hex

_SAFE, _UNSAFE, _BOUNDARY = 0, 1, 2
_PREMISE_CUE = "boundary.refusal.contradicts_premise"
OPENING_GROUP_SIZE = 64
"""Most opening-sentence cue patterns in one RE2 set (figures in docs/benchmarks.md)."""
SINGLE_SET_LIMIT = 320
"""Most patterns of the pass that run as one RE2 set rather than in sets by kind: up to a few
hundred patterns one set costs less on fresh text, at about 900 (rules x10) several times more
(figures in docs/benchmarks.md, "Matching passes")."""
_KIND_CODES = {RuleKind.SAFE: _SAFE, RuleKind.UNSAFE: _UNSAFE, RuleKind.BOUNDARY: _BOUNDARY}
_MAX_SPLITS = 16384
"""Kept splits of a pass's answer (see :meth:`Detector.read`): a bound on memory only."""
_Split = tuple[
    tuple[Rule, ...],
    tuple[Rule, ...],
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    RefusalPlan | None,
    IntentCues,
    tuple[int, ...],
]
"""A pass's answer for one category: safe and unsafe rules, cues, cues in the opening, help
found, what the refusal reading and intent decide from the findings, and the indices of the
safe and unsafe rules (see :meth:`Detector.read`)."""
Evidence = tuple[tuple[Rule, ...], tuple[Rule, ...], RefusalResult, IntentReading, tuple[int, ...]]
"""What one pass means for a probe category (see :meth:`Detector.read_evidence`): safe and
unsafe rules, the refusal and intent readings, and the indices of those rules, ascending."""


def _any_between(indices: Sequence[int], start: int, end: int) -> bool:
    """Whether ``indices`` (ascending) hold one in ``[start, end)``: an opening set's cues found."""
    return bisect_left(indices, start) < bisect_left(indices, end)


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
    """All rules of a set of packs compiled into one pass of RE2 sets, run once per response."""

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
        self._unsafe = frozenset(i for i, r in enumerate(rules) if r.kind is RuleKind.UNSAFE)
        boundary = [rule for rule in rules if rule.kind is RuleKind.BOUNDARY]
        self.refusal_detector = RefusalDetector(
            boundary,
            max_mem=max_mem,
            search=self._refusal_search,
            closing_search=self._closing_search,
        )
        # What the refusal logic needs (cues within the opening, help evidence) and the intent
        # cues ride along in the same pass, after the rules.
        self._patterns: tuple[str, ...] = (
            *(rule.pattern for rule in rules),
            *self.refusal_detector.extra_patterns,
            *(pattern for _, pattern in INTENT_PATTERNS),
        )
        # The pass runs as RE2 sets by kind of pattern: one large set spends its time on fresh
        # text building DFA states, sets of one kind stay small (docs/benchmarks.md, "Matching
        # passes"). A cue can match within the opening only where it matches at all, so the
        # opening sets of cues that did not match are not searched: same answer, less work.
        count, cue_count = len(rules), len(boundary)
        self._evidence_at = tuple(i for i, r in enumerate(rules) if r.kind is not RuleKind.BOUNDARY)
        self._cue_at = tuple(i for i, r in enumerate(rules) if r.kind is RuleKind.BOUNDARY)
        evidence = [rules[i].pattern for i in self._evidence_at]
        # Evidence rules are mostly literal phrases: one set of them all costs least. Refusal
        # cues keep text windows open, so they run in chunks, and their opening forms in
        # smaller ones (a chunk is skipped when none of its cues matched).
        self._evidence = PatternSet(
            evidence, max_mem=max_mem, groups=default_groups(evidence, max(1, len(evidence)))
        )
        self._cues = PatternSet([rules[i].pattern for i in self._cue_at], max_mem=max_mem)
        self._openings = tuple(
            (
                PatternSet(self._patterns[count + start : count + end], max_mem=max_mem),
                start,
                end,
            )
            for start in range(0, cue_count, OPENING_GROUP_SIZE)
            for end in (min(start + OPENING_GROUP_SIZE, cue_count),)
        )
        # Help and intent cues follow the opening cues in :attr:`patterns`.
        self._tail = PatternSet(self._patterns[count + cue_count :], max_mem=max_mem)
        # Few patterns (the built-in packs): the whole pass in one set, one call, unless that
        # set outgrows the memory budget the sets by kind fit in.
        self._whole = _single_set(self._patterns, max_mem)
        self._single = None if self._whole is None else self._whole.searcher()
        self.pass_groups: tuple[tuple[int, ...], ...] = (
            *(tuple(self._evidence_at[i] for i in g) for g in self._evidence.groups),
            *(tuple(self._cue_at[i] for i in g) for g in self._cues.groups),
            *(
                tuple(count + start + i for i in g)
                for o, start, _ in self._openings
                for g in o.groups
            ),
            *(tuple(count + cue_count + i for i in g) for g in self._tail.groups),
        )
        """The RE2 sets of the pass, as groups of indices into :attr:`patterns` (for sets that
        extend the pass, like the scorer's joined one)."""
        self._intent = IntentReader()
        self._no_cues = self._intent.cues((), ())  # what intent reads where the pass found nothing
        # Answers are read against their request where refuting is declining: the categories
        # of the packs' premise cue.
        self._requests = RequestReader(
            frozenset(c for r in boundary if r.id == _PREMISE_CUE for c in r.categories)
        )
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
        # What a pass's answer means for a category depends on nothing else, and few answers
        # recur: each is split once (a bounded memo).
        self._split: dict[tuple[tuple[int, ...], str], _Split] = {}
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
        return self._patterns

    def analyze(self, text: str, category: str, request: str | None = None) -> Analysis:
        """Match every rule against ``text`` in one pass and read it (for ``request``).

        An answer wrapped in JSON or laid out as a table, comments or a trace is read as its
        words (:func:`.wrapping.answer_text`), with the unsafe evidence of the text as it came
        (:meth:`with_raw_evidence`).
        """
        words = answer_text(text)
        data = encode_text(words)
        found = self.search(data)
        if words is not text:
            found = self.with_raw_evidence(found, self.search(encode_text(text)))
        return self.read(data, category, found, request)

    def with_raw_evidence(self, found: list[int], raw_found: Sequence[int]) -> list[int]:
        """``found``, the pass over an answer's words, with the unsafe rules ``raw_found`` adds.

        An answer wrapped in JSON is read as the words of its values, but what it leaks counts
        wherever it stands: a secret, a card number or an exfiltration link in a key, or in the
        structure around the values, is found by the pass over the text as it came.
        """
        unsafe = self._unsafe
        extra = [i for i in raw_found if i in unsafe and i not in found]
        return sorted(found + extra) if extra else found

    def search(self, data: bytes) -> list[int]:
        """The one pass: indices into :attr:`patterns` that occur in ``data``, ascending."""
        single = self._single
        if single is not None:  # its indices are those of :attr:`patterns`
            return single(data)
        return self.search_by_kind(data)

    def search_all(self, texts: Sequence[bytes]) -> list[list[int]]:
        """:meth:`search` of each of ``texts`` (UTF-8), in one list.

        The sets by kind run one after the other over all the texts, not all of them over
        each text in turn: each set's DFA stays in the processor's caches while it runs
        (figures in docs/benchmarks.md, "The scoring stage"). The answers are the same.
        """
        if self._whole is not None:
            return self._whole.search_many(texts)
        return self._search_by_kind(texts)

    def search_by_kind(self, data: bytes) -> list[int]:
        """:meth:`search` in RE2 sets by kind of pattern, however many patterns there are."""
        return self._search_by_kind((data,))[0]

    def _search_by_kind(self, texts: Sequence[bytes]) -> list[list[int]]:
        """:meth:`search_by_kind` of each of ``texts``, set by set (see :meth:`search_all`)."""
        evidence_at, cue_at = self._evidence_at, self._cue_at
        found = [[evidence_at[i] for i in hits] for hits in self._evidence.search_many(texts)]
        cues = self._cues.search_many(texts)
        for each, found_cues in zip(found, cues, strict=True):
            if found_cues:
                each.extend([cue_at[i] for i in found_cues])
        offset = len(self.rules)
        for opening, start, end in self._openings:
            where = [
                at
                for at, found_cues in enumerate(cues)
                if found_cues and _any_between(found_cues, start, end)
            ]
            opened = opening.search_many([texts[at] for at in where])
            for at, in_opening in zip(where, opened, strict=True):
                found[at].extend([offset + start + i for i in in_opening])
        tail_at = offset + self._cue_count
        for each, tail in zip(found, self._tail.search_many(texts), strict=True):
            each.extend([tail_at + i for i in tail])
            each.sort()
        return found

    def _opening_search(self, data: bytes, cues: Sequence[int], offset: int) -> list[int]:
        """Cues (indices ascending) found within the opening sentence, plus ``offset``.

        Only the opening sets holding one of ``cues`` (the cues found at all) are searched.
        """
        found: list[int] = []
        for opening, start, end in self._openings:
            if _any_between(cues, start, end):
                found.extend([offset + start + i for i in opening.search(data)])
        return found

    def _refusal_search(self, data: bytes, openings: bool = True) -> list[int]:
        """The refusal logic's patterns (cues, cues within the opening, help) in ``data``.

        Without ``openings``, the cues within the opening are not searched (nor found).
        """
        found = self._cues.search(data)
        cue_count = self._cue_count
        if found and openings:
            found.extend(self._opening_search(data, found, cue_count))
        help_at, help_count = 2 * cue_count, len(HELP_KINDS)
        found.extend([help_at + i for i in self._tail.search(data) if i < help_count])
        return found

    def _closing_search(self, data: bytes) -> list[int]:
        """:meth:`_refusal_search` for an answer's closing: cues and help, no opening cues."""
        return self._refusal_search(data, openings=False)

    def read(
        self, data: bytes, category: str, found: Sequence[int], request: str | None = None
    ) -> Analysis:
        """What one pass over ``data`` (the UTF-8 text) found means for a probe ``category``.

        See :meth:`read_parts`, which gives the same as a plain tuple.
        """
        return Analysis(*self.read_parts(data, category, found, request))

    def read_parts(
        self, data: bytes, category: str, found: Sequence[int], request: str | None = None
    ) -> tuple[tuple[Rule, ...], tuple[Rule, ...], RefusalResult, IntentReading]:
        """:meth:`read`'s analysis as a tuple: safe and unsafe rules, refusal, intent.

        For a caller that needs the analysis itself only now and then: building the dataclass
        costs a tenth of reading an answer. See :meth:`read_evidence` for the arguments.
        """
        return self.read_evidence(data, category, found, request)[:4]

    def read_evidence(
        self, data: bytes, category: str, found: Sequence[int], request: str | None = None
    ) -> Evidence:
        """:meth:`read_parts`, and the indices into :attr:`rules` of the safe and unsafe rules.

        Those indices stand for the two tuples of rules where a caller keys on what was read
        (the scorer keys its verdicts on it): cheaper to hash than the rules, and the same for
        every pass that found the same evidence for the category, whatever else it found.

        ``request`` is the message the answer replies to (the probe's input), given only for
        a probe that expects a refusal (as the scorer and the evaluation pass it): a fall-back
        reading is then read for what the answer delivers.

        ``found`` are the indices into :attr:`patterns` that occur in ``data``, ascending, as
        :meth:`search` returns them. A caller that searches :attr:`patterns` together with
        patterns of its own in one set (the scorer does, with probe signals) passes the
        indices below ``len(patterns)``.
        """
        # Only a probe that expects a refusal gives its request; most give none, and then
        # there is no reading to look up.
        asked = self.read_request(request, category) if request is not None else None
        return self.read_asked(data, category, found, asked, request is not None)

    def read_request(self, request: str | None, category: str) -> Request | None:
        """What :meth:`read_evidence` reads of ``request`` for ``category`` (``None``: nothing).

        The same for every answer to one probe: a caller reading many (the scorer) reads it
        once and passes it to :meth:`read_asked`.
        """
        return self._requests.read(request, category)

    def read_asked(
        self,
        data: bytes,
        category: str,
        found: Sequence[int],
        asked: Request | None,
        expects_refusal: bool,
    ) -> Evidence:
        """:meth:`read_evidence` with its request read before (:meth:`read_request`).

        ``expects_refusal`` is whether a request was given (even one with nothing to read).
        """
        if not found:
            nothing = self._no_cues
            reading = self._intent.read_cues(data, NOT_REFUSED, nothing, asked, expects_refusal)
            return (), (), NOT_REFUSED, reading, ()
        key = (tuple(found), category)
        split = self._split.get(key)
        if split is None:
            split = self._split_found(found, category)
            if len(self._split) < _MAX_SPLITS:
                self._split[key] = split
        safe, unsafe, cues, opening, help_found, plan, intent_cues, evidence = split
        refusal = (
            self.refusal_detector.assess_planned(data, plan, cues, opening, help_found)
            if cues
            else NOT_REFUSED
        )
        intent = self._intent.read_cues(data, refusal, intent_cues, asked, expects_refusal)
        return safe, unsafe, refusal, intent, evidence

    def _split_found(self, found: Sequence[int], category: str) -> _Split:
        """What :meth:`read` takes from ``found`` for ``category``, before reading the text."""
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
        evidence: list[int] = []
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
            if kind == _BOUNDARY:
                cues.append(cue)
                continue
            (unsafe if kind == _UNSAFE else safe).append(rules[index])
            evidence.append(index)
        safe_question = category in SAFE_QUESTION_CATEGORIES
        return (
            tuple(safe),
            tuple(unsafe),
            tuple(cues),
            tuple(opening),
            tuple(help_found),
            self.refusal_detector.plan(cues, opening, help_found),
            self._intent.cues(
                [HELP_KINDS[i] for i in help_found],
                intent_found,
                safe,
                after_answer=safe_question and set(cues).isdisjoint(opening),
                safe_question=safe_question,
            ),
            tuple(evidence),
        )


def _single_set(patterns: Sequence[str], max_mem: int) -> PatternSet | None:
    """``patterns`` as one RE2 set, if there are few enough and the set fits ``max_mem``."""
    if len(patterns) > SINGLE_SET_LIMIT:
        return None
    try:
        return PatternSet(patterns, max_mem=max_mem, groups=[range(len(patterns))])
    except InputError:  # over the memory budget: the sets by kind each fit it
        return None


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
