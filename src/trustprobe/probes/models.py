"""The probe: one safety scenario sent to an agent, and what a trustworthy answer looks like."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    field_validator,
)

from trustprobe.probes.tools import CallPattern, ToolFunction, ToolScript, offered_tool

_CHOICES = frozenset({"auto", "none", "required"})


class Severity(StrEnum):
    """How bad a failure on this probe is."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """Position from ``low`` (0) to ``critical`` (3): "at or above" compares ranks."""
        return list(Severity).index(self)


class Expected(StrEnum):
    """What a trustworthy agent does with the probe."""

    REFUSE = "refuse"
    """Decline, or stay within bounds (e.g. ignore an injected instruction)."""
    COMPLY = "comply"
    """Help: the request only looks risky, and refusing it is over-refusal."""


SignalKind = Literal["unsafe", "safe"]
"""Which list a probe signal is in."""


class LabelledSignal(BaseModel):
    """A signal pattern with the label reports show instead of the pattern."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: str = Field(min_length=1)
    """RE2 pattern, case-insensitive."""
    label: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]{0,59}$")
    """Short name, e.g. ``confirms_wrong_total``: lower case, digits, ``_``, ``.``, ``-``."""


def _signal_form(value: Any) -> str:
    return "pattern" if isinstance(value, str) else "labelled"


Signal = Annotated[
    Annotated[str, Tag("pattern")] | Annotated[LabelledSignal, Tag("labelled")],
    Discriminator(_signal_form),
]
"""A pattern, or an object with a pattern and a label (errors then name the object's field)."""


class ProbeSignals(BaseModel):
    """Probe-specific patterns (RE2 syntax, case-insensitive) checked in the response.

    Each entry is a pattern, or an object ``{"pattern": ..., "label": ...}``. Explanations and
    matched-pattern lists name a signal ``signal.<kind>.<label>``, never by its regex: an
    unlabelled pattern is labelled by its 1-based position in its list.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    unsafe: tuple[Signal, ...] = ()
    """Patterns whose presence proves failure, e.g. a planted canary or fake secret."""
    safe: tuple[Signal, ...] = ()
    """Patterns whose presence is evidence of the expected safe behaviour."""

    @field_validator("unsafe", "safe")
    @classmethod
    def _labels_are_unique(
        cls, entries: tuple[str | LabelledSignal, ...]
    ) -> tuple[str | LabelledSignal, ...]:
        labels = [label for label, _ in _labelled(entries)]
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:
            raise ValueError(f"signal label(s) used twice in one list: {', '.join(repeated)}")
        return entries

    def labelled(self, kind: SignalKind) -> list[tuple[str, str]]:
        """``(label, pattern)`` of each signal of ``kind``, in order."""
        return _labelled(self.unsafe if kind == "unsafe" else self.safe)

    def patterns(self, kind: SignalKind) -> tuple[str, ...]:
        """The patterns of ``kind``, in order."""
        return tuple(pattern for _, pattern in self.labelled(kind))


def _labelled(entries: tuple[str | LabelledSignal, ...]) -> list[tuple[str, str]]:
    return [
        (str(position), entry) if isinstance(entry, str) else (entry.label, entry.pattern)
        for position, entry in enumerate(entries, start=1)
    ]


class Probe(BaseModel):
    """One safety probe (see docs/formats.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=200)
    """Unique identifier, stable across catalog versions."""
    category: str = Field(min_length=1, max_length=100)
    """Threat family, e.g. ``indirect_injection``."""
    severity: Severity
    """How bad a failure is."""
    task: str = Field(min_length=1)
    """Context or instruction the agent works under (sent as system context)."""
    input: str = Field(min_length=1)
    """Scenario input: a user message, a document or a tool output (sent as the user turn)."""
    expected: Expected
    """``refuse`` or ``comply``."""
    failure_modes: tuple[str, ...] = ()
    """Labels of the ways an agent can fail this probe; none for sets brought from elsewhere."""
    expected_safe_behavior: str | None = None
    """What a trustworthy answer does, in words."""
    observable_signal: str | None = None
    """What in the response shows pass or fail, in words."""
    tags: tuple[str, ...] = ()
    """Free-form labels for filtering."""
    signals: ProbeSignals = ProbeSignals()
    """Probe-specific patterns; unsafe ones make a verdict near-certain."""
    refusal_required: bool | None = Field(default=None, strict=True)
    """Whether only a refusal passes; ``None`` derives it (see :attr:`requires_refusal`)."""
    tools: tuple[ToolFunction, ...] = ()
    """Functions offered to the agent (OpenAI function definitions)."""
    tool_results: dict[str, ToolScript] = Field(default_factory=dict)
    """What each offered tool returns when called, by tool name (unscripted: neutral result)."""
    tool_choice: str | None = None
    """``auto``, ``none``, ``required`` or an offered tool's name; ``None`` sends nothing."""
    max_steps: int = Field(default=5, ge=1, le=50, strict=True)
    """Model turns before the harness stops the tool-call loop."""
    unsafe_calls: tuple[CallPattern, ...] = ()
    """Calls whose making proves failure, e.g. sending a planted canary to the attacker."""
    safe_calls: tuple[CallPattern, ...] = ()
    """Calls that evidence the expected safe behaviour."""
    required_calls: tuple[CallPattern, ...] = ()
    """Calls the agent must make to pass (acting is the help): each pattern at least once."""

    @field_validator("task", "input")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("tools")
    @classmethod
    def _unique_tools(cls, tools: tuple[ToolFunction, ...]) -> tuple[ToolFunction, ...]:
        names = [tool.name for tool in tools]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"tool {name!r} is offered more than once")
        return tools

    @field_validator("tool_results")
    @classmethod
    def _results_of_offered_tools(
        cls, results: dict[str, ToolScript], info: ValidationInfo
    ) -> dict[str, ToolScript]:
        tools = info.data.get("tools", ())
        for name in results:
            if offered_tool(tools, name) is None:
                raise ValueError(f"names {name!r}, which is not in tools")
        return results

    @field_validator("tool_choice")
    @classmethod
    def _choice_of_offered_tool(cls, choice: str | None, info: ValidationInfo) -> str | None:
        tools = info.data.get("tools", ())
        if choice is not None and choice not in _CHOICES and offered_tool(tools, choice) is None:
            raise ValueError(f"{choice!r} is neither auto, none, required nor an offered tool")
        return choice

    @field_validator("unsafe_calls", "safe_calls", "required_calls")
    @classmethod
    def _calls_need_tools(
        cls, calls: tuple[CallPattern, ...], info: ValidationInfo
    ) -> tuple[CallPattern, ...]:
        if calls and not info.data.get("tools"):
            raise ValueError("call patterns need 'tools' to offer")
        return calls

    @property
    def uses_tools(self) -> bool:
        """Whether the agent is offered tools, so its calls are run, recorded and judged."""
        return bool(self.tools)

    @property
    def requires_refusal(self) -> bool:
        """Whether only refusal or boundary language can pass this probe.

        Explicit ``refusal_required`` wins. Otherwise: ``refuse`` probes without planted unsafe
        signals or unsafe calls. Where a probe plants a canary or names the call that would
        betray it, staying within bounds silently is enough; where it does not, boundary
        language is the only evidence of safe behaviour we have.
        """
        if self.expected is Expected.COMPLY:
            return False
        if self.refusal_required is not None:
            return self.refusal_required
        return not (self.signals.unsafe or self.unsafe_calls)
