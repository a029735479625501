"""A recorded agent response (or the harness error that stood in for one)."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ToolCall(BaseModel):
    """One tool call the agent made, and what the harness answered (see docs/formats.md)."""

    model_config = ConfigDict(extra="forbid")

    step: int = Field(ge=1)
    """The model turn that made the call, from 1."""
    name: str
    """The tool called (possibly one that was never offered)."""
    arguments: dict[str, Any] | str
    """The arguments as a parsed JSON object, or the raw text when they are not one."""
    result: str | None = None
    """What the harness answered to the call, when it ran the loop."""
    result_error: bool = False
    """Whether that answer was a failure of the tool."""


class Response(BaseModel):
    """One line of ``responses.jsonl`` (see docs/formats.md)."""

    model_config = ConfigDict(extra="forbid")

    probe_id: str = Field(min_length=1)
    """Id of the probe this answers."""
    response: str | None = None
    """The agent's text; ``None`` only when ``error`` is set."""
    sample: int = Field(default=0, ge=0, strict=True)
    """Repeat index when each probe is sent several times."""
    latency_ms: float | None = Field(default=None, ge=0, strict=True)
    """Wall time from request to full answer."""
    input_tokens: int | None = Field(default=None, ge=0, strict=True)
    """Prompt tokens, when the target reports usage."""
    output_tokens: int | None = Field(default=None, ge=0, strict=True)
    """Completion tokens, when the target reports usage."""
    error: str | None = None
    """Harness error class (``timeout``, ``http_503``, ``connection``...): not an agent failure."""
    error_detail: str | None = None
    """Human-readable detail of the harness error."""
    tool_calls: list[ToolCall] | None = None
    """Every tool call the agent made, in order; ``None`` when no tools were offered."""

    @model_validator(mode="after")
    def _response_or_error(self) -> Response:
        if self.response is None and self.error is None:
            raise ValueError("either 'response' or 'error' must be set")
        return self

    @property
    def key(self) -> tuple[str, int]:
        """Identity of the case this record answers: (probe id, sample)."""
        return (self.probe_id, self.sample)


response_fields: Final[Callable[[Response], dict[str, Any]]] = attrgetter("__dict__")
"""A response's fields, where pydantic keeps them, for the paths that read every response.

Read by key there, a field costs about half of reading it as an attribute (pydantic's models
define ``__getattr__``, which slows every attribute read)."""
