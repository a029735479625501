"""Inspect eval logs, read with inspect_ai's own log API (``pip install 'trustprobe[inspect]'``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from trustprobe.errors import InputError
from trustprobe.importers.models import Outcome, ToolFile, parse_time

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample

PASS_ABOVE = 0.5
"""A score passes when inspect_ai's ``value_to_float`` puts it above this: ``C`` (correct) and
``True`` do, ``I``, ``N``, ``P`` (partial) and ``False`` do not; numbers are read on a 0–1 scale."""

_CHUNK = 1 << 20


def _inspect() -> Any:
    try:
        import inspect_ai.log
        import inspect_ai.scorer
    except ImportError as exc:
        raise InputError(
            "reading Inspect logs needs inspect_ai: pip install 'trustprobe[inspect]'",
            field="inspect",
        ) from exc
    return inspect_ai


def _user_text(value: Any) -> str | None:
    """A sample's input: a string, or chat messages (the last user message's text)."""
    if isinstance(value, str):
        return value
    for message in reversed(value or []):
        if getattr(message, "role", None) == "user":
            text = getattr(message, "text", None)
            return text if isinstance(text, str) else None
    return None


class InspectLog(ToolFile):
    """An Inspect eval log (``.eval`` or ``.json``): one case per sample, epoch and scorer.

    The family is the task name (mapping keys: ``task:scorer``, ``task``, the task's name after
    its last ``/``). A sample that ended in an error, or that a scorer did not score, is
    unjudged.
    """

    tool = "inspect"

    @staticmethod
    def candidates(key: str) -> tuple[str, ...]:
        """``task:scorer``, then ``task``, then the task's own name without its registry path."""
        task = key.rsplit(":", 1)[0]
        short = task.rsplit("/", 1)[-1]
        return tuple(dict.fromkeys((key, task, short)))

    def outcomes(self) -> Iterator[Outcome]:
        """Every sample's scores, streamed sample by sample by inspect_ai."""
        inspect_ai = _inspect()
        name = str(self.path)
        self._digest_file(name)
        try:
            header = inspect_ai.log.read_eval_log(name, header_only=True)
        except Exception as exc:  # inspect_ai raises many kinds; all mean "not a readable log"
            raise InputError(f"not a readable Inspect log: {_first_line(exc)}", path=name) from exc
        spec = header.eval
        self.run.run_id = spec.run_id
        self.run.tool_version = (spec.packages or {}).get("inspect_ai")
        self.run.started_at = parse_time(spec.created, path=name, field="eval.created")
        task = spec.task
        samples = inspect_ai.log.read_eval_log_samples(name, all_samples_required=False)
        index = 0
        while True:
            try:
                sample = next(samples)
            except StopIteration:
                break
            except Exception as exc:  # a damaged sample or a truncated archive
                raise InputError(
                    f"sample cannot be read: {_first_line(exc)}",
                    path=name,
                    field=f"samples[{index}]",
                ) from exc
            yield from _sample_outcomes(inspect_ai, task, sample)
            index += 1

    def _digest_file(self, name: str) -> None:
        try:
            with open(self.path, "rb") as handle:
                while chunk := handle.read(_CHUNK):
                    self._hash.update(chunk)
        except OSError as exc:
            raise InputError(f"cannot read file: {exc.strerror}", path=name) from exc


def _sample_outcomes(inspect_ai: Any, task: str, sample: EvalSample) -> Iterator[Outcome]:
    case = f"{sample.id}-epoch{sample.epoch}"
    prompt = _user_text(sample.input)
    output = sample.output.completion if sample.output is not None else None
    scores = sample.scores or {}
    if sample.error is not None or not scores:
        yield Outcome(task, case, None, prompt, output)
        return
    to_float = inspect_ai.scorer.value_to_float()
    for scorer, score in scores.items():
        try:
            value = to_float(score.value)
        except Exception:  # a list or dict value: several metrics, no single verdict
            value = None
        passed = None if value is None else value > PASS_ABOVE
        yield Outcome(f"{task}:{scorer}", f"{case}-{scorer}", passed, prompt, output)


def _created(text: str, name: str) -> Any:
    from datetime import datetime

    try:
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise InputError(
            f"not an ISO 8601 time: {text!r}", path=name, field="eval.created"
        ) from exc


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
