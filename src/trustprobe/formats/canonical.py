"""The one canonical JSON spelling, for everything that is hashed or compared as text."""

from __future__ import annotations

import hashlib
import json
from typing import Any

# One encoder for every call: json.dumps with these options builds a new one each time, which
# costs about a quarter of encoding a small record. The encoder holds no state between calls.
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no insignificant whitespace, UTF-8 kept as is, no NaN."""
    return _ENCODER.encode(value)


def sha256_hex(text: str) -> str:
    """Hex SHA-256 of UTF-8 ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
