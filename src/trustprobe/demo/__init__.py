"""The demo agent (guarded and leaky personas) and the ``make demo`` flow."""

from trustprobe.demo.flow import demo_config, run_demo
from trustprobe.demo.personas import Persona, Reading, count_tokens, read_conversation, reply
from trustprobe.demo.server import (
    ChatCompletion,
    ChatRequest,
    DemoAgentServer,
    create_app,
    serve_demo_agent,
)
from trustprobe.demo.tool_use import ToolTurn, tool_turn

__all__ = [
    "ChatCompletion",
    "ChatRequest",
    "DemoAgentServer",
    "Persona",
    "Reading",
    "ToolTurn",
    "count_tokens",
    "create_app",
    "demo_config",
    "read_conversation",
    "reply",
    "run_demo",
    "serve_demo_agent",
    "tool_turn",
]
