"""JSON over HTTP with aiohttp, with every failure turned into a classified harness error."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import aiohttp
from multidict import CIMultiDict
from yarl import URL

from trustprobe.errors import InputError
from trustprobe.targets.errors import (
    InvalidTargetResponse,
    MalformedTargetBody,
    TargetConnectionError,
    TargetHTTPError,
    TargetTimeout,
    parse_retry_after,
    read_bounded,
    redact,
)
from trustprobe.targets.models import MAX_RESPONSE_BYTES

_SNIPPET = 200
_PROXY_SCHEMES = ("http", "https")


def _snippet(data: bytes, secrets: Sequence[str]) -> str:
    text = data[:_SNIPPET].decode("utf-8", errors="replace")
    return redact(text, secrets) + ("…" if len(data) > _SNIPPET else "")


def _bypasses_proxy(host: str, no_proxy: str) -> bool:
    """Whether a ``NO_PROXY`` value lists ``host``: ``*``, the host itself, or a parent domain."""
    host = host.lower().rstrip(".")
    for raw in no_proxy.lower().split(","):
        entry = raw.strip().lstrip(".")  # ".corp.example" and "corp.example" mean the same
        name, colon, port = entry.rpartition(":")
        if colon and port.isdigit() and ":" not in name:
            entry = name  # "host:8080": curl matches the port too; we bypass the whole host
        if entry == "*" or (entry and (host == entry or host.endswith("." + entry))):
            return True
    return False


def proxy_from_env(url: URL, env: Mapping[str, str]) -> URL | None:
    """The proxy ``env`` names for ``url`` (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``).

    The usual conventions: lower-case names win over upper-case ones, and ``NO_PROXY`` (host
    names, domain suffixes or ``*``) sends matching hosts direct. Read from the mapping given,
    not from ``os.environ``, so a caller decides what environment a scan sees.

    Raises:
        InputError: the proxy is not an ``http://`` or ``https://`` URL (aiohttp has no SOCKS).
    """
    proxies: dict[str, tuple[str, str]] = {}
    for name, value in env.items():
        if value and name.lower().endswith("_proxy"):
            scheme = name[: -len("_proxy")].lower()
            if name.islower() or scheme not in proxies:
                proxies[scheme] = (name, value)
    chosen = proxies.get(url.scheme) or proxies.get("all")
    if chosen is None:
        return None
    no_proxy = proxies.get("no")
    if no_proxy is not None and _bypasses_proxy(url.host or "", no_proxy[1]):
        return None
    name, value = chosen
    # "proxy.corp:3128" is a common way to write it; curl and urllib read it as http://.
    try:
        proxy = URL(value if "://" in value else f"http://{value}")
    except ValueError as exc:
        raise InputError(
            f"environment variable {name}: not a usable URL: {exc}", field=name
        ) from exc
    if proxy.scheme not in _PROXY_SCHEMES or not proxy.host:
        raise InputError(
            f"environment variable {name}: only http:// and https:// proxies are supported",
            field=name,
        )
    return proxy


def _not_json(status: int, content: bytes, content_type: str, secrets: Sequence[str]) -> str:
    """Why an answer could not be read as JSON: an empty body, or its type and first bytes."""
    if not content.strip():
        return f"empty answer: HTTP {status} with no body (content type {content_type})"
    return f"answer is not JSON (content type {content_type}): {_snippet(content, secrets)}"


class JsonEndpoint:
    """One JSON endpoint: a fixed URL, method and headers, over a keep-alive connection pool.

    The aiohttp session opens on the first request, inside the running event loop, and has no
    timeout of its own: the runner bounds each attempt and cancels it. Redirects are not
    followed; cookies are not kept, so no case can see another's session; ``https`` peers are
    verified against the default CA bundle (``ssl.create_default_context()``).
    """

    def __init__(
        self,
        url: str,
        *,
        method: str = "POST",
        headers: Mapping[str, str],
        secrets: Sequence[str],
        env: Mapping[str, str],
        field: str,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        """Check the URL and resolve the proxy now, so a bad one fails before anything is sent.

        ``secrets`` are the values to redact from error details; ``field`` is the configuration
        field the URL came from, named in errors about it; ``max_bytes`` bounds an answer's body.
        """
        self.max_bytes = max_bytes
        try:
            self.url = URL(url)
        except ValueError as exc:
            raise InputError(f"not a usable URL: {exc}", field=field) from exc
        if not self.url.host:
            raise InputError("the URL has no host", field=field)
        self.method = method
        # Case-insensitive, so a configured Content-Type replaces ours instead of doubling it.
        self._headers = CIMultiDict({"content-type": "application/json"})
        self._headers.update(headers)
        self._proxy = proxy_from_env(self.url, env)
        proxy_password = self._proxy.password if self._proxy is not None else None
        self._secrets = [*secrets, *([proxy_password] if proxy_password else [])]
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        # Both objects bind to the running loop when built, hence built on first use, not in
        # __init__ (a target may be configured before the loop starts).
        connector = aiohttp.TCPConnector(
            limit=0,  # the runner's concurrency is the bound; a second one would only queue
            ssl=True,  # verify: aiohttp's shared ssl.create_default_context(), built once
        )
        return aiohttp.ClientSession(
            connector=connector,
            headers=self._headers,
            timeout=aiohttp.ClientTimeout(),  # all None: aiohttp's default is a 300 s total
            cookie_jar=aiohttp.DummyCookieJar(),
            trust_env=False,  # proxies come from the env mapping above; no per-request netrc
        )

    async def send_json(self, body: Any) -> Any:
        """Send ``body`` as JSON and return the decoded JSON answer.

        Raises:
            HarnessError: a subclass naming the failure class; details never contain secrets.
        """
        if self._session is None:
            self._session = self._open()
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        secrets = self._secrets
        try:
            async with self._session.request(
                self.method, self.url, data=payload, allow_redirects=False, proxy=self._proxy
            ) as response:
                # Past the bound (declared, or as it streams in) nothing more is read, and
                # the response left unread closes its connection.
                content = await read_bounded(
                    response.content,
                    self.max_bytes,
                    f"HTTP {response.status}: answer",
                    "not read further",
                    declared=response.content_length,
                )
                status = response.status
                retry_after = response.headers.get("retry-after")
                location = response.headers.get("location")
                content_type = response.headers.get("content-type", "none given")
        except aiohttp.ServerTimeoutError as exc:  # also its connect/socket subclasses
            raise TargetTimeout(redact(f"{type(exc).__name__}: {exc}", secrets)) from exc
        except (aiohttp.ClientError, OSError) as exc:
            # Refused, reset, closed mid-answer or not HTTP: the agent was not (fully) reached.
            raise TargetConnectionError(redact(f"{type(exc).__name__}: {exc}", secrets)) from exc
        if 300 <= status < 400:
            raise InvalidTargetResponse(
                f"HTTP {status} redirect to {redact(location or '(no Location)', secrets)}: "
                "redirects are not followed; point the URL at the final address"
            )
        if status >= 400:
            raise TargetHTTPError(
                status,
                f"HTTP {status}: {_snippet(content, secrets)}",
                retry_after=parse_retry_after(retry_after),
            )
        try:
            # Bytes that are not UTF-8 are kept as lone surrogates, which the tool loop replaces
            # with U+FFFD and reports: the rest of the answer is still the agent's.
            return json.loads(content.decode("utf-8-sig", errors="surrogateescape"))
        except RecursionError as exc:
            raise InvalidTargetResponse("answer is JSON nested too deeply to read") from exc
        except ValueError as exc:
            # A 2xx cut short is retried (a 1xx never reaches here).
            raise MalformedTargetBody(_not_json(status, content, content_type, secrets)) from exc

    async def aclose(self) -> None:
        """Close every pooled connection; a later request opens a new pool."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()


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
