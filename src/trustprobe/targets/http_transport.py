"""One JSON request over httpx, with every failure turned into a classified harness error."""

from __future__ import annotations

import itertools
import json
import ssl
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from trustprobe.errors import InputError
from trustprobe.targets.errors import (
    InvalidTargetResponse,
    TargetConnectionError,
    TargetHTTPError,
    TargetTimeout,
    parse_retry_after,
    redact,
)

_SNIPPET = 200


class ClientPool:
    """Keep-alive HTTP clients used in turn, with no timeout of their own (the runner's bounds).

    httpcore's pool scans every connection for every waiting request, so one pool serving 100
    concurrent requests spends most of the client's CPU in that scan. Several small pools,
    used round-robin, keep connection reuse and cut the CPU per request by about 4x at
    concurrency 100 (benchmarks/bench_runner.py).
    """

    def __init__(self, *, tls: bool, shards: int = 32) -> None:
        # One context for all shards: loading CA certificates costs ~0.1 s of CPU. A plain
        # http:// target gets a context with no CAs at all, which can never verify a peer:
        # cheap, and closed rather than open should TLS ever be attempted.
        context = httpx.create_ssl_context() if tls else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        self._clients = [
            httpx.AsyncClient(
                verify=context,
                timeout=httpx.Timeout(None),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
                follow_redirects=False,
            )
            for _ in range(shards)
        ]
        self._turn = itertools.cycle(self._clients)

    def client(self) -> httpx.AsyncClient:
        """Return the next client in turn."""
        return next(self._turn)

    async def aclose(self) -> None:
        """Close every pooled connection."""
        for client in self._clients:
            await client.aclose()


def _snippet(data: bytes, secrets: Sequence[str]) -> str:
    text = data[:_SNIPPET].decode("utf-8", errors="replace")
    return redact(text, secrets) + ("…" if len(data) > _SNIPPET else "")


async def request_json(
    pool: ClientPool,
    method: str,
    url: httpx.URL,
    body: Any,
    *,
    headers: Mapping[str, str],
    secrets: Sequence[str],
) -> Any:
    """Send ``body`` as JSON and return the decoded JSON answer.

    Raises:
        HarnessError: a subclass naming the failure class; details never contain ``secrets``.
    """
    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
    request_headers = {"content-type": "application/json", **headers}
    try:
        response = await pool.client().request(
            method, url, content=payload, headers=request_headers
        )
    except httpx.TimeoutException as exc:
        raise TargetTimeout(redact(f"{type(exc).__name__}: {exc}", secrets)) from exc
    except (httpx.TransportError, OSError) as exc:
        # Refused, reset, or closed mid-answer: the agent was not (fully) reached.
        raise TargetConnectionError(redact(f"{type(exc).__name__}: {exc}", secrets)) from exc
    if response.status_code >= 400:
        raise TargetHTTPError(
            response.status_code,
            f"HTTP {response.status_code}: {_snippet(response.content, secrets)}",
            retry_after=parse_retry_after(response.headers.get("retry-after")),
        )
    try:
        return json.loads(response.content)
    except ValueError as exc:
        raise InvalidTargetResponse(
            f"answer is not JSON: {_snippet(response.content, secrets)}"
        ) from exc


def resolve_env_headers(
    headers_env: Mapping[str, str], env: Mapping[str, str], *, field: str
) -> dict[str, str]:
    """Header values read from the environment; a missing variable is a configuration error."""
    resolved: dict[str, str] = {}
    for header, variable in headers_env.items():
        value = env.get(variable)
        if not value:
            raise InputError(
                f"environment variable {variable} (for header '{header}') is not set", field=field
            )
        resolved[header] = value
    return resolved
