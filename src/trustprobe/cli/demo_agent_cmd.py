"""``trustprobe demo-agent``: serve the deterministic demo agent on loopback."""

from __future__ import annotations

from typing import Annotated

import typer

from trustprobe.demo import Persona, serve_demo_agent


def demo_agent(
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    persona: Annotated[
        Persona, typer.Option("--persona", help="guarded or leaky.")
    ] = Persona.GUARDED,
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (keep it loopback).")
    ] = "127.0.0.1",
) -> None:
    """Serve an OpenAI-compatible demo agent (base URL http://HOST:PORT/v1)."""
    serve_demo_agent(persona, host=host, port=port)
