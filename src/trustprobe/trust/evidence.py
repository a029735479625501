"""Evidence records (eval, jury, operational): validation, loading and canonical form."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from trustprobe.errors import InputError, TrustprobeError
from trustprobe.formats import Identifier, canonical_json, entering, read_jsonl, utc_text
from trustprobe.trust.dimensions import Dimension

EARLIEST_OBSERVED_AT: Final = datetime(1970, 1, 1, tzinfo=UTC)
"""No evidence is older than this: an earlier ``observed_at`` is a mistake (year 999, 0001...)."""
CLOCK_SKEW: Final = timedelta(minutes=5)
"""How far after the receiver's clock an ``observed_at`` may lie: clocks of honest senders drift.

Later than ``now + CLOCK_SKEW`` is rejected; within it the record is stored, but a score computed
before its ``observed_at`` does not count it yet (the ingestion answer says so)."""
MAX_COUNT: Final = 2**53 - 1
"""Largest count (``passed``, ``total``, ``actions``...): exact as a float, so sums stay finite."""


def _rfc3339_text(value: Any) -> Any:
    # pydantic would read a number as Unix seconds: the public formats say RFC 3339 only.
    if not isinstance(value, str | datetime):
        raise ValueError("must be an RFC 3339 date-time string, e.g. 2026-03-01T12:00:00Z")
    return value


def observation_time(value: datetime, *, entering: bool = True) -> datetime:
    """``value`` (timezone-aware) in UTC, as a time evidence may be observed at.

    Raises:
        ValueError: a time outside the years 1 to 9999 once in UTC, or (``entering``: new
            input, not a stored record read back) a time before :data:`EARLIEST_OBSERVED_AT`.
    """
    try:
        moment = value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+05:00 is before year 1 in UTC
        raise ValueError("lies outside the years 1 to 9999 once converted to UTC") from None
    if moment < EARLIEST_OBSERVED_AT and entering:
        raise ValueError(
            f"{utc_text(moment)} is before {utc_text(EARLIEST_OBSERVED_AT)}, "
            "the earliest time evidence may be observed"
        )
    return moment


def _observed_utc(value: datetime, info: ValidationInfo) -> datetime:
    return observation_time(value, entering=entering(info))


ObservedAt = Annotated[AwareDatetime, BeforeValidator(_rfc3339_text), AfterValidator(_observed_utc)]
"""An observation time: an RFC 3339 string with its offset, 1970 or later, read as UTC."""
Count = Annotated[int, Field(strict=True, le=MAX_COUNT)]
"""A count: a JSON integer (never a string, a boolean or a float), at most :data:`MAX_COUNT`."""
Number = Annotated[float, Field(strict=True)]
"""A figure: a JSON number (never a string or a boolean)."""


class EvidenceFieldError(TrustprobeError, ValueError):
    """A cross-field rule failed; ``field`` names the field to blame in the error."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class EvidenceOrigin(BaseModel):
    """Where a record came from: which run of which tool, read from which file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(min_length=1, max_length=40)
    """The tool whose results the record carries (``garak``, ``promptfoo``, ``inspect``...)."""
    tool_version: str | None = Field(default=None, max_length=40)
    """The tool's version as its output states it."""
    run_id: str | None = Field(default=None, max_length=200)
    """The run's own id (garak run uuid, promptfoo eval id, Inspect run id)."""
    file: str | None = Field(default=None, max_length=255)
    """Name of the file read (no directory: where it lay is not part of the evidence)."""
    file_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the file's bytes, so anyone holding the file can check it is the one read."""
    family: str | None = Field(default=None, max_length=200)
    """The tool's probe, plugin or task family the record sums up."""


class _EvidenceBase(BaseModel):
    """Fields every evidence record has."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    id: Identifier
    """Unique id; re-sending the same id is a no-op."""
    agent_id: Identifier
    """The agent the evidence is about."""
    dimension: Dimension
    """The trust dimension it informs (camelCase, as in the seed)."""
    observed_at: ObservedAt
    """When the behaviour was observed (RFC 3339, 1970 or later, stored in UTC); decay counts
    from here."""
    source: EvidenceOrigin | None = None
    """Where the record came from, when it was imported from another tool's results."""


class EvalEvidence(_EvidenceBase):
    """An evaluation result: a 0–100 score, or passed out of total cases."""

    kind: Literal["eval"] = "eval"
    """Record kind: ``eval``."""
    score: Number | None = Field(default=None, ge=0, le=100)
    """Score on the 0–100 scale, when the evaluation reports one."""
    passed: Count | None = Field(default=None, ge=0)
    """Cases passed, with ``total``."""
    total: Count | None = Field(default=None, ge=1)
    """Cases judged; also the item's size when several items are combined."""

    @model_validator(mode="after")
    def _score_or_counts(self) -> EvalEvidence:
        if self.score is not None:
            if self.passed is not None or self.total is not None:
                field = "passed" if self.passed is not None else "total"
                raise EvidenceFieldError("give either 'score' or 'passed' and 'total'", field=field)
            return self
        if self.passed is None or self.total is None:
            field = "total" if self.passed is not None else "passed"
            if self.passed is None and self.total is None:
                field = "score"
            raise EvidenceFieldError(
                "an eval record needs 'score', or both 'passed' and 'total'", field=field
            )
        if self.passed > self.total:
            raise EvidenceFieldError("'passed' cannot exceed 'total'", field="passed")
        return self


class JuryEvidence(_EvidenceBase):
    """Juror verdicts on one evaluation; trimmed and reduced to their median."""

    kind: Literal["jury"] = "jury"
    """Record kind: ``jury``."""
    scores: list[Annotated[Number, Field(ge=0, le=100)]] = Field(min_length=1)
    """One 0–100 score per juror."""


@dataclass(frozen=True)
class OperationalRule:
    """What an operational record of one dimension must carry."""

    metrics: tuple[str, ...]
    """Accepted ``metric`` names."""
    field: str
    """The extra field the dimension's function needs."""
    value_at_most_field: bool = False
    """Whether ``value`` counts a subset of ``field`` (violations of actions, ...)."""
    value_at_most_one: bool = False
    """Whether ``value`` is a 0–1 fraction."""


OPERATIONAL_RULES: Mapping[Dimension, OperationalRule] = MappingProxyType(
    {
        Dimension.LATENCY: OperationalRule(("latency_ms",), "baseline_ms"),
        Dimension.COST_EFFICIENCY: OperationalRule(("cost", "tokens"), "task_value"),
        Dimension.BOND: OperationalRule(("stake",), "reference_stake"),
        Dimension.EVAL_RIGOR: OperationalRule(("coverage",), "diversity", value_at_most_one=True),
        Dimension.MODEL_COMPLIANCE: OperationalRule(
            ("violations",), "actions", value_at_most_field=True
        ),
        Dimension.RUNTIME_COMPLIANCE: OperationalRule(
            ("violations",), "actions", value_at_most_field=True
        ),
        Dimension.HARNESS_STABILITY: OperationalRule(
            ("harness_errors",), "runs", value_at_most_field=True
        ),
        Dimension.RELIABILITY: OperationalRule(
            ("consistent_groups",), "groups", value_at_most_field=True
        ),
        Dimension.TEAMWORK: OperationalRule(
            ("successful_collaborations",), "collaborations", value_at_most_field=True
        ),
    }
)
"""Dimensions that accept operational evidence, and what it must carry (docs/trust.md)."""

_OPERATIONAL_FIELDS = (
    "baseline_ms",
    "task_value",
    "reference_stake",
    "diversity",
    "actions",
    "runs",
    "groups",
    "collaborations",
)


class OperationalEvidence(_EvidenceBase):
    """A measured operational figure; the fields it needs depend on the dimension."""

    kind: Literal["operational"] = "operational"
    """Record kind: ``operational``."""
    metric: Identifier = Field(max_length=100)
    """What ``value`` measures; accepted names depend on the dimension (docs/trust.md)."""
    value: Number = Field(ge=0)
    """The measured figure."""
    baseline_ms: Number | None = Field(default=None, gt=0)
    """latency: the task-complexity baseline latency in milliseconds."""
    task_value: Number | None = Field(default=None, gt=0)
    """costEfficiency: what the task is worth, in the unit of ``value``."""
    reference_stake: Number | None = Field(default=None, gt=0)
    """bond: the stake that earns a full score for this agent's risk class."""
    diversity: Number | None = Field(default=None, ge=0, le=1)
    """evalRigor: normalised entropy (0–1) of the submitted evaluations' categories."""
    actions: Count | None = Field(default=None, ge=1)
    """modelCompliance, runtimeCompliance: actions observed (``value`` counts violations)."""
    runs: Count | None = Field(default=None, ge=1)
    """harnessStability: harness runs observed (``value`` counts harness errors)."""
    groups: Count | None = Field(default=None, ge=1)
    """reliability: inputs sampled more than once (``value`` counts consistent ones)."""
    collaborations: Count | None = Field(default=None, ge=1)
    """teamwork: collaborations observed (``value`` counts successful ones)."""

    @model_validator(mode="after")
    def _fits_dimension(self) -> OperationalEvidence:
        rule = OPERATIONAL_RULES.get(self.dimension)
        if rule is None:
            raise EvidenceFieldError(
                f"dimension '{self.dimension.value}' takes eval or jury evidence, not operational",
                field="kind",
            )
        if self.metric not in rule.metrics:
            accepted = ", ".join(f"'{m}'" for m in rule.metrics)
            raise EvidenceFieldError(
                f"operational '{self.dimension.value}' evidence needs metric {accepted}",
                field="metric",
            )
        for name in _OPERATIONAL_FIELDS:
            present = getattr(self, name) is not None
            if name == rule.field and not present:
                raise EvidenceFieldError(
                    f"operational '{self.dimension.value}' evidence needs '{name}'", field=name
                )
            if name != rule.field and present:
                raise EvidenceFieldError(
                    f"'{name}' does not apply to '{self.dimension.value}' evidence", field=name
                )
        bound = getattr(self, rule.field)
        if rule.value_at_most_field and self.value > bound:
            raise EvidenceFieldError(f"'value' cannot exceed '{rule.field}'", field="value")
        if rule.value_at_most_one and self.value > 1:
            raise EvidenceFieldError("'value' is a fraction and cannot exceed 1", field="value")
        return self

    @property
    def size(self) -> int | None:
        """Observations behind the figure, when the record says (actions, runs, ...)."""
        for name in ("actions", "runs", "groups", "collaborations"):
            count: int | None = getattr(self, name)
            if count is not None:
                return count
        return None


Evidence = Annotated[EvalEvidence | JuryEvidence | OperationalEvidence, Field(discriminator="kind")]
"""Any evidence record, told apart by ``kind``."""

_EVIDENCE_ADAPTER: TypeAdapter[Evidence] = TypeAdapter(Evidence)
_KINDS = ("eval", "jury", "operational")


def _input_error(exc: ValidationError, *, path: str | Path | None, line: int | None) -> InputError:
    first = exc.errors()[0]
    loc = [str(part) for part in first["loc"]]
    if loc and loc[0] in _KINDS:  # the tagged union puts the tag first; it is not a field
        loc = loc[1:]
    field = ".".join(loc) or None
    message = first["msg"]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, EvidenceFieldError):
        field, message = cause.field, str(cause)
    elif first["type"] == "value_error" and cause is not None:
        message = str(cause)  # without pydantic's "Value error, " prefix
    elif first["type"] == "extra_forbidden":
        message = "unknown field"
    elif first["type"] == "missing":
        message = "required field is missing"
    elif first["type"] == "union_tag_not_found":
        field, message = "kind", "required field is missing (one of eval, jury, operational)"
    elif first["type"] == "union_tag_invalid":
        field, message = "kind", "must be one of eval, jury, operational"
    return InputError(message, path=path, line=line, field=field)


def parse_evidence(
    obj: Mapping[str, Any], *, path: str | Path | None = None, line: int | None = None
) -> Evidence:
    """Validate one evidence record; bad input raises :class:`InputError` naming the field."""
    if not isinstance(obj, Mapping):
        raise InputError(
            f"an evidence record must be a JSON object, got {type(obj).__name__}",
            path=path,
            line=line,
        )
    try:
        return _EVIDENCE_ADAPTER.validate_python(dict(obj))
    except ValidationError as exc:
        raise _input_error(exc, path=path, line=line) from exc


def load_evidence(path: str | Path) -> list[Evidence]:
    """Read an evidence JSONL file; the first bad line raises :class:`InputError` with its number.

    A repeated id with identical content counts once; with different content it is an error.
    """
    records: list[Evidence] = []
    seen: dict[str, tuple[int, Evidence]] = {}
    for row in read_jsonl(path):
        if row.repaired_utf8:
            raise InputError(
                "invalid UTF-8 or a lone UTF-16 surrogate", path=row.path, line=row.line
            )
        record = parse_evidence(row.data, path=row.path, line=row.line)
        first = seen.get(record.id)
        if first is not None:
            if first[1] != record:
                raise InputError(
                    f"evidence id '{record.id}' was already used with different content "
                    f"(line {first[0]})",
                    path=row.path,
                    line=row.line,
                    field="id",
                )
            continue
        seen[record.id] = (row.line, record)
        records.append(record)
    return records


def check_observed_in_time(
    records: Sequence[Evidence],
    *,
    now: datetime,
    path: str | Path | None = None,
    lines: Sequence[int] | None = None,
) -> None:
    """Refuse the first record observed after ``now`` plus :data:`CLOCK_SKEW`.

    Such a record is a wrong clock or a typo, not evidence: stored, it would be ignored by every
    score until that time and then count at once. The error names the record by its line in
    ``path`` when ``lines`` are given, else by its 0-based index in ``records``.

    Raises:
        InputError: a record's ``observed_at`` is too late.
    """
    latest = now + CLOCK_SKEW
    for index, record in enumerate(records):
        if record.observed_at > latest:
            where: dict[str, Any] = {"index": index}
            if lines is not None:
                where = {"path": path, "line": lines[index]}
            raise InputError(
                f"evidence '{record.id}' is observed at {utc_text(record.observed_at)}, later "
                f"than the receiver's clock ({utc_text(now)}) plus the allowed skew of "
                f"{CLOCK_SKEW.total_seconds() / 60:g} minutes; send it once it has happened",
                field="observed_at",
                **where,
            )


def evidence_canonical_json(evidence: Evidence) -> str:
    """Serialise a record as compact JSON, sorted keys, no nulls: stable, so it can be hashed."""
    # model_dump(mode="json", exclude_none=True) without its wrapper's cost (a third of it).
    content = type(evidence).__pydantic_serializer__.to_python(
        evidence, mode="json", exclude_none=True
    )
    # The model fixes every type but the floats' spelling, so only the floats are checked.
    return canonical_json(content, floats=_float_values(content, _FLOAT_FIELDS[evidence.kind]))


def _holds_float(annotation: Any) -> bool:
    """Whether a field of this annotation can hold a float, itself or inside (list, model).

    ``Any`` can: a field added later with free-form values is then checked whole.
    """
    if annotation is float or annotation is Any:
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return any(_holds_float(info.annotation) for info in annotation.model_fields.values())
    return any(_holds_float(argument) for argument in get_args(annotation))


def _float_values(content: Mapping[str, Any], names: Sequence[str]) -> Iterator[Any]:
    """The values of fields ``names`` in a record's dump, a list's items one by one.

    A nested object is yielded whole: not a number, it sends the record to the full check.
    """
    for name in names:
        value = content.get(name)
        if type(value) is list:
            yield from value
        elif value is not None:
            yield value


_FLOAT_FIELDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        model.model_fields["kind"].default: tuple(
            name for name, info in model.model_fields.items() if _holds_float(info.annotation)
        )
        for model in (EvalEvidence, JuryEvidence, OperationalEvidence)
    }
)
"""Each kind's fields that can hold floats (its dump holds none elsewhere)."""
