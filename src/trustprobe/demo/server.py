"""The demo agent as an OpenAI-compatible HTTP server (FastAPI + uvicorn)."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import uvicorn
from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from trustprobe.demo.personas import Persona, count_tokens, reply
from trustprobe.demo.tool_use import ToolTurn, tool_turn


class ChatMessage(BaseModel):
    """One message of a chat-completions request."""

    model_config = ConfigDict(extra="allow")

    role: str
    """``system``, ``user``, ``assistant`` or ``tool``."""
    content: str | list[dict[str, Any]] | None = None
    """Text, or OpenAI-style content parts."""


class ChatRequest(BaseModel):
    """The chat-completions request body (fields the demo does not use are accepted)."""

    model_config = ConfigDict(extra="allow")

    model: str
    """Model name; echoed back."""
    messages: list[ChatMessage] = Field(min_length=1)
    """The conversation."""
    tools: list[dict[str, Any]] | None = None
    """Functions the agent may call (OpenAI's request shape)."""


class AnswerMessage(BaseModel):
    """The agent's message."""

    role: Literal["assistant"] = "assistant"
    """Always ``assistant``."""
    content: str | None
    """The answer text; ``None`` when the turn only calls tools."""
    tool_calls: list[dict[str, Any]] | None = None
    """Tool calls the agent makes in this turn."""


class Choice(BaseModel):
    """One completion (the demo always returns exactly one)."""

    index: int = 0
    """Position among the choices."""
    message: AnswerMessage
    """The answer."""
    finish_reason: Literal["stop", "tool_calls"] = "stop"
    """Why generation stopped."""


class Usage(BaseModel):
    """Token counts (approximate: words and punctuation)."""

    prompt_tokens: int
    """Tokens in the request messages."""
    completion_tokens: int
    """Tokens in the answer."""
    total_tokens: int
    """Their sum."""


class ChatCompletion(BaseModel):
    """The chat-completions response body."""

    id: str
    """Stable id derived from the request, so the same request gives the same answer."""
    object: Literal["chat.completion"] = "chat.completion"
    """Object type."""
    created: int
    """Unix time of the answer."""
    model: str
    """The requested model name."""
    choices: list[Choice]
    """The single completion."""
    usage: Usage
    """Token counts."""


def create_app(persona: Persona, *, clock: Callable[[], float] = time.time) -> FastAPI:
    """Build the demo agent's app for one persona."""
    app = FastAPI(title=f"trustprobe demo agent ({persona.value})", docs_url=None, redoc_url=None)

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok", "persona": persona.value}

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        name = f"trustprobe-demo-{persona.value}"
        return {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "demo"}]}

    @app.post("/v1/chat/completions")
    def chat_completions(request: ChatRequest) -> ChatCompletion:
        messages = [m.model_dump() for m in request.messages]
        turn = tool_turn(persona, messages, request.tools or [])
        if turn is None:
            turn = ToolTurn(reply(persona, messages))
        text = turn.text
        prompt_tokens = sum(count_tokens(json.dumps(m.get("content") or "")) for m in messages)
        completion_tokens = count_tokens(text or "") + count_tokens(json.dumps(turn.calls))
        digest = hashlib.sha256(
            json.dumps([persona.value, messages], sort_keys=True).encode()
        ).hexdigest()
        message = AnswerMessage(content=text, tool_calls=turn.calls or None)
        return ChatCompletion(
            id=f"chatcmpl-demo-{digest[:24]}",
            created=int(clock()),
            model=request.model,
            choices=[Choice(message=message, finish_reason="tool_calls" if turn.calls else "stop")],
            usage=Usage(
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                total_tokens=prompt_tokens + completion_tokens,
            ),
        )

    return app


class DemoAgentServer:
    """The demo agent served from a background thread on a loopback port (0 picks a free one)."""

    def __init__(self, persona: Persona, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.persona = persona
        self.host = host
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(
            create_app(persona), log_level="warning", access_log=False, lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name=f"demo-agent-{persona.value}",
            daemon=True,
        )

    @property
    def base_url(self) -> str:
        """API root for an ``openai`` target, e.g. ``http://127.0.0.1:41234/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def start(self, *, wait: float = 10.0) -> DemoAgentServer:
        """Start serving; return once the server accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + wait
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the demo agent did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> DemoAgentServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


def serve_demo_agent(persona: Persona, *, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the demo agent in the foreground until interrupted."""
    uvicorn.run(create_app(persona), host=host, port=port, log_level="info")
