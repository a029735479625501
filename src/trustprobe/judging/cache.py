"""On-disk cache of judge rulings, keyed by the digest of what the judge was shown."""

from __future__ import annotations

import json
from pathlib import Path

from trustprobe.detectors import Intent
from trustprobe.formats import atomic_write_text, canonical_json, sha256_hex
from trustprobe.judging.rubric import RUBRIC_VERSION, Ruling


def ruling_key(model: str, task: str, request: str, answer: str) -> str:
    """SHA-256 of the probe (task and request), the answer, the judge model and the rubric."""
    return sha256_hex(
        canonical_json(
            {
                "rubric": RUBRIC_VERSION,
                "model": model,
                "task": task,
                "input": request,
                "response": answer,
            }
        )
    )


class RulingCache:
    """One small JSON file per ruling under ``root/<first two hex digits>/<key>.json``.

    A file per ruling makes every write atomic on its own (temp file and rename), so an
    interrupted run leaves only whole entries; an entry that cannot be read is asked again.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Ruling | None:
        """The cached ruling for ``key``, or None (absent or unreadable)."""
        try:
            document = json.loads(self._path(key).read_text(encoding="utf-8"))
            return Ruling(Intent(document["verdict"]), str(document["rationale"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, ruling: Ruling) -> None:
        """Store ``ruling`` under ``key``."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(
            path, canonical_json({"verdict": ruling.verdict.value, "rationale": ruling.rationale})
        )
