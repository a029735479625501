"""Agent targets: one small adapter per kind of agent, all behind the :class:`Target` protocol."""

from trustprobe.targets.command import CommandTarget
from trustprobe.targets.errors import (
    ErrorClass,
    HarnessError,
    InvalidTargetResponse,
    MalformedTargetBody,
    TargetConnectionError,
    TargetFailed,
    TargetHTTPError,
    TargetTimeout,
    parse_retry_after,
    redact,
)
from trustprobe.targets.http_json import HttpTarget, fill_template
from trustprobe.targets.json_path import PathNotFound, find_path
from trustprobe.targets.messages import probe_messages, probe_request, probe_text, tool_definitions
from trustprobe.targets.models import (
    CommandTargetConfig,
    HttpTargetConfig,
    OpenAITargetConfig,
    PythonTargetConfig,
    TargetConfig,
    TargetReply,
    reply_from_document,
)
from trustprobe.targets.openai_chat import OpenAITarget, parse_chat_completion, parse_chat_turn
from trustprobe.targets.protocol import Target
from trustprobe.targets.python_callable import PythonTarget, import_callable
from trustprobe.targets.registry import (
    TargetKind,
    create_target,
    parse_target_config,
    target_kinds,
)
from trustprobe.targets.tool_loop import (
    RequestedCall,
    Turn,
    run_tool_loop,
    turn_from_document,
)

__all__ = [
    "CommandTarget",
    "CommandTargetConfig",
    "ErrorClass",
    "HarnessError",
    "HttpTarget",
    "HttpTargetConfig",
    "InvalidTargetResponse",
    "MalformedTargetBody",
    "OpenAITarget",
    "OpenAITargetConfig",
    "PathNotFound",
    "PythonTarget",
    "PythonTargetConfig",
    "RequestedCall",
    "Target",
    "TargetConfig",
    "TargetConnectionError",
    "TargetFailed",
    "TargetHTTPError",
    "TargetKind",
    "TargetReply",
    "TargetTimeout",
    "Turn",
    "create_target",
    "fill_template",
    "find_path",
    "import_callable",
    "parse_chat_completion",
    "parse_chat_turn",
    "parse_retry_after",
    "parse_target_config",
    "probe_messages",
    "probe_request",
    "probe_text",
    "redact",
    "reply_from_document",
    "run_tool_loop",
    "target_kinds",
    "tool_definitions",
    "turn_from_document",
]
