"""What a target returns, and the configuration of each kind of target.

Configurations are stored in ``run.json`` and may be committed by a team, so they hold no
secrets: keys and tokens are named by environment variable (``api_key_env``, ``headers_env``)
and read from the environment only when the target is built.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePath
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trustprobe.reports.target import ReportTarget
from trustprobe.responses import ToolCall
from trustprobe.targets.errors import InvalidTargetResponse

_SECRET_KEYS = ("api_key", "apikey", "key", "token", "secret", "password")
SECRET_MESSAGE = (
    "secrets are never read from configuration; put the secret in an environment variable "
    "and name it (api_key_env / headers_env)"
)


def inline_secret_keys(data: Any) -> list[str]:
    """Keys of a configuration mapping that look like a secret written inline."""
    if not isinstance(data, dict):
        return []
    return [str(name) for name in data if str(name).lower() in _SECRET_KEYS]


MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Default bound on an HTTP answer's body: far above any chat answer, far below a full memory."""
_SECRET_HEADER = re.compile(r"authorization|api[-_]?key|token|secret|cookie", re.IGNORECASE)
_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


@dataclass(frozen=True)
class TargetReply:
    """The agent's answer to one probe, with token usage when the target reports it."""

    text: str
    """The final text (after the last tool call, if any)."""
    input_tokens: int | None = None
    output_tokens: int | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    """Every call made, in order; ``None`` when no tools were offered and none was called."""
    repaired: bool = False
    """Whether lone UTF-16 surrogates (or bytes that were not UTF-8) in the agent's text or
    calls were replaced with U+FFFD."""


class _TargetConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _no_inline_secrets(cls, data: Any) -> Any:
        for name in inline_secret_keys(data):
            raise ValueError(f"'{name}': {SECRET_MESSAGE}")
        return data


def _check_headers(headers: dict[str, str]) -> dict[str, str]:
    for name in headers:
        if _SECRET_HEADER.search(name):
            raise ValueError(
                f"header '{name}' looks like a credential; give it through headers_env "
                "(header name -> environment variable) instead"
            )
    return headers


def _check_env_names(mapping: dict[str, str]) -> dict[str, str]:
    for header, variable in mapping.items():
        if not re.match(_ENV_NAME, variable):
            raise ValueError(f"'{variable}' (for header '{header}') is not an environment name")
    return mapping


class OpenAITargetConfig(_TargetConfig):
    """An OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LiteLLM...)."""

    kind: Literal["openai"] = "openai"
    """Target kind."""
    base_url: str = Field(pattern=r"^https?://")
    """API root including the version, e.g. ``http://127.0.0.1:8000/v1``."""
    model: str = Field(min_length=1)
    """Model name sent in every request."""
    api_key_env: str | None = Field(default=None, pattern=_ENV_NAME)
    """Name of the environment variable holding the API key (sent as a bearer token)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra non-secret headers."""
    headers_env: dict[str, str] = Field(default_factory=dict)
    """Extra headers whose values come from environment variables: header -> variable."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature; ``None`` leaves the server's default."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Completion token limit; ``None`` leaves the server's default."""
    max_response_bytes: int = Field(default=MAX_RESPONSE_BYTES, ge=1)
    """Largest answer body read; a longer one ends the case as ``invalid_response``."""

    _headers = field_validator("headers")(_check_headers)
    _headers_env = field_validator("headers_env")(_check_env_names)

    def describe(self) -> ReportTarget:
        """How reports name this target."""
        return ReportTarget(kind=self.kind, model=self.model, base_url=self.base_url)


class HttpTargetConfig(_TargetConfig):
    """A generic JSON endpoint: a body template filled from the probe, a path to the answer."""

    kind: Literal["http"] = "http"
    """Target kind."""
    url: str = Field(pattern=r"^https?://")
    """Endpoint URL."""
    method: Literal["POST", "PUT"] = "POST"
    """HTTP method."""
    body: Any = Field(default_factory=lambda: {"messages": "{messages}"})
    """JSON body template; ``{task}``, ``{input}``, ``{messages}``, ``{sample}``, ``{tools}``,
    ``{tool_choice}`` and ``{step}`` are filled in (an object template that names no
    ``{tools}`` gets ``tools`` and ``tool_choice`` keys added when the probe offers tools)."""
    response_path: str = Field(min_length=1)
    """Where the answer text is: dotted (``choices.0.message.content``) or a JSON Pointer."""
    tool_calls_path: str = Field(default="tool_calls", min_length=1)
    """Where the turn's tool calls are (absent: none), in the documented call shape."""
    input_tokens_path: str | None = None
    """Where the prompt token count is, if the endpoint reports it."""
    output_tokens_path: str | None = None
    """Where the completion token count is, if the endpoint reports it."""
    max_response_bytes: int = Field(default=MAX_RESPONSE_BYTES, ge=1)
    """Largest answer body read; a longer one ends the case as ``invalid_response``."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra non-secret headers."""
    headers_env: dict[str, str] = Field(default_factory=dict)
    """Headers whose values come from environment variables: header -> variable."""

    _headers = field_validator("headers")(_check_headers)
    _headers_env = field_validator("headers_env")(_check_env_names)

    def describe(self) -> ReportTarget:
        """How reports name this target."""
        return ReportTarget(kind=self.kind, base_url=self.url)


class CommandTargetConfig(_TargetConfig):
    """A local command: the probe on stdin, the answer on stdout."""

    kind: Literal["cmd"] = "cmd"
    """Target kind."""
    command: tuple[str, ...] = Field(min_length=1)
    """Program and arguments (a string is split like a shell would, without running one)."""
    input_format: Literal["json", "text"] = "json"
    """``json``: the request document on stdin; ``text``: task, blank line, input."""
    output_format: Literal["text", "json"] = "text"
    """``text``: stdout is the answer; ``json``: ``{"text": ..., "input_tokens": ...}``."""
    cwd: str | None = None
    """Working directory of the command."""
    max_response_bytes: int = Field(default=MAX_RESPONSE_BYTES, ge=1)
    """Most bytes read of stdout, and of stderr; more ends the case as ``invalid_response``."""

    @field_validator("command", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return shlex.split(value) if isinstance(value, str) else value

    def describe(self) -> ReportTarget:
        """How reports name this target: the program only, as arguments may carry secrets."""
        return ReportTarget(kind=self.kind, name=PurePath(self.command[0]).name)


class PythonTargetConfig(_TargetConfig):
    """A Python callable ``module:function``, sync (run in a thread) or async."""

    kind: Literal["python"] = "python"
    """Target kind."""
    callable: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
    """``package.module:function`` taking the request document."""
    threads: int = Field(default=8, ge=1, le=256)
    """Threads for a synchronous callable; calls beyond this queue, and queued time counts
    against the runner's timeout, so keep it at least the runner's concurrency."""

    def describe(self) -> ReportTarget:
        """How reports name this target."""
        return ReportTarget(kind=self.kind, name=self.callable)


TargetConfig = Annotated[
    OpenAITargetConfig | HttpTargetConfig | CommandTargetConfig | PythonTargetConfig,
    Field(discriminator="kind"),
]
"""Any target's configuration, told apart by ``kind``."""


def token_counts(document: dict[str, Any]) -> tuple[int | None, int | None]:
    """``input_tokens`` and ``output_tokens`` of an answer document (each optional)."""
    counts: list[int | None] = []
    for name in ("input_tokens", "output_tokens"):
        value = document.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            raise InvalidTargetResponse(f'"{name}" must be a non-negative integer or null')
        counts.append(value)
    return counts[0], counts[1]


def reply_from_document(document: Any) -> TargetReply:
    """Read ``{"text": ..., "input_tokens": ..., "output_tokens": ...}`` (tokens optional)."""
    if not isinstance(document, dict) or not isinstance(document.get("text"), str):
        raise InvalidTargetResponse('expected an object with a "text" string')
    return TargetReply(document["text"], *token_counts(document))
