"""garak's report JSONL: ``init`` says the run, evaluated ``attempt`` entries hold the cases."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any, BinaryIO

import orjson

from trustprobe.errors import InputError
from trustprobe.formats import decode_jsonl_line
from trustprobe.importers.models import Outcome, ToolFile, parse_time

HIT_THRESHOLD = 0.5
"""garak's evaluator counts a detector score at or above this as a hit (the output failed)."""

_EVALUATED = 2
"""``status`` of an attempt its detectors have scored (1: generated only)."""

_ATTEMPT = b'{"entry_type": "attempt", '
_GENERATED = re.compile(
    rb'\{"entry_type": "attempt", "uuid": "[^"\\]*", "seq": \d+, "status": 1, '
    rb'"probe_classname": "([^"\\]+)"'
)
"""The first bytes of a status 1 attempt entry as garak writes it (its keys come in this order)."""


def _text(value: Any) -> str | None:
    """The text of a garak message: a string (older reports) or ``{"text": ...}`` (newer)."""
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, Mapping):
        text = value.get("text")
        return text if isinstance(text, str) or text is None else None
    return None


def _prompt(value: Any) -> str | None:
    """The last user turn of a prompt: a string, or a conversation ``{"turns": [...]}``."""
    if isinstance(value, Mapping) and isinstance(value.get("turns"), list):
        for turn in reversed(value["turns"]):
            if isinstance(turn, Mapping) and turn.get("role", "user") == "user":
                return _text(turn.get("content"))
        return None
    return _text(value)


class GarakReport(ToolFile):
    """A garak ``*.report.jsonl``: one case per output of each evaluated attempt.

    An output fails when any detector scored it at or above :data:`HIT_THRESHOLD` (garak's own
    rule), passes when every detector scored it below, and is unjudged when no detector gave it
    a score. Outputs garak generated but never evaluated (status 1 without a status 2 entry: a
    run cut short) are counted as unjudged by probe.
    """

    tool = "garak"

    @staticmethod
    @cache
    def candidates(key: str) -> tuple[str, ...]:
        """``probe.Class`` then ``probe``."""
        module = key.split(".", 1)[0]
        return (key, module) if module != key else (key,)

    def outcomes(self) -> Iterator[Outcome]:
        """Every output of every evaluated attempt; other entries set the run or are checked."""
        name = str(self.path)
        generated: dict[str, int] = {}  # attempts per probe with a status 1 entry
        evaluated: dict[str, int] = {}  # the same with a status 2 entry
        with self._open(name) as handle:
            for number, raw in enumerate(handle, start=1):
                self._hash.update(raw)
                # Half the lines are status 1 entries, whose outputs are judged again in the
                # status 2 entry; recognised by their first bytes, they are only counted.
                if raw.startswith(_ATTEMPT):
                    found = _GENERATED.match(raw)
                    if found is not None and raw.rstrip().endswith(b"}"):
                        probe = found.group(1).decode()
                        generated[probe] = generated.get(probe, 0) + 1
                        continue
                entry = _decode(raw, name, number)
                if entry is None:
                    continue
                kind = entry.get("entry_type")
                if kind == "attempt":
                    yield from self._attempt(entry, name, number, generated, evaluated)
                elif kind == "init":
                    self._init(entry, name, number)
                elif kind == "eval":
                    _check_eval(entry, name, number)
                elif not isinstance(kind, str):
                    raise InputError(
                        "not a garak report entry", path=name, line=number, field="entry_type"
                    )
        if self.run.started_at is None and not generated and not evaluated:
            raise InputError("no garak 'init' or 'attempt' entry: not a garak report", path=name)
        cut_short = {p for p, count in generated.items() if count > evaluated.get(p, 0)}
        if cut_short:
            yield from self._unevaluated(name, cut_short)

    def _open(self, name: str) -> BinaryIO:
        try:
            return open(self.path, "rb")
        except OSError as exc:
            raise InputError(f"cannot read file: {exc.strerror}", path=name) from exc

    def _unevaluated(self, name: str, probes: set[str]) -> Iterator[Outcome]:
        """A run cut short before detection: its never-judged outputs, counted unjudged.

        Rare enough to afford a second pass, which keeps the first one free of bookkeeping
        per attempt: outputs generated minus outputs evaluated, per probe.
        """
        missing = dict.fromkeys(probes, 0)
        with self._open(name) as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.startswith(_ATTEMPT):
                    continue
                entry = _decode(raw, name, number)
                probe = None if entry is None else entry.get("probe_classname")
                if entry is None or probe not in missing:
                    continue
                outputs = entry.get("outputs")
                count = len(outputs) if isinstance(outputs, list) else 0
                missing[probe] += count if entry.get("status") == 1 else -count
        for probe, count in sorted(missing.items()):
            for index in range(count):
                yield Outcome(probe, f"unevaluated-{index}", None)

    def _init(self, entry: Mapping[str, Any], name: str, number: int) -> None:
        version, run = entry.get("garak_version"), entry.get("run")
        for field, value in (("garak_version", version), ("run", run)):
            if not isinstance(value, str):
                raise InputError("must be a string", path=name, line=number, field=field)
        # garak writes its local time without an offset; the report cannot say which zone,
        # so UTC is assumed (docs/importers.md): pass --observed-at to say otherwise.
        self.run.started_at = parse_time(
            entry.get("start_time"), path=name, line=number, field="start_time"
        )
        self.run.tool_version, self.run.run_id = version, run

    def _attempt(
        self,
        entry: Mapping[str, Any],
        name: str,
        number: int,
        generated: dict[str, int],
        evaluated: dict[str, int],
    ) -> list[Outcome]:
        probe, status, uuid = entry.get("probe_classname"), entry.get("status"), entry.get("uuid")
        if not isinstance(probe, str) or not probe:
            raise InputError(
                "must be a probe name", path=name, line=number, field="probe_classname"
            )
        if not isinstance(uuid, str):
            raise InputError("must be a string", path=name, line=number, field="uuid")
        outputs = entry.get("outputs")
        if not isinstance(outputs, list):
            raise InputError("must be a list", path=name, line=number, field="outputs")
        if status != _EVALUATED:
            if status != 1:
                raise InputError("must be 1 or 2", path=name, line=number, field="status")
            generated[probe] = generated.get(probe, 0) + 1
            return []
        evaluated[probe] = evaluated.get(probe, 0) + 1
        results = entry.get("detector_results")
        if not isinstance(results, Mapping):
            raise InputError("must be an object", path=name, line=number, field="detector_results")
        verdicts = _verdicts(results, len(outputs), name, number)
        if not self.transcripts:
            return [Outcome(probe, f"{uuid}-{i}", v) for i, v in enumerate(verdicts)]
        prompt = _prompt(entry.get("prompt"))
        return [
            Outcome(probe, f"{uuid}-{i}", verdict, prompt, _text(output))
            for i, (verdict, output) in enumerate(zip(verdicts, outputs, strict=True))
        ]


def _decode(raw: bytes, name: str, number: int) -> dict[str, Any] | None:
    """One line as an object, parsed by orjson when it can.

    What orjson refuses (blank lines, invalid UTF-8, NaN, broken JSON) goes to the project's
    line reader, which repairs what it may and otherwise names the line.
    """
    try:
        entry = orjson.loads(raw)
    except orjson.JSONDecodeError:
        decoded = decode_jsonl_line(raw, name, number)
        return None if decoded is None else decoded[0]
    if not isinstance(entry, dict):
        decode_jsonl_line(raw, name, number)  # raises: "expected a JSON object"
    return entry  # type: ignore[no-any-return]


def _verdicts(
    results: Mapping[str, Any], outputs: int, name: str, number: int
) -> list[bool | None]:
    """Per output: passed unless a detector hit it; ``None`` when no detector scored it."""
    verdicts: list[bool | None] = [None] * outputs
    for detector, scores in results.items():
        if not isinstance(scores, list) or len(scores) > outputs:
            raise InputError(
                "must be a list with at most one score per output",
                path=name,
                line=number,
                field=f"detector_results.{detector}",
            )
        for index, score in enumerate(scores):
            if score is None:
                continue
            if score.__class__ is not float and (
                isinstance(score, bool) or not isinstance(score, int | float)
            ):
                field = f"detector_results.{detector}"
                raise InputError("scores must be numbers", path=name, line=number, field=field)
            if score >= HIT_THRESHOLD:
                verdicts[index] = False
            elif verdicts[index] is None:
                verdicts[index] = True
    return verdicts


def _check_eval(entry: Mapping[str, Any], name: str, number: int) -> None:
    """Garak's per-detector tallies: not counted again, but a broken one means a broken file."""
    for field in ("probe", "detector"):
        if not isinstance(entry.get(field), str):
            raise InputError("must be a string", path=name, line=number, field=field)
    for field in ("passed", "total"):
        value = entry.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise InputError("must be a count", path=name, line=number, field=field)
