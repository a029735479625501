"""promptfoo's ``eval -o results.json``: one JSON document, read as a stream of events."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import IO, Any

import ijson

from trustprobe.errors import InputError
from trustprobe.importers.models import Outcome, ToolFile, parse_time

NO_PLUGIN = "no-plugin"
"""Family of a test case without a red-team ``pluginId`` (a plain eval): map it to use it."""

_ERROR = 2
"""promptfoo's ``failureReason`` for a provider or harness error (1 is a failed assertion)."""

_RESULTS = ["results", "results", "item"]
"""Where the results are: each map whose path is this is one result."""
_SCALARS = {
    "evalId": "run_id",
    "results.timestamp": "started_at",
    "metadata.promptfooVersion": "tool_version",
}
MAX_DEPTH = 1000
"""Containers nested deeper than this are refused (about where Python's JSON reader stops)."""


class _Hashing:
    """A binary file that feeds every byte read to the digest (so one pass does both)."""

    def __init__(self, handle: IO[bytes], digest: Any) -> None:
        self._handle, self._digest = handle, digest

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size)
        self._digest.update(data)
        return data


class PromptfooResults(ToolFile):
    """A promptfoo results file (output format version 2 or 3): one case per result.

    A result's ``success`` is promptfoo's verdict; a result whose ``failureReason`` is an error
    is unjudged. The family is the red-team ``pluginId`` of the test case.
    """

    tool = "promptfoo"

    @staticmethod
    def candidates(key: str) -> tuple[str, ...]:
        """``plugin:sub`` then ``plugin``."""
        head = key.split(":", 1)[0]
        return (key, head) if head != key else (key,)

    def outcomes(self) -> Iterator[Outcome]:
        """Every result, in file order, built one at a time from the parser's events."""
        name = str(self.path)
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 - closed below, generator-safe
        except OSError as exc:
            raise InputError(f"cannot read file: {exc.strerror}", path=name) from exc
        index = 0
        seen_results = False
        with handle:
            builder: ijson.ObjectBuilder | None = None
            # The path of the container being read, as ijson spells prefixes ("item" in an
            # array). ijson's own prefixed events build every level's prefix, each as long as
            # its depth: 100 kB of nested brackets held gigabytes. Basic events, a path and
            # a depth limit keep memory bounded.
            path: list[str] = []
            try:
                for event, value in ijson.basic_parse(_Hashing(handle, self._hash)):
                    if builder is not None:
                        builder.event(event, value)
                    if event == "map_key":
                        path[-1] = value
                    elif event == "start_map" or event == "start_array":
                        if len(path) == MAX_DEPTH:
                            raise InputError(
                                f"nested too deeply to read (more than {MAX_DEPTH} levels)",
                                path=name,
                                field=f"results.results[{index}]" if builder else None,
                            )
                        if builder is None and event == "start_map" and path == _RESULTS:
                            builder = ijson.ObjectBuilder()
                            builder.event(event, value)
                        elif event == "start_array" and path == _RESULTS[:2]:
                            seen_results = True
                        path.append("item" if event == "start_array" else "")
                    elif event == "end_map" or event == "end_array":
                        path.pop()
                        if builder is not None and event == "end_map" and path == _RESULTS:
                            yield _outcome(builder.value, name, index)
                            index, builder = index + 1, None
                    elif builder is None and event == "string" and len(path) <= 2:
                        prefix = ".".join(path)
                        if prefix in _SCALARS:
                            self._scalar(_SCALARS[prefix], value, name, prefix)
            except ijson.JSONError as exc:
                raise _damaged(exc, name, index) from exc
        if not seen_results:
            raise InputError(
                "no 'results.results' list: not the output of 'promptfoo eval -o FILE.json'",
                path=name,
            )

    def _scalar(self, attribute: str, value: str, name: str, prefix: str) -> None:
        if attribute == "started_at":
            self.run.started_at = parse_time(value, path=name, field=prefix)
        else:
            setattr(self.run, attribute, value)


def _damaged(exc: ijson.JSONError, name: str, index: int) -> InputError:
    """The parser's complaint as an error naming the file and the result it stopped in."""
    reason = exc.args[0] if exc.args else ""
    # yajl's messages come as bytes, with the offending text and a caret on later lines
    text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    detail = (text.splitlines() or ["not valid JSON"])[0].strip()
    if "trailing garbage" in detail or "Additional data" in detail:
        return InputError(
            "more than one JSON document (JSON Lines?): this reads the one document "
            "'promptfoo eval -o results.json' writes",
            path=name,
        )
    return InputError(
        f"not valid JSON after {index} complete result(s): {detail} (a truncated or damaged file?)",
        path=name,
        field=f"results.results[{index}]",
    )


def _outcome(result: Any, name: str, index: int) -> Outcome:
    where = f"results.results[{index}]"
    if not isinstance(result, Mapping):
        raise InputError("a result must be an object", path=name, field=where)
    success = result.get("success")
    if not isinstance(success, bool):
        raise InputError("must be true or false", path=name, field=f"{where}.success")
    test = result.get("testCase")
    metadata = test.get("metadata") if isinstance(test, Mapping) else None
    if not isinstance(metadata, Mapping):
        metadata = result.get("metadata")
    plugin = metadata.get("pluginId") if isinstance(metadata, Mapping) else None
    if plugin is not None and not isinstance(plugin, str):
        raise InputError("must be a string", path=name, field=f"{where}.testCase.metadata.pluginId")
    prompt = result.get("prompt")
    response = result.get("response")
    output = response.get("output") if isinstance(response, Mapping) else None
    judged = result.get("failureReason") != _ERROR
    case_id = result.get("id")
    return Outcome(
        plugin or NO_PLUGIN,
        case_id if isinstance(case_id, str) else str(index),
        success if judged else None,
        prompt.get("raw") if isinstance(prompt, Mapping) else None,
        output if isinstance(output, str) else None,
    )
