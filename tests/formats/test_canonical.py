"""``canonical_json`` writes exactly the text of the reference spelling, whichever path it takes.

The stored evidence and transition hashes cover this text, so no value may be spelled otherwise
than ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
allow_nan=False)`` spells it.
"""

from __future__ import annotations

import json
import math
import random
import struct
from enum import IntEnum, StrEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.formats import canonical_json


def reference(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


# Every code point but the surrogates (those have a test of their own below).
TEXT = st.text(st.characters(codec="utf-8"))
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(TEXT, children, max_size=5),
    max_leaves=30,
)


@given(VALUES)
@settings(max_examples=2000)
def test_any_json_value_is_spelled_as_the_reference_spells_it(value: Any) -> None:
    assert canonical_json(value) == reference(value)


@given(st.floats(allow_nan=False, allow_infinity=False))
@settings(max_examples=5000)
def test_every_float_is_spelled_as_python_spells_it(value: float) -> None:
    assert canonical_json(value) == reference(value)
    assert canonical_json({"score": value}) == reference({"score": value})


def test_floats_from_random_bits_and_around_the_notation_bounds() -> None:
    rng = random.Random(11)
    floats = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(20_000)]
    floats += [rng.uniform(0, 100) for _ in range(20_000)]
    floats += [rng.uniform(0, 1e16) for _ in range(5_000)]
    for bound in (1e-4, 1e16, 1e-5, 1e15, 0.0, 5e-324, 1.7976931348623157e308):
        low = high = bound
        for _ in range(50):
            floats += [low, high, -low, -high]
            low, high = math.nextafter(low, -math.inf), math.nextafter(high, math.inf)
    for value in floats:
        if math.isfinite(value):
            assert canonical_json([value]) == reference([value]), value


def test_control_characters_quotes_and_backslashes_are_escaped_alike() -> None:
    text = "".join(chr(code) for code in range(0x100)) + "\u2028\u2029\ufeff\U0001f600"
    assert canonical_json({text: text}) == reference({text: text})


class Colour(StrEnum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


@pytest.mark.parametrize(
    "value",
    [
        {"tuple": (1, 2.5, "x")},
        {"enum": Colour.RED, "int enum": Level.HIGH},
        {"huge": 10**40, "negative": -(2**70)},
        {"lone surrogate": "\ud800", "\udfff": 1},
        [1e-300, 1e300, -1e-5, 1e16, 123456789012345678.0],
    ],
    ids=["tuple", "enums", "big-ints", "surrogates", "exponent-floats"],
)
def test_values_outside_the_fast_path_still_get_the_reference_text(value: Any) -> None:
    assert canonical_json(value) == reference(value)


@pytest.mark.parametrize("value", [math.nan, math.inf, {"x": [-math.inf]}])
def test_non_finite_numbers_are_refused(value: Any) -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        canonical_json(value)


def test_mixed_key_types_are_refused_as_before() -> None:
    with pytest.raises(TypeError):
        canonical_json({1: "a", "b": 2})


def test_circular_values_are_refused_as_before() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        canonical_json(loop)


def floats_in(value: Any) -> list[Any]:
    """Every float inside ``value``, as a caller that knows its types would list them."""
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [number for item in value.values() for number in floats_in(item)]
    if isinstance(value, list):
        return [number for item in value for number in floats_in(item)]
    return []


@given(VALUES)
@settings(max_examples=2000)
def test_a_value_whose_floats_are_named_is_spelled_as_the_reference_spells_it(value: Any) -> None:
    assert canonical_json(value, floats=floats_in(value)) == reference(value)


@pytest.mark.parametrize("number", [1e-5, 1e16, 2.5e-300, 1.7976931348623157e308, -1e-7])
def test_named_floats_outside_fixed_notation_take_the_reference_spelling(number: float) -> None:
    value = {"value": number, "scores": [50.0, number]}
    assert canonical_json(value, floats=[number, 50.0, number]) == reference(value)


def test_named_floats_that_are_not_numbers_take_the_reference_path() -> None:
    value = {"source": {"tool": "garak"}}
    assert canonical_json(value, floats=[value["source"]]) == reference(value)
    with pytest.raises(ValueError):
        canonical_json({"value": math.nan}, floats=[math.nan])
