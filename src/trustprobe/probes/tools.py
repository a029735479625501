"""Tools a probe offers an agent, what they answer, and the calls that decide a verdict.

Everything here is data plus pure functions: the harness asks :func:`tool_outcome` what a tool
returns to a call (that is where indirect injections live), and scoring asks :func:`call_text`
and :func:`call_problem` how to read a recorded call. Patterns are RE2, case-insensitive.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Final

import re2
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trustprobe.formats import canonical_json

NEUTRAL_RESULT: Final = '{"status": "ok"}'
"""What a call gets when the probe scripts no result for it (documented in docs/formats.md)."""
_TOOL_NAME = r"^[A-Za-z0-9_-]{1,64}$"
_EMPTY_PARAMETERS: Final[dict[str, Any]] = {"type": "object", "properties": {}}


class ToolFunction(BaseModel):
    """An OpenAI function definition offered to the agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=_TOOL_NAME)
    """Function name, as the agent calls it."""
    description: str = ""
    """What the tool does, in the agent's words."""
    parameters: dict[str, Any] = Field(default_factory=lambda: dict(_EMPTY_PARAMETERS))
    """JSON Schema (draft 2020-12) of the call's arguments object."""

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, data: Any) -> Any:
        """Accept OpenAI's wrapped form ``{"type": "function", "function": {...}}`` too."""
        if isinstance(data, dict) and data.get("type") == "function" and "function" in data:
            return data["function"]
        return data

    @field_validator("parameters")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            text = canonical_json(value)
        except (TypeError, ValueError):  # not plain JSON: checked as it is, not remembered
            _check_schema(value)
        else:
            _check_schema_text(text)
        return value


MAX_SCHEMA_DEPTH: Final = 64
"""Objects and lists a tool's parameters may nest (checking far deeper overflows the stack)."""


def _check_schema(schema: dict[str, Any]) -> None:
    """Raise ``ValueError`` naming the problem if ``schema`` is not a valid JSON Schema."""
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        raise ValueError(f"nested deeper than {MAX_SCHEMA_DEPTH} levels of objects and lists")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ValueError(f"not a valid JSON Schema: {exc.message}") from exc


def _depth(value: Any) -> int:
    """How many objects and lists deep ``value`` nests (``{}`` is 1), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in item)
    return deepest


@functools.lru_cache(maxsize=1024)
def _check_schema_text(text: str) -> None:
    """:func:`_check_schema` of a schema's canonical JSON, each valid schema checked once.

    Catalogs repeat a few tool definitions across many probes (the built-in one: 159 tools,
    39 distinct schemas), and checking a schema against the meta-schema is most of the time
    of loading probes. A failed check raises and is not remembered.
    """
    _check_schema(json.loads(text))


class ToolResultRule(BaseModel):
    """A result given when the call's arguments match a pattern."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    arguments: str = Field(min_length=1)
    """RE2 pattern searched in the canonical JSON of the arguments."""
    result: str
    """The text the tool returns."""
    error: bool = Field(default=False, strict=True)
    """Whether the tool failed (the text is its error message)."""


class ToolScript(BaseModel):
    """What one tool returns: rules tried in order, then a default. A string is the default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    result: str | None = None
    """Default text; ``None`` gives the neutral result."""
    error: bool = Field(default=False, strict=True)
    """Whether the default is a failure of the tool."""
    when: tuple[ToolResultRule, ...] = ()
    """Results keyed by an arguments pattern; the first that matches wins."""

    @model_validator(mode="before")
    @classmethod
    def _text_is_default(cls, data: Any) -> Any:
        return {"result": data} if isinstance(data, str) else data


class CallPattern(BaseModel):
    """A kind of call: a tool-name pattern and an arguments pattern."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(min_length=1)
    """RE2 pattern the whole tool name must match."""
    arguments: str | None = None
    """RE2 pattern searched in the canonical JSON of the arguments; ``None`` matches any."""

    @property
    def label(self) -> str:
        """How the pattern is named in cases and explanations."""
        return self.tool if self.arguments is None else f"{self.tool} ~ /{self.arguments}/"

    def matches(self, name: str, arguments_text: str) -> bool:
        """Whether a call of ``name`` with arguments spelled ``arguments_text`` is this kind."""
        if _compiled(self.tool).fullmatch(name) is None:
            return False
        return (
            self.arguments is None or _compiled(self.arguments).search(arguments_text) is not None
        )


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What the harness answers to one call."""

    text: str
    error: bool


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str) -> Any:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    return re2.compile(pattern, options)


@functools.lru_cache(maxsize=1024)
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


def call_text(arguments: Any) -> str:
    """The arguments as patterns see them: canonical JSON, or the raw text when not JSON."""
    return arguments if isinstance(arguments, str) else canonical_json(arguments)


def offered_tool(tools: tuple[ToolFunction, ...], name: str) -> ToolFunction | None:
    """The offered tool called ``name``, if any."""
    for tool in tools:
        if tool.name == name:
            return tool
    return None


def call_problem(tools: tuple[ToolFunction, ...], name: str, arguments: Any) -> str | None:
    """Why a call is out of bounds (a tool not offered, arguments off its schema), or ``None``."""
    tool = offered_tool(tools, name)
    if tool is None:
        offered = ", ".join(t.name for t in tools) or "none"
        return f"not_offered: no tool named {name!r} was offered (offered: {offered})"
    if not isinstance(arguments, dict):
        return "invalid_arguments: arguments are not a JSON object"
    error = next(iter(_validator(canonical_json(tool.parameters)).iter_errors(arguments)), None)
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(root)"
        return f"invalid_arguments: at {where}: {error.message}"
    return None


def tool_outcome(
    tools: tuple[ToolFunction, ...],
    results: dict[str, ToolScript],
    name: str,
    arguments: Any,
) -> ToolOutcome:
    """What the tool returns to this call: an error for a call out of bounds, else its script."""
    problem = call_problem(tools, name, arguments)
    if problem is not None:
        return ToolOutcome(f"error: {problem.partition(': ')[2]}", True)
    script = results.get(name)
    if script is None:
        return ToolOutcome(NEUTRAL_RESULT, False)
    text = call_text(arguments)
    for rule in script.when:
        if _compiled(rule.arguments).search(text) is not None:
            return ToolOutcome(rule.result, rule.error)
    return ToolOutcome(NEUTRAL_RESULT if script.result is None else script.result, script.error)
