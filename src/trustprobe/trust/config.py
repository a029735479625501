"""Every knob of the trust engine, with the defaults of DESIGN.md's trust engine rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from trustprobe.errors import InputError
from trustprobe.formats import validation_error_to_input_error
from trustprobe.trust.dimensions import Dimension
from trustprobe.trust.tiers import Tier


class TrustConfig(BaseModel):
    """Parameters of the composite trust score (every formula is in docs/trust.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    platinum_min: int = Field(default=900, ge=0, le=1000)
    """Lowest composite awarded platinum."""
    gold_min: int = Field(default=750, ge=0, le=1000)
    """Lowest composite awarded gold."""
    silver_min: int = Field(default=600, ge=0, le=1000)
    """Lowest composite awarded silver."""
    bronze_min: int = Field(default=400, ge=0, le=1000)
    """Lowest composite awarded bronze; below it the agent is unrated."""

    security_gate_threshold: float = Field(default=60.0, ge=0, le=100)
    """A covered security score strictly below this triggers the security gate."""
    security_gate_cap: int = Field(default=599, ge=0, le=1000)
    """Highest composite an agent behind the security gate can show."""
    security_gate_max_tier: Tier = Tier.BRONZE
    """Highest tier an agent behind the security gate can hold."""

    required_dimensions: tuple[Dimension, ...] = (
        Dimension.ACCURACY,
        Dimension.RELIABILITY,
        Dimension.SAFETY,
        Dimension.SECURITY,
    )
    """Dimensions that must be covered for a tier above ``coverage_max_tier``."""
    min_covered_dimensions: int = Field(default=8, ge=0, le=16)
    """How many of the 16 dimensions must be covered for a tier above ``coverage_max_tier``."""
    coverage_max_tier: Tier = Tier.BRONZE
    """Tier at which an agent that misses the coverage requirement is held."""

    decay_points_per_week: float = Field(default=0.1, ge=0)
    """Points (0–100 scale) an evidence item loses per week of age beyond the grace period."""
    decay_grace_days: float = Field(default=7.0, ge=0)
    """Age in days before decay starts."""

    jury_trim_fraction: float = Field(default=0.2, ge=0, lt=0.5)
    """Share of verdicts dropped at each end of a large enough jury."""
    jury_min_verdicts: int = Field(default=5, ge=1)
    """Smallest jury that is trimmed; smaller juries are used whole and marked low-confidence."""

    latency_tolerance: float = Field(default=1.0, gt=0)
    """Latency up to ``tolerance × baseline`` scores 100."""
    cost_ratio_at_zero: float = Field(default=1.0, gt=0)
    """Cost-to-value ratio at which cost efficiency reaches 0."""
    compliance_violation_penalty: float = Field(default=10.0, gt=0)
    """Points lost per point of violation rate (10 → a 10 % violation rate scores 0)."""
    harness_error_penalty: float = Field(default=1.0, gt=0)
    """Points lost per point of harness error rate (1 → the share of clean runs)."""
    eval_rigor_coverage_weight: float = Field(default=0.5, ge=0, le=1)
    """Weight of coverage against diversity in the eval-rigor score."""

    interval_z: float = Field(default=1.96, gt=0)
    """Normal quantile of the composite's uncertainty interval (1.96 ≈ 95 %)."""

    weights_override_path: Path | None = None
    """Partial weight override file (JSON); ``TRUSTPROBE_WEIGHTS_OVERRIDE`` is used when unset."""

    @model_validator(mode="after")
    def _tiers_ascend(self) -> TrustConfig:
        if not self.bronze_min <= self.silver_min <= self.gold_min <= self.platinum_min:
            raise ValueError("tier thresholds must satisfy bronze ≤ silver ≤ gold ≤ platinum")
        return self

    def tier_floor(self, tier: Tier) -> int | None:
        """Lowest composite of ``tier``; ``None`` for unrated, which has no floor."""
        if tier is Tier.PLATINUM:
            return self.platinum_min
        if tier is Tier.GOLD:
            return self.gold_min
        if tier is Tier.SILVER:
            return self.silver_min
        if tier is Tier.BRONZE:
            return self.bronze_min
        return None


def load_trust_config(path: str | Path) -> TrustConfig:
    """Read a :class:`TrustConfig` from a JSON or YAML mapping, naming the bad field on error."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=source) from exc
    try:
        data: Any = (
            yaml.safe_load(text) if source.suffix.lower() in {".yaml", ".yml"} else json.loads(text)
        )
    except (yaml.YAMLError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"not valid JSON or YAML: {exc}", path=source) from exc
    if not isinstance(data, dict):
        raise InputError("expected a mapping of trust settings", path=source)
    try:
        return TrustConfig.model_validate(data)
    except ValidationError as exc:
        raise validation_error_to_input_error(exc, path=source, line=None) from exc
