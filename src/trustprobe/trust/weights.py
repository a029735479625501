"""The weights in force: the seed's base table, or a validated partial override merged over it."""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from trustprobe.errors import InputError
from trustprobe.trust.config import TrustConfig
from trustprobe.trust.dimensions import (
    DIMENSION_WEIGHTS,
    DIMENSIONS,
    WEIGHT_SUM_TOLERANCE,
    Dimension,
    weight_sum,
    weight_sum_accepted,
)

WEIGHTS_OVERRIDE_ENV = "TRUSTPROBE_WEIGHTS_OVERRIDE"
"""Environment variable naming a weight override file when the config names none."""

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class WeightSet:
    """Weights of the 16 dimensions and where they came from."""

    weights: Mapping[Dimension, float] = field(default_factory=lambda: DIMENSION_WEIGHTS)
    """Weight of every dimension (sums to 1.0 ± 0.001)."""
    source: Literal["base", "override"] = "base"
    """``base`` for the seed's table, ``override`` when a partial override was merged in."""
    warning: str | None = None
    """Why an override was rejected, when one was."""

    def __post_init__(self) -> None:
        # As floats, as a score states them (its models are built from these unvalidated).
        weights = {Dimension(d): float(w) for d, w in self.weights.items()}
        object.__setattr__(self, "weights", MappingProxyType(weights))

    @cached_property
    def in_order(self) -> tuple[tuple[float, float], ...]:
        """Each dimension's weight and its sign, in :data:`DIMENSIONS` order.

        The sign (``math.copysign(1.0, weight)``) keeps -0.0 apart from 0.0, which compare
        equal: a key for what the weights determine, as a score's lines without evidence.
        """
        return tuple((self.weights[d], math.copysign(1.0, self.weights[d])) for d in DIMENSIONS)


def _read_override(path: Path) -> dict[Dimension, float]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read weight override: {exc.strerror}", path=path) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg} at column {exc.colno})", path=path, line=exc.lineno
        ) from exc
    except RecursionError as exc:
        raise InputError("not valid JSON (nested too deeply to read)", path=path) from exc
    if not isinstance(data, dict):
        raise InputError("a weight override is a JSON object of dimension → weight", path=path)
    names = {d.value: d for d in Dimension}
    override: dict[Dimension, float] = {}
    for key, value in data.items():
        if key not in names:
            raise InputError("unknown dimension", path=path, field=str(key))
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if not is_number or not math.isfinite(value) or value < 0:
            raise InputError("a weight must be a finite number ≥ 0", path=path, field=key)
        override[names[key]] = float(value)
    return override


def merge_weights(override: Mapping[Dimension, float]) -> WeightSet:
    """Merge a partial override over the base weights, keeping the base when the sum is off.

    The sum is taken in exact decimals, so an override written to sum to 1.001 is inside
    "1.0 ± 0.001" whatever binary floating point makes of it.
    """
    merged = {d: override.get(d, DIMENSION_WEIGHTS[d]) for d in Dimension}
    total = weight_sum(merged)
    if not weight_sum_accepted(total):
        warning = (
            f"weight override rejected: merged sum = {total:.6f}, not 1.0 ± "
            f"{WEIGHT_SUM_TOLERANCE}; the base weights stay in force"
        )
        logger.warning(warning)
        return WeightSet(DIMENSION_WEIGHTS, "base", warning)
    return WeightSet(merged, "override", None)


def resolve_weights(
    config: TrustConfig | None = None,
    *,
    override_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> WeightSet:
    """Resolve the weights in force: ``override_path``, else the config's, else the environment's.

    A file that cannot be read or names an unknown dimension raises :class:`InputError`; a
    well-formed override whose merged sum is off is rejected with a logged warning.
    """
    env = os.environ if environ is None else environ
    chosen: str | Path | None = override_path
    if chosen is None and config is not None:
        chosen = config.weights_override_path
    if chosen is None:
        chosen = env.get(WEIGHTS_OVERRIDE_ENV) or None
    if chosen is None:
        return WeightSet()
    return merge_weights(_read_override(Path(chosen)))
