"""The one canonical JSON spelling, for everything that is hashed or compared as text."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import msgspec

# The reference spelling. One encoder for every call: json.dumps with these options builds a
# new one each time, which costs about a quarter of encoding a small record.
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
# msgspec writes the same text three times faster for the values it spells alike (see
# _msgspec_spells_alike); tests/formats/test_canonical.py holds the two to the same text.
_FAST_ENCODER = msgspec.json.Encoder(order="sorted")
# Python writes a float in exponent form (1e-05, 1e+16) outside this range, msgspec otherwise.
_FIXED_NOTATION = (1e-4, 1e16)


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no insignificant whitespace, UTF-8 kept as is, no NaN."""
    try:
        if _msgspec_spells_alike(value):
            return _FAST_ENCODER.encode(value).decode()
    except (UnicodeEncodeError, RecursionError):  # a lone surrogate; a circular value
        pass
    return _ENCODER.encode(value)


def _msgspec_spells_alike(value: Any) -> bool:
    """Whether msgspec writes ``value`` exactly as :data:`_ENCODER` does.

    True for plain JSON values (exact ``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
    ``bool``, ``None``) whose floats are zero or in :data:`_FIXED_NOTATION`; anything else
    (tuples, subclasses such as enums, NaN, other floats) takes the reference encoder.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return bool(value == 0.0 or _FIXED_NOTATION[0] <= abs(value) < _FIXED_NOTATION[1])
    if kind is dict:
        return all(type(key) is str and _msgspec_spells_alike(item) for key, item in value.items())
    if kind is list:
        return all(_msgspec_spells_alike(item) for item in value)
    return False


def sha256_hex(text: str) -> str:
    """Hex SHA-256 of UTF-8 ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
