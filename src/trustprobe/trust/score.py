"""The trust score and its explanation: exactly the JSON of ``trustprobe trust score --json``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, ParamSpec, TypeVar, cast

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from trustprobe.formats.typed_models import assemble, model_state
from trustprobe.trust.dimensions import Dimension
from trustprobe.trust.tiers import Tier

INTERVAL_METHOD: Literal["agresti-coull"] = "agresti-coull"
"""Name of the uncertainty method (docs/trust.md, "Uncertainty")."""


_P = ParamSpec("_P")
_M = TypeVar("_M", bound=BaseModel)


def unvalidated(model: Callable[_P, _M]) -> Callable[_P, _M]:
    """``model``'s constructor, by field name, for values already of their fields' exact types.

    It does not check them: a value pydantic would convert (an ``int`` for a ``float`` field, a
    numpy number) must not be given. For the models the trust engine fills with values it computed
    itself: validating a score's dozen models again was about a fifth of the CPU of building it
    (53 against 41 µs an agent, docs/benchmarks.md, "Evidence ingestion"). As with validation,
    fields left out take their defaults and stay out of ``model_fields_set``, and the fields are
    kept in the model's order; the tests check that models built so equal their re-validated
    selves, types and pydantic's state included (tests/trust/validated.py).
    """
    cls = cast(type[_M], model)
    names = tuple(cls.model_fields)
    defaults = {name: info for name, info in cls.model_fields.items() if not info.is_required()}
    state = model_state(cls.model_construct())

    def build(*args: _P.args, **given: _P.kwargs) -> _M:
        if args:
            raise TypeError(f"{cls.__name__} takes its fields by name")
        values: dict[str, Any] = given
        if tuple(given) != names:  # fields left out or given in another order
            for name in given.keys() - set(names):
                raise TypeError(f"{cls.__name__} has no field '{name}'")
            values = {}
            for name in names:
                if name in given:
                    values[name] = given[name]
                elif name in defaults:
                    values[name] = defaults[name].get_default(call_default_factory=True)
                else:
                    raise TypeError(f"{cls.__name__} needs field '{name}'")
        return assemble(cls, values, set(given), state)

    return build


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DimensionScore(_Frozen):
    """One dimension's line of the explanation."""

    score: float | None
    """Decayed 0–100 score, or ``None`` when the dimension has no evidence."""
    raw_score: float | None
    """The same combination before time decay."""
    weight: float
    """Weight in force for the dimension."""
    effective_weight: float
    """Weight renormalised over covered dimensions (0 when not covered)."""
    contribution: float | None
    """Composite points this dimension adds: ``10 × effective_weight × score``."""
    evidence_count: int
    """Evidence items behind the score."""
    freshest_age_days: float | None
    """Age in days of the newest item, at ``as_of``."""
    low_confidence: bool
    """Whether a jury behind the score had fewer verdicts than the trimming minimum."""
    standard_error: float | None
    """Standard error of the score (0–100 scale), used for the composite's interval."""


class CoverageSummary(_Frozen):
    """Which dimensions have evidence, against the requirement for tiers above bronze."""

    covered: list[Dimension]
    """Covered dimensions, in the seed's order."""
    covered_count: int
    """How many of the 16 are covered."""
    total: int
    """Number of dimensions (16)."""
    required: list[Dimension]
    """Dimensions that must be covered for a tier above the coverage cap."""
    missing_required: list[Dimension]
    """Required dimensions without evidence."""
    min_covered: int
    """Covered dimensions needed for a tier above the coverage cap."""
    meets_requirement: bool
    """Whether both parts of the requirement hold."""


class SecurityGate(_Frozen):
    """The security gate's decision."""

    applied: bool
    """Whether a covered security score fell below the threshold."""
    threshold: float
    """Security score below which the gate applies."""
    cap: int
    """Composite cap while the gate applies."""
    max_tier: Tier
    """Tier cap while the gate applies."""
    security_score: float | None
    """The decayed security score checked, or ``None`` when security is not covered."""
    capped: bool
    """Whether the gate lowered the composite."""
    reason: str | None
    """Why the gate applied, in words."""


class ScoreInterval(_Frozen):
    """Uncertainty of the composite: ``composite ± z × standard_error``, on the 0–1000 scale."""

    low: int
    """Lower bound (after the security cap, clipped to 0)."""
    high: int
    """Upper bound (after the security cap, clipped to 1000)."""
    standard_error: float
    """Standard error of the unrounded composite."""
    z: float
    """Normal quantile used."""
    method: Literal["agresti-coull"] = INTERVAL_METHOD
    """How the standard error is estimated (docs/trust.md)."""


class TierMargin(_Frozen):
    """How far the composite is from losing or gaining a tier."""

    points_above_floor: int | None
    """Composite points that can be lost before the tier drops; ``None`` when unrated."""
    next_tier: Tier | None
    """The tier above, when points alone can reach it."""
    points_to_next: int | None
    """Composite points needed for ``next_tier``; ``None`` when a gate or requirement blocks it."""


class ScoreSource(_Frozen):
    """One run of another tool whose results are among the evidence behind the score."""

    tool: str
    """The tool (``garak``, ``promptfoo``, ``inspect``...)."""
    tool_version: str | None
    """Its version, as its output states it."""
    run_id: str | None
    """The run's own id."""
    file: str | None
    """The file its results were read from."""
    file_sha256: str | None
    """SHA-256 of that file."""
    families: list[str]
    """The tool's families (probe, plugin, task) the evidence sums up, sorted."""
    dimensions: list[Dimension]
    """Dimensions the run informs, in the seed's order."""
    evidence_count: int
    """Evidence items from the run that the score used."""


class TrustScore(_Frozen):
    """An agent's composite trust score, tier and the explanation a reviewer can audit."""

    agent_id: str
    """The agent scored."""
    as_of: AwareDatetime
    """The moment the score describes: decay is measured to it, later evidence is ignored."""
    composite: int | None = Field(ge=0, le=1000)
    """0–1000 composite after the security gate, or ``None`` when nothing is covered."""
    composite_unrounded: float | None
    """``10 × weighted mean`` before rounding and before the security gate."""
    tier: Tier
    """Certification tier."""
    tier_margin: TierMargin
    """Distance to the tier's floor and to the next tier."""
    interval: ScoreInterval | None
    """Uncertainty of the composite, or ``None`` when nothing is covered."""
    dimensions: dict[Dimension, DimensionScore]
    """Every dimension's line, in the seed's order."""
    coverage: CoverageSummary
    """Coverage against the tier requirement."""
    security_gate: SecurityGate
    """The security gate's decision."""
    weights_source: Literal["base", "override"]
    """Which weights were in force."""
    weights: dict[Dimension, float]
    """The weights in force."""
    reasons: list[str]
    """Every gate, requirement or input rule that changed the outcome, and why."""
    evidence_count: int
    """Evidence items used (after de-duplication and the ``as_of`` cut)."""
    ignored_future_count: int
    """Items observed after ``as_of`` and therefore ignored."""
    sources: list[ScoreSource] = Field(default_factory=list)
    """Runs of other tools behind the score (records with a ``source``), sorted by tool and run.

    Records sent without a ``source`` are counted in ``evidence_count`` only.
    """
