"""Recorded agent responses: the format shared by ``scan`` (writer) and ``score`` (reader)."""

from trustprobe.responses.loader import (
    CHUNK_RESPONSES,
    LoadedResponses,
    ResponseChunk,
    check_known_probes,
    load_responses,
    parse_response,
    read_responses,
    response_file,
    unknown_probes_error,
)
from trustprobe.responses.models import Response, ToolCall

__all__ = [
    "CHUNK_RESPONSES",
    "LoadedResponses",
    "Response",
    "ResponseChunk",
    "ToolCall",
    "check_known_probes",
    "load_responses",
    "parse_response",
    "read_responses",
    "response_file",
    "unknown_probes_error",
]
