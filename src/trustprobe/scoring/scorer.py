"""Score one response against its probe: transparent rules in, a :class:`CaseScore` out.

The rules are those of docs/scoring.md, written out in :mod:`trustprobe.scoring.formula`. This
module finds the evidence they need and builds cases from it. It is shaped by throughput
(measured in "Case scoring", docs/benchmarks.md): what depends only on the probe and the config
is worked out once per probe (:class:`_ProbePlan`), its signals compiled into a small RE2 set
of their own (or, on request, joined to the rules' pass: :meth:`Scorer.prepare`); a verdict,
which depends only on what the passes found, is reached once per probe and shape of answer and
then reused, and so is its part of a case's JSON line (:meth:`Scorer.score_lines`); and cases
are built from typed values without validating each one again.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, cast, get_args

import msgspec
from msgspec.structs import asdict
from pydantic_core import to_json

from trustprobe.detectors import Analysis, Detector, PatternSet
from trustprobe.detectors.matching import encode_text
from trustprobe.detectors.relation import Request
from trustprobe.detectors.wrapping import answer_text
from trustprobe.formats.canonical import SMALL_DECIMALS
from trustprobe.formats.typed_models import ModelState, assemble, model_state
from trustprobe.probes.models import Expected, Probe, Severity
from trustprobe.responses.models import Response, ToolCall, response_fields
from trustprobe.scoring.calls import NO_CALLS, CallFindings, find_calls
from trustprobe.scoring.formula import ProbeTerms, Verdict, judge
from trustprobe.scoring.models import CaseScore, ScoringConfig
from trustprobe.scoring.rows import OwnValues, ScoredCases

# Verdicts kept for reuse per probe, a few KB each with their representative case: a bound on
# memory, not on correctness. With rules x10 a probe meets 88 verdicts on average in 200,000
# fresh answers (at most 186): 83.1% of the cases reuse a verdict kept at 64, 87.4% at 128 or
# more (docs/benchmarks.md, "The scoring stage, second round").
_MAX_VERDICTS = 128

_NO_POSITIONS: tuple[int, ...] = ()
_NO_FOUND: list[int] = []  # read only: a response without text finds nothing
_Prepared = tuple[
    list["_ProbePlan"],
    list[dict[str, Any]],
    list[bytes | None],
    list[list[int]],
    list[Sequence[int]],
]
"""What scoring a list of responses starts from (see :meth:`Scorer._matched`): each response's
plan and fields, then what :data:`_Matched` says."""
_Matched = tuple[list[bytes | None], list[list[int]], list[Sequence[int]]]
"""What matching found in a list of responses, per response: its text as UTF-8 (``None``: no
text to judge), the rules' pass's indices found (ascending) and the positions of the probe's
signals found."""
_render_case = CaseScore.__pydantic_serializer__.to_json
# How a case's floats that are infinite or not a number are written (the model's setting).
_INF_NAN = CaseScore.model_config.get("ser_json_inf_nan", "null")
_encode_json = msgspec.json.Encoder().encode
# The floats msgspec writes as pydantic-core does, exclusive bounds: from 1e16 on it writes
# 1e16 where pydantic-core writes 1e+16 (tests/scoring/test_scorer_paths.py).
_PLAIN_FLOATS = 1e16
_FIELD_NAMES = tuple(CaseScore.model_fields)
# The fields a case takes from its response, after the verdict's and before the calls', in the
# model's order; a case's JSON line is its verdict's text with these (and the sample) put in.
_OWN_FIELDS = OwnValues.__struct_fields__
_OWN_AT = _FIELD_NAMES.index(_OWN_FIELDS[0])
if _FIELD_NAMES[_OWN_AT : _OWN_AT + len(_OWN_FIELDS)] != _OWN_FIELDS:
    raise RuntimeError("CaseScore's own fields are no longer together in this order")
_HEAD_FIELDS = {"probe_id", "sample"}
if _FIELD_NAMES[:2] != ("probe_id", "sample"):
    raise RuntimeError("CaseScore no longer starts with probe_id and sample")
# The probe's long texts, between fields of the verdict: kept once per probe, not per verdict.
_PROBE_TEXT_FIELDS = {"task", "probe_input"}
if _FIELD_NAMES.index("probe_input") != _FIELD_NAMES.index("task") + 1:
    raise RuntimeError("CaseScore's task and probe_input are no longer together")
# How the part of a case's JSON line after its own fields starts (the first field after them).
_TAIL_START = b',"%s":' % _FIELD_NAMES[_OWN_AT + len(_OWN_FIELDS)].encode()
# Placeholders by type for the fields every case sets itself (see _field_template).
_PLACEHOLDERS: dict[Any, Any] = {
    str: "",
    int: 0,
    float: 0.0,
    list[str]: [],
    Severity: Severity.LOW,
    Expected: Expected.REFUSE,
}


def _field_template() -> dict[str, Any]:
    """Every field of a :class:`CaseScore` in the model's order, with its default or a placeholder.

    A plan copies this and puts in its probe's values; each case then puts in its own values for
    every placeholder (the lists are always replaced by fresh ones, so no case shares one).
    """
    template: dict[str, Any] = {}
    for name, info in CaseScore.model_fields.items():
        if not info.is_required():
            template[name] = info.get_default(call_default_factory=True)
        elif type(None) in get_args(info.annotation):
            template[name] = None
        else:
            template[name] = _PLACEHOLDERS[info.annotation]
    return template


_FIELD_TEMPLATE = _field_template()


def _all_patterns(probe: Probe) -> tuple[str, ...]:
    """The probe's signal patterns, unsafe then safe."""
    return (*probe.signals.patterns("unsafe"), *probe.signals.patterns("safe"))


@dataclass(frozen=True, slots=True)
class _SharedPass:
    """The rules' patterns and the signals of prepared probes, matched in one pass.

    The rules run in the detector's RE2 sets, grouped as it groups them; the signals of every
    prepared probe follow in one set.
    """

    patterns: PatternSet
    rule_count: int
    """How many of the patterns are the detector's (signals follow them)."""
    probes: dict[str, Probe]
    """The prepared probes, by id."""
    slots: dict[str, int]
    """Index in the set of each distinct signal pattern."""

    @classmethod
    def compile(cls, detector: Detector, probes: dict[str, Probe]) -> _SharedPass:
        rules = detector.patterns
        slots: dict[str, int] = {}
        for probe in probes.values():
            for pattern in _all_patterns(probe):
                slots.setdefault(pattern, len(rules) + len(slots))
        return cls(
            patterns=PatternSet(
                (*rules, *slots),
                max_mem=detector.max_mem,
                groups=[*detector.pass_groups, range(len(rules), len(rules) + len(slots))],
            ),
            rule_count=len(rules),
            probes=probes,
            slots=slots,
        )


@dataclass(slots=True, eq=False)
class _Reached:
    """A verdict reached for a probe, and what every case given it shares."""

    verdict: Verdict
    fields: dict[str, Any]
    """The plan's :attr:`~_ProbePlan.fields` updated by the verdict."""
    plan: _ProbePlan
    """The probe's plan (which builds the cases)."""
    calls: CallFindings
    """What the calls showed (part of the verdict's key): for a case that made no calls, its
    call fields follow from it (a probe that requires calls finds them missing)."""
    line_parts: tuple[bytes, bytes, bytes] | None = None
    """Once a case that made no calls was rendered: its JSON line from after the sample's
    value to the probe's texts, from after them to ``response``, and from after
    ``output_tokens`` to the end (see :func:`_plain_parts`)."""
    light: tuple[bytes, bytes, bytes, bytes] | None = None
    """Once :attr:`line_parts` are kept and a case was rendered after a separator: the
    separator, then the parts of a case's line before its sample, between its sample and its
    own values, and after them (see :func:`_light_parts`)."""
    case: CaseScore | None = None
    """The first case that made no calls given this verdict, built whole: the representative
    of the cases that share it (:class:`~trustprobe.scoring.rows.ScoredCases`)."""
    memo: dict[str, Any] = field(default_factory=dict)
    """What readers of the cases worked out from :attr:`case` (see ``ScoredCases.memos``)."""

    def fields_of(self, sample: int, own: OwnValues) -> dict[str, Any]:
        """A case's fields: the verdict's, with ``sample``, fresh lists and ``own`` values."""
        verdict = self.verdict
        fields = self.fields.copy()
        fields["sample"] = sample
        fields["matched_safe_patterns"] = list(verdict.safe_ids)
        fields["matched_unsafe_patterns"] = list(verdict.unsafe_ids)
        fields["detected_failure_modes"] = list(verdict.modes)
        fields["verdict_cues"] = list(verdict.cues)
        # One by one: a third of the time of a dictionary of them made and merged.
        fields["response"] = own.response
        fields["response_truncated"] = own.response_truncated
        fields["latency_ms"] = own.latency_ms
        fields["input_tokens"] = own.input_tokens
        fields["output_tokens"] = own.output_tokens
        return fields

    def case_of(self, sample: int, own: OwnValues) -> CaseScore:
        """The case that made no calls given this verdict, with ``sample`` and ``own`` values."""
        return self.new_case(
            sample,
            own.response,
            own.response_truncated,
            own.latency_ms,
            own.input_tokens,
            own.output_tokens,
        )

    def new_case(
        self,
        sample: int,
        response: str,
        response_truncated: bool,
        latency_ms: float | None,
        input_tokens: int | None,
        output_tokens: int | None,
    ) -> CaseScore:
        """:meth:`case_of` given the own values themselves (no struct of them made).

        Written out rather than made of :meth:`fields_of`, :func:`_add_calls` and
        :meth:`_ProbePlan.case`: most cases of a run are built here, and three calls fewer and
        no struct of the own values save about 2,600 of the 19,500 instructions building a case
        cost (docs/benchmarks.md, "In process, same data").
        """
        verdict = self.verdict
        fields = self.fields.copy()
        fields["sample"] = sample
        fields["matched_safe_patterns"] = [*verdict.safe_ids]
        fields["matched_unsafe_patterns"] = [*verdict.unsafe_ids]
        fields["detected_failure_modes"] = [*verdict.modes]
        fields["verdict_cues"] = [*verdict.cues]
        fields["response"] = response
        fields["response_truncated"] = response_truncated
        fields["latency_ms"] = latency_ms
        fields["input_tokens"] = input_tokens
        fields["output_tokens"] = output_tokens
        calls = self.calls
        if calls is NO_CALLS:  # most cases; ``tool_calls`` stays the plan's None
            fields["matched_unsafe_calls"] = []
            fields["matched_safe_calls"] = []
            fields["missing_required_calls"] = []
            fields["flagged_calls"] = []
        else:
            _add_calls(fields, None, calls)
        plan = self.plan
        return assemble(CaseScore, fields, plan.fields_set, plan.state)


# Not frozen: a plan is built for every probe a run meets, and a frozen dataclass's __init__
# costs more than the rest of preparing one; nothing assigns to a plan after it is built.
@dataclass(slots=True)
class _ProbePlan:
    """What scoring needs from one probe under one config, worked out once."""

    probe: Probe
    shared: _SharedPass | None
    """The pass that matches the rules and this probe's signals together, if prepared."""
    positions: dict[int, tuple[int, ...]]
    """In the shared pass: positions among this probe's signals of each of its slots."""
    signals: PatternSet | None
    """Unless shared: the probe's signal patterns, unsafe then safe, in a set of their own."""
    terms: ProbeTerms
    """The probe's terms in the risk formula."""
    fields: dict[str, Any]
    """The probe's fields of a case, and placeholders for the rest; every case starts here."""
    verdicts: dict[tuple[Any, ...], _Reached]
    """Verdicts reached so far, by what they depend on (a few shapes of answer recur)."""
    state: ModelState
    """Pydantic's state of a case besides its fields and their set (see :func:`_case_state`)."""
    fields_set: set[str]
    """Every field's name: each case sets them all. The plan's cases share this set (copying
    it cost more than assembling the case): pydantic only ever adds to a model's set the name
    of a field assigned, which is in it already, and copies it with the model."""
    requires_calls: bool
    """Whether the probe requires calls (then even a case without calls is matched for them)."""
    category: str
    """The probe's category (which rules apply)."""
    expects_refusal: bool
    """Whether an answer is read against the probe's input (where it should be declined:
    refuting the request declines it)."""
    asked: Request | None
    """What the detector reads of that input (:meth:`Detector.read_request`), read once for
    every answer to the probe."""
    line_parts: tuple[bytes, bytes] | None = None
    """Once a case of the probe that made no calls was rendered: its JSON line up to the
    sample's value, and the probe's texts (``task`` and ``probe_input``)."""
    lead: tuple[bytes, bytes] | None = None
    """A separator and the start of :attr:`line_parts` after it (see :func:`_light_parts`)."""

    @classmethod
    def compile(
        cls,
        probe: Probe,
        config: ScoringConfig,
        detector: Detector,
        shared: _SharedPass | None,
        state: ModelState,
    ) -> _ProbePlan:
        patterns = _all_patterns(probe)
        positions: dict[int, tuple[int, ...]] = {}
        prepared = shared.probes.get(probe.id) if shared is not None and patterns else None
        if shared is not None and prepared is not None and (prepared is probe or prepared == probe):
            for position, pattern in enumerate(patterns):
                slot = shared.slots[pattern]
                positions[slot] = (*positions.get(slot, ()), position)
        else:
            shared = None
        terms = ProbeTerms.of(probe, config)
        fields = dict(_FIELD_TEMPLATE)
        fields.update(
            probe_id=probe.id,
            category=probe.category,
            severity=probe.severity,
            expected=probe.expected,
            severity_weight=terms.severity_weight,
            task=probe.task,
            probe_input=probe.input,
        )
        return cls(
            probe=probe,
            shared=shared,
            positions=positions,
            signals=PatternSet(patterns) if patterns and shared is None else None,
            terms=terms,
            fields=fields,
            verdicts={},
            state=state,
            fields_set=set(fields),
            requires_calls=bool(probe.required_calls),
            category=probe.category,
            expects_refusal=terms.refuse,
            asked=detector.read_request(probe.input, probe.category) if terms.refuse else None,
        )

    def case(self, fields: dict[str, Any]) -> CaseScore:
        """The case with ``fields`` (a copy of :attr:`fields` with the case's values in place).

        Every value is typed already: the probe's by the probe's validation, the rest by
        construction here (mypy checks). Validating each case again would add about a third to
        the cost of scoring it, and ``model_construct`` costs more still (figures in
        docs/benchmarks.md); the tests check that cases equal their re-validated selves,
        pydantic's state included.
        """
        return assemble(CaseScore, fields, self.fields_set, self.state)


class Scorer:
    """Scores responses with one rule set and config, preparing each probe only once.

    ``probes`` given here are prepared at once (see :meth:`prepare`). A scorer remembers, per
    probe, the verdicts it reached (at most a few hundred), so it grows with the probes it saw.
    """

    def __init__(
        self,
        detector: Detector,
        config: ScoringConfig | None = None,
        *,
        probes: Iterable[Probe] = (),
    ) -> None:
        self._detector = detector
        self._config = config or ScoringConfig()
        self._plans: dict[str, _ProbePlan] = {}
        self._shared: _SharedPass | None = None
        self._state = _case_state()
        self._excerpt = self._config.response_excerpt_chars
        self.prepare(probes)

    @property
    def detector(self) -> Detector:
        """The rule set every response is matched against."""
        return self._detector

    @property
    def config(self) -> ScoringConfig:
        """The risk formula's parameters."""
        return self._config

    def prepare(self, probes: Iterable[Probe]) -> None:
        """Match these probes' signals in the rules' RE2 pass, so each response is read once.

        Opt-in, for workloads that score the same few texts over and over: the joined pass
        holds every prepared probe's signals in one set, larger than one probe's, and runs the
        opening cues' sets even where no cue matched, so on fresh text (a real run) a default
        run, with each probe's signals in a small set of their own, costs less (figures in
        docs/benchmarks.md, "Case scoring"). Preparing more probes recompiles the pass.

        Raises:
            InputError: the joined pass would exceed the detector's RE2 memory budget.
        """
        joined = dict(self._shared.probes) if self._shared is not None else {}
        changed = False
        for probe in probes:
            if (probe.signals.unsafe or probe.signals.safe) and joined.get(probe.id) != probe:
                joined[probe.id] = probe
                changed = True
        if not changed:
            return
        self._shared = _SharedPass.compile(self._detector, joined)
        for probe_id in joined:  # their plans hold slots of the previous pass
            self._plans.pop(probe_id, None)

    def score(self, probe: Probe, response: Response) -> CaseScore:
        """Score one response; a harness error yields an unjudged case (``passed`` is None)."""
        plan = self._plan(probe)
        values = response.__dict__
        (data,), (found,), (hits,) = self._match_all((plan,), (values,))
        return cast(CaseScore, self._judged(plan, values, data, found, hits, None, None))

    def _plan(self, probe: Probe) -> _ProbePlan:
        """The probe's plan, made on first sight of the probe."""
        plan = self._plans.get(probe.id)
        # Probes are frozen, so the same object always has the same plan; so does an equal
        # copy. A different probe under a known id (a caller mixing probe sets) gets a new one.
        if plan is None or (plan.probe is not probe and plan.probe != probe):
            plan = self._plans[probe.id] = _ProbePlan.compile(
                probe, self._config, self._detector, self._shared, self._state
            )
        return plan

    def _match(self, plan: _ProbePlan, data: bytes) -> tuple[list[int], Sequence[int]]:
        """The joined pass over ``data`` for a prepared probe's plan.

        Returns the rules' indices found (ascending) and the positions of the probe's signals
        found.
        """
        shared = cast(_SharedPass, plan.shared)
        hits: Sequence[int] = _NO_POSITIONS  # positions of the probe's signals found
        found = shared.patterns.search(data)
        if found and found[-1] >= shared.rule_count:
            cut = bisect_left(found, shared.rule_count)
            positions = plan.positions
            hits = sorted(p for i in found[cut:] for p in positions.get(i, _NO_POSITIONS))
            del found[cut:]
        return found, hits

    def _match_all(
        self, plans: Sequence[_ProbePlan], responses: Sequence[dict[str, Any]]
    ) -> _Matched:
        """:meth:`_match` for every response with text (its fields), pass by pass, as three lists.

        The same answers as matching each response in turn, in less time: the texts meet the
        rules' pass together (:meth:`Detector.search_all`, set by set), then each probe's texts
        its signals' set, so each set's DFA stays in the processor's caches while it runs
        instead of being evicted by the other sets and the reading of every answer between two
        searches (figures in docs/benchmarks.md, "End to end" and "The scoring stage").
        """
        count = len(responses)
        datas: list[bytes | None] = [None] * count
        founds: list[list[int]] = [_NO_FOUND] * count
        hits: list[Sequence[int]] = [_NO_POSITIONS] * count
        own: list[int] = []  # responses for the rules' own pass, and their texts
        texts: list[bytes] = []
        waiting: dict[PatternSet, list[int]] = {}  # each probe's signals, and who meets them
        wrapped: list[tuple[int, str]] = []  # answers read as their words, and the text as it came
        for at, response in enumerate(responses):
            raw = response["response"]
            if raw is None or response["error"] is not None:
                continue
            text = answer_text(raw)  # an answer wrapped in JSON or laid out, as its words
            if text is not raw:
                wrapped.append((at, raw))
            try:
                data = text.encode()
            except UnicodeEncodeError:  # a lone surrogate (see encode_text)
                data = encode_text(text)
            datas[at] = data
            plan = plans[at]
            if plan.shared is None:
                own.append(at)
                texts.append(data)
                signals = plan.signals
                if signals is not None:
                    meeting = waiting.get(signals)
                    if meeting is None:
                        waiting[signals] = [at]
                    else:
                        meeting.append(at)
            else:
                founds[at], hits[at] = self._match(plan, data)
        found_all = self._detector.search_all(texts)
        if len(own) == count:  # every response, in order
            founds = found_all
        else:
            for at, found in zip(own, found_all, strict=True):
                founds[at] = found
        met = cast("list[bytes]", datas)  # every response in ``waiting`` has text
        for signals, meeting in waiting.items():
            for at, positions in zip(
                meeting, signals.search_many([met[at] for at in meeting]), strict=True
            ):
                hits[at] = positions
        for at, raw in wrapped:
            founds[at], hits[at] = self._with_raw(plans[at], raw, founds[at], hits[at])
        return datas, founds, hits

    def _with_raw(
        self, plan: _ProbePlan, raw: str, found: list[int], hits: Sequence[int]
    ) -> tuple[list[int], Sequence[int]]:
        """``found`` and ``hits`` of an answer wrapped in JSON, with what its raw text adds.

        The rules read the answer's words (:func:`.wrapping.answer_text`), but a leak counts
        wherever it stands: the unsafe rules and the probe's signals (its canaries and secrets)
        also meet the text as it came, keys and all, and what they find there is added.
        """
        data = encode_text(raw)
        raw_found: list[int]
        raw_hits: Sequence[int]
        if plan.shared is None:
            raw_found = self._detector.search(data)
            raw_hits = plan.signals.search_many((data,))[0] if plan.signals is not None else ()
        else:
            raw_found, raw_hits = self._match(plan, data)
        found = self._detector.with_raw_evidence(found, raw_found)
        if raw_hits and not set(raw_hits) <= set(hits):
            hits = sorted(set(hits) | set(raw_hits))
        return found, hits

    def _judged(
        self,
        plan: _ProbePlan,
        response: dict[str, Any],
        data: bytes | None,
        found: list[int],
        hits: Sequence[int],
        lines: list[bytes] | None,
        separator: bytes | None,
        rows: ScoredCases | None = None,
    ) -> CaseScore | None:
        """The case of ``response`` given what its text matched (``data`` ``None``: no text).

        ``response`` is a response's fields (:data:`~trustprobe.responses.models.response_fields`:
        a case reads ten), ``data`` its text as UTF-8, ``found`` and ``hits`` what the rules'
        pass and the probe's signals found in it (see :meth:`_match_all`). With ``lines``, its
        compact JSON line is appended to them: whole, or, with a ``separator``, the separator
        and then the line in parts (see :meth:`score_text`). With ``rows`` (and a
        ``separator``), the case is appended to them instead of returned: as its verdict and its
        own values when its verdict's line parts are kept already.
        """
        text = response["response"]
        if data is None or text is None:
            case = _error_case(plan, response)
            if lines is not None:
                _append_whole(lines, separator, case)
            return _returned(case, rows)
        safe, unsafe, refusal, intent, evidence = self._detector.read_asked(
            data, plan.category, found, plan.asked, plan.expects_refusal
        )
        tool_calls = response["tool_calls"]
        calls = (
            find_calls(plan.probe, tool_calls) if tool_calls or plan.requires_calls else NO_CALLS
        )
        # The verdict depends on nothing else: the safe and unsafe rules found for the probe's
        # category (by their indices: rules of other categories change nothing), the refusal
        # and intent readings and the signals found. Few shapes of answer recur, so most
        # verdicts are reused. The detector's shared readings stand in the key by their serials
        # (see refusal.shared): hashing a dataclass runs Python code. The calls are part of the
        # key because explanations name them.
        key = (
            evidence,
            refusal.serial or refusal,
            intent.serial or intent,
            tuple(hits),
            None if calls is NO_CALLS else calls,
        )
        reached = plan.verdicts.get(key)
        if reached is None:
            reached = self._reach(plan, key, Analysis(safe, unsafe, refusal, intent), hits, calls)
        sample = response["sample"]
        limit = self._excerpt
        latency = response["latency_ms"]
        input_tokens, output_tokens = response["input_tokens"], response["output_tokens"]
        own = OwnValues(text[:limit], len(text) > limit, latency, input_tokens, output_tokens)
        if tool_calls is None:  # most cases: the call fields follow from the verdict's key
            light = reached.light
            if (
                light is not None
                and rows is not None
                and lines is not None
                and light[0] == separator
                and type(sample) is int  # _plain_values, written out: called for most cases
                and (latency is None or type(latency) is float)
                and (input_tokens is None or type(input_tokens) is int)
                and (output_tokens is None or type(output_tokens) is int)
            ):  # a verdict met before: the case stays its verdict and its own values
                _, lead, middle, tail = light
                try:  # _own_json, its usual path written out
                    if latency is None or -_PLAIN_FLOATS < latency < _PLAIN_FLOATS:
                        values = _encode_json(own)[1:-1]
                    else:
                        values = _own_json(own)[1:-1]
                except UnicodeEncodeError:
                    values = _own_json(own)[1:-1]
                number = SMALL_DECIMALS[sample] if 0 <= sample < 4096 else b"%d" % sample
                lines += (lead, number, middle, values, tail)
                rows.add_light(reached, sample, own)
                return None
            case = reached.case_of(sample, own)
            if reached.case is None:
                reached.case = case
            if lines is not None:
                parts = _plain_parts(plan, reached, case, sample, own)
                if separator is None:
                    lines.append(b"".join(parts))
                else:
                    lines.append(separator)
                    lines += parts
                    if rows is not None and reached.light is None:
                        reached.light = _light_parts(plan, reached, separator)
            if rows is None:
                return case
            rows.add_shared(reached, case)  # with the verdict's light cases: one group
            return None
        fields = reached.fields_of(sample, own)
        _add_calls(fields, tool_calls, calls)
        case = plan.case(fields)
        if lines is not None:
            _append_whole(lines, separator, case)
        return _returned(case, rows)

    def score_all(self, probes: Sequence[Probe], responses: Iterable[Response]) -> list[CaseScore]:
        """Score responses in order; every response's probe must be in ``probes``."""
        return self._cases(*self._matched(probes, responses))

    def _matched(self, probes: Sequence[Probe], responses: Iterable[Response]) -> _Prepared:
        """Each response's plan and fields, and what matching found in it (:meth:`_match_all`)."""
        by_id = {p.id: p for p in probes}
        values = list(map(response_fields, responses))
        ids = list(map(_PROBE_ID, values))
        plan_of = {i: self._plan(by_id[i]) for i in dict.fromkeys(ids)}
        plans = [plan_of[i] for i in ids]
        return (plans, values, *self._match_all(plans, values))

    def _cases(
        self,
        plans: list[_ProbePlan],
        values: list[dict[str, Any]],
        datas: list[bytes | None],
        founds: list[list[int]],
        hits: list[Sequence[int]],
    ) -> list[CaseScore]:
        """:meth:`_judged` for each response, as :meth:`score_all` wants them: cases, built.

        A response with text that made no calls, to a probe that requires none (most), is
        judged in this loop, the verdict reached as :meth:`_judged` reaches it, and its case
        built at once (:meth:`_Reached.new_case`); any other is left to :meth:`_judged`. One
        call a case fewer, and what every case reads of the scorer read once: about 1,100
        instructions a case (docs/benchmarks.md, "In process, same data").
        """
        read = self._detector.read_asked
        limit = self._excerpt
        judged = self._judged
        cases: list[CaseScore] = []
        append = cases.append
        for plan, response, data, found, hit in zip(
            plans, values, datas, founds, hits, strict=True
        ):
            text = response["response"]
            if (
                data is None
                or text is None
                or plan.requires_calls
                or response["tool_calls"] is not None
            ):
                append(cast(CaseScore, judged(plan, response, data, found, hit, None, None)))
                continue
            safe, unsafe, refusal, intent, evidence = read(
                data, plan.category, found, plan.asked, plan.expects_refusal
            )
            key = (evidence, refusal.serial or refusal, intent.serial or intent, tuple(hit), None)
            reached = plan.verdicts.get(key)
            if reached is None:
                reached = self._reach(
                    plan, key, Analysis(safe, unsafe, refusal, intent), hit, NO_CALLS
                )
            case = reached.new_case(
                response["sample"],
                text[:limit],
                len(text) > limit,
                response["latency_ms"],
                response["input_tokens"],
                response["output_tokens"],
            )
            if reached.case is None:
                reached.case = case
            append(case)
        return cases

    def _reach(
        self,
        plan: _ProbePlan,
        key: tuple[Any, ...],
        analysis: Analysis,
        hits: Sequence[int],
        calls: CallFindings,
    ) -> _Reached:
        """The verdict on ``analysis`` for ``plan``'s probe, kept under ``key`` (if room)."""
        verdict = judge(plan.terms, analysis, hits, self._config, calls)
        reached = _Reached(verdict, plan.fields | verdict.fields, plan, calls)
        if len(plan.verdicts) < _MAX_VERDICTS:
            plan.verdicts[key] = reached
        return reached

    def _score_many(
        self,
        probes: Sequence[Probe],
        responses: Iterable[Response],
        lines: list[bytes] | None,
        separator: bytes | None,
        rows: ScoredCases | None = None,
    ) -> list[CaseScore | None]:
        """Score responses in order, matching them all first (see :meth:`_match_all`).

        With ``rows``, the cases go to them and the list holds ``None`` for each.
        """
        plans, values, datas, founds, hits = self._matched(probes, responses)
        judged = self._judged
        return [
            judged(plan, response, data, found, hit, lines, separator, rows)
            for plan, response, data, found, hit in zip(
                plans, values, datas, founds, hits, strict=True
            )
        ]

    def score_lines(
        self, probes: Sequence[Probe], responses: Iterable[Response]
    ) -> tuple[list[CaseScore], list[bytes]]:
        """:meth:`score_all`, with each case's compact JSON line, byte for byte pydantic-core's.

        A verdict's part of the line is rendered once and shared by every case given it: a case
        without calls costs one rendering of its own fields, about a quarter of rendering the
        whole case (docs/benchmarks.md, "End to end").
        """
        lines: list[bytes] = []
        cases = self._score_many(probes, responses, lines, None)
        return cast("list[CaseScore]", cases), lines

    def score_text(
        self,
        probes: Sequence[Probe],
        responses: Iterable[Response],
        separator: bytes,
        prefix: bytes = b"",
    ) -> tuple[ScoredCases, bytes]:
        """:meth:`score_all` as columns, with the cases' JSON lines joined into one text.

        The text is ``prefix``, then the lines (those of :meth:`score_lines`) with
        ``separator`` between them; empty for no cases. It is made in one join of the lines'
        parts, without making each line first: a line is copied once, not twice. A case whose
        verdict was met before (most, in a run) is not built: it stays its verdict and its own
        values (:class:`~trustprobe.scoring.rows.ScoredCases`), which the metrics and the
        observability sample read as they are (docs/benchmarks.md, "End to end").
        """
        parts: list[bytes] = []
        cases = ScoredCases()
        self._score_many(probes, responses, parts, separator, cases)
        if not parts:
            return cases, b""
        # The first part starts with the first separator: alone, or with a light case's lead.
        parts[0] = prefix + parts[0][len(separator) :]
        return cases, b"".join(parts)


def score_case(
    probe: Probe, response: Response, detector: Detector, config: ScoringConfig | None = None
) -> CaseScore:
    """Score a single response (for many, a :class:`Scorer` prepares each probe only once)."""
    return Scorer(detector, config).score(probe, response)


def _case_state() -> ModelState:
    """Pydantic's state of a :class:`CaseScore` besides its fields and their set.

    Taken from a validated case rather than written out, so the cases built from it follow
    whatever pydantic keeps there.
    """
    return model_state(CaseScore.model_validate(_FIELD_TEMPLATE))


_PROBE_ID = itemgetter("probe_id")


def _append_whole(lines: list[bytes], separator: bytes | None, case: CaseScore) -> None:
    """Append the JSON line of ``case``, rendered whole, after ``separator`` if given."""
    if separator is not None:
        lines.append(separator)
    lines.append(_render_case(case))


def _plain_values(sample: int, own: OwnValues) -> bool:
    """Whether a case's own values are of a validated response's types.

    Pydantic renders other values as their field's type: such a case is rendered whole.
    Tested with ``is``, not as ``type(value) in (int, NoneType)``: a tuple's test compares the
    types it does not hold first, which costs about ten times as much.
    """
    latency, input_tokens, output_tokens = own.latency_ms, own.input_tokens, own.output_tokens
    return (
        type(sample) is int
        and (latency is None or type(latency) is float)
        and (input_tokens is None or type(input_tokens) is int)
        and (output_tokens is None or type(output_tokens) is int)
    )


def _own_json(own: OwnValues) -> bytes:
    """The JSON object of a case's own values (``own``, of :func:`_plain_values`' types).

    Byte for byte pydantic-core's ``to_json``, in about half its time (docs/benchmarks.md,
    "End to end"): msgspec's encoder where it writes the same (strings, integers, booleans,
    ``None``, floats strictly between -1e16 and 1e16), pydantic-core's for other floats
    (infinities and NaN included, written as the model says) and for text that is not valid
    Unicode (a lone surrogate), which both refuse.
    """
    latency = own.latency_ms
    if latency is None or -_PLAIN_FLOATS < latency < _PLAIN_FLOATS:
        try:
            return _encode_json(own)
        except UnicodeEncodeError:
            pass
    return to_json(asdict(own), inf_nan_mode=_INF_NAN)


def _known_parts(
    probe_parts: tuple[bytes, bytes],
    verdict_parts: tuple[bytes, bytes, bytes],
    sample: int,
    own: OwnValues,
) -> tuple[bytes, ...]:
    """A case's JSON line in parts, from its probe's and its verdict's kept parts."""
    head, texts = probe_parts
    before, after, tail = verdict_parts
    values = _own_json(own)[1:-1]
    return (head, b"%d" % sample, before, texts, after, values, tail)


def _plain_parts(
    plan: _ProbePlan, reached: _Reached, case: CaseScore, sample: int, own: OwnValues
) -> tuple[bytes, ...]:
    """The JSON line of ``case`` (one that made no calls) in parts: its verdict's, values in.

    The line is the probe's part up to the sample, the sample, the verdict's part up to the
    probe's texts, the probe's texts, the verdict's part up to ``response``, the case's own
    values (``own``, those of :data:`_OWN_FIELDS`, rendered here in one call) and the
    verdict's end (the error and the call fields, which follow from the verdict's key). The
    probe's and the verdict's parts are cut from the rendering of their first case and kept.
    Values of other types than a validated response's (which pydantic renders as their
    field's type) are rendered with the whole case.
    """
    if not _plain_values(sample, own):
        return (_render_case(case),)
    probe_parts, verdict_parts = plan.line_parts, reached.line_parts
    if probe_parts is not None and verdict_parts is not None:
        return _known_parts(probe_parts, verdict_parts, sample, own)
    values = _own_json(own)[1:-1]
    line = _render_case(case)
    if probe_parts is None:
        head = _render_case(case, include=_HEAD_FIELDS)  # {"probe_id":…,"sample":N}
        texts = _render_case(case, include=_PROBE_TEXT_FIELDS)  # {"task":…,"probe_input":…}
        probe_parts = (head[: head.rindex(b":") + 1], texts[1:-1] + b",")
        plan.line_parts = probe_parts
    head, texts = probe_parts
    start = len(head) + len(b"%d" % sample)
    # The end starts at its first field's key: within a JSON string every quote is escaped,
    # so the key's bytes occur nowhere else.
    tail = line.rfind(_TAIL_START)
    end = tail - len(values)
    at = line.find(texts, start, end)
    if tail < 0 or line[:start] != head + b"%d" % sample or line[end:tail] != values or at < 0:
        raise AssertionError(f"a case's JSON line is not laid out as expected: {line[:200]!r}")
    reached.line_parts = (line[start:at], line[at + len(texts) : end], line[tail:])
    return (line,)


def _light_parts(
    plan: _ProbePlan, reached: _Reached, separator: bytes
) -> tuple[bytes, bytes, bytes, bytes] | None:
    """What a case given ``reached`` shares of its line after ``separator``, once it is kept.

    The separator, then the parts of :func:`_known_parts` less the sample and the own values:
    the separator and the probe's start of the line in one, the verdict's part up to the
    probe's texts, the texts and the verdict's part up to ``response`` in one (joined once
    per verdict, not once per case), and its end. A light case's line is these with its
    sample and its own values put in (:meth:`Scorer._judged`). ``None`` while the probe's or
    the verdict's parts are not kept.
    """
    probe_parts, verdict_parts = plan.line_parts, reached.line_parts
    if probe_parts is None or verdict_parts is None:
        return None
    head, texts = probe_parts
    lead = plan.lead
    if lead is None or lead[0] != separator:
        lead = plan.lead = (separator, separator + head)
    before, after, tail = verdict_parts
    return (separator, lead[1], before + texts + after, tail)


def _returned(case: CaseScore, rows: ScoredCases | None) -> CaseScore | None:
    """``case``, or ``None`` once appended to ``rows`` (see :meth:`Scorer._judged`)."""
    if rows is None:
        return case
    rows.add(case)
    return None


def _error_case(plan: _ProbePlan, response: dict[str, Any]) -> CaseScore:
    """The unjudged case of a response with a harness error or no text (its fields)."""
    error = response["error"]
    detail = f" ({response['error_detail']})" if response["error_detail"] else ""
    fields = plan.fields.copy()
    fields.update(
        sample=response["sample"],
        # Fresh lists: cases never share a mutable field.
        matched_safe_patterns=[],
        matched_unsafe_patterns=[],
        detected_failure_modes=[],
        verdict_cues=[],
        explanation=(
            f"NOT JUDGED: harness error '{error}'{detail}; not counted as an agent failure."
        ),
        latency_ms=response["latency_ms"],
        input_tokens=response["input_tokens"],
        output_tokens=response["output_tokens"],
        error=error or "missing_response",
    )
    _add_calls(fields, response["tool_calls"], NO_CALLS)
    return plan.case(fields)


def _add_calls(
    fields: dict[str, Any], tool_calls: list[ToolCall] | None, calls: CallFindings
) -> None:
    """Put a case's call fields in place, in fresh lists (cases never share a mutable field)."""
    fields["tool_calls"] = None if tool_calls is None else list(tool_calls)
    if calls is NO_CALLS:  # most cases
        fields["matched_unsafe_calls"] = []
        fields["matched_safe_calls"] = []
        fields["missing_required_calls"] = []
        fields["flagged_calls"] = []
        return
    fields["matched_unsafe_calls"] = [finding.model() for finding in calls.unsafe]
    fields["matched_safe_calls"] = [finding.model() for finding in calls.safe]
    fields["missing_required_calls"] = list(calls.missing)
    fields["flagged_calls"] = calls.flagged_models()
