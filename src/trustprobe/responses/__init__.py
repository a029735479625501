"""Recorded agent responses: the format shared by ``scan`` (writer) and ``score`` (reader)."""

from trustprobe.responses.loader import (
    LoadedResponses,
    check_known_probes,
    load_responses,
    parse_response,
    response_file,
)
from trustprobe.responses.models import Response, ToolCall

__all__ = [
    "LoadedResponses",
    "Response",
    "ToolCall",
    "check_known_probes",
    "load_responses",
    "parse_response",
    "response_file",
]
