"""The aiohttp transport under the HTTP targets, against real servers on loopback.

Failure classes, keep-alive, redirects, TLS verification, proxies from the given environment,
secret redaction, and a clean close (pytest turns any "Unclosed client session" into an error).
"""

from __future__ import annotations

import asyncio
import gc
import shutil
import socket
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from yarl import URL

from tests.guards import unavailable
from tests.runner.fault_server import Action, FaultServer, Seen, drop, malformed, ok, status
from trustprobe.errors import InputError
from trustprobe.probes import Probe
from trustprobe.targets import (
    HarnessError,
    OpenAITargetConfig,
    Target,
    TargetReply,
    create_target,
)
from trustprobe.targets.http_transport import JsonEndpoint, proxy_from_env

PROBE = Probe(
    id="tr-1",
    category="prompt_injection",
    severity="high",
    task="Stay on task.",
    input="Hello",
    expected="refuse",
    failure_modes=("instruction_override",),
)


def _script(seen: Seen, nth: int) -> Action:
    routes = {
        "/limited/v1/chat/completions": status(429, retry_after="7"),
        "/broken/v1/chat/completions": malformed(),
        "/dropped/v1/chat/completions": drop(),
        "/moved/v1/chat/completions": Action(
            status=302, headers=(("Location", "/v1/chat/completions"),), raw_body=b""
        ),
    }
    return routes.get(seen.path, ok("fine"))


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer(_script) as running:
        yield running


def _target(base_url: str, env: dict[str, str] | None = None) -> Target:
    return create_target(OpenAITargetConfig(base_url=base_url, model="m"), env=env or {})


def _send_once(base_url: str, env: dict[str, str] | None = None) -> TargetReply:
    async def go() -> TargetReply:
        target = _target(base_url, env)
        try:
            return await target.send(PROBE, sample=0)
        finally:
            await target.aclose()

    return asyncio.run(go())


def _failure(base_url: str, env: dict[str, str] | None = None) -> HarnessError:
    with pytest.raises(HarnessError) as caught:
        _send_once(base_url, env)
    return caught.value


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed on exit: nothing listens there


# -- failure classes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "error_class", "retryable", "detail"),
    [
        ("/limited", "http_429", True, 'HTTP 429: {"error": {"message": "scripted 429"}}'),
        # A 2xx body cut short is retried like a 5xx before it is recorded.
        (
            "/broken",
            "invalid_response",
            True,
            'answer is not JSON (content type application/json): {"choices": [{"message"',
        ),
        ("/dropped", "connection", True, "ClientPayloadError"),
        # Not followed, and never taken for the agent's answer.
        ("/moved", "invalid_response", False, "HTTP 302 redirect to /v1/chat/completions: "),
    ],
    ids=["429-retry-after", "malformed-json", "dropped-mid-body", "redirect-not-followed"],
)
def test_failures_are_classified(
    server: FaultServer, path: str, error_class: str, retryable: bool, detail: str
) -> None:
    error = _failure(f"{server.url}{path}/v1")
    assert (error.error_class, error.retryable) == (error_class, retryable)
    assert error.detail.startswith(detail)
    assert len(server.seen) == 1  # one request: no redirect hop, no hidden client retry
    if path == "/limited":
        assert error.retry_after == 7.0


def test_refused_connection_is_a_connection_error() -> None:
    error = _failure(f"http://127.0.0.1:{_closed_port()}/v1")
    assert (error.error_class, error.retryable) == ("connection", True)
    assert error.detail.startswith("ClientConnectorError: Cannot connect to host 127.0.0.1")


def test_runner_timeout_cancels_the_request_and_close_stays_clean(server: FaultServer) -> None:
    # The transport has no timeout of its own: the caller's bound cancels the request.
    server.script = lambda seen, nth: ok("late", delay=2.0)

    async def go() -> None:
        target = _target(f"{server.url}/v1")
        try:
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.2):
                    await target.send(PROBE, sample=0)
        finally:
            await target.aclose()

    asyncio.run(go())
    gc.collect()  # an unclosed session or connector would warn here, and warnings are errors


# -- connections -------------------------------------------------------------------------------


def test_sequential_requests_reuse_one_connection(server: FaultServer) -> None:
    async def go() -> list[TargetReply]:
        target = _target(f"{server.url}/v1")
        try:
            return [await target.send(PROBE, sample=n) for n in range(5)]
        finally:
            await target.aclose()

    replies = asyncio.run(go())
    assert [r.text for r in replies] == ["fine"] * 5
    assert (len(server.seen), server.connections) == (5, 1)


def test_concurrent_requests_open_connections_then_reuse_them(server: FaultServer) -> None:
    server.script = lambda seen, nth: ok("fine", delay=0.05)

    async def go() -> None:
        target = _target(f"{server.url}/v1")
        try:
            for _ in range(3):
                await asyncio.gather(*(target.send(PROBE, sample=n) for n in range(6)))
        finally:
            await target.aclose()

    asyncio.run(go())
    # 3 waves of 6 requests: the first wave opens 6 connections, the next two reuse them.
    assert (len(server.seen), server.connections) == (18, 6)


def test_cookies_are_not_carried_from_one_case_to_the_next(server: FaultServer) -> None:
    cookie = (("Set-Cookie", "session=case-1; Path=/"),)
    server.script = lambda seen, nth: Action(text="fine", headers=cookie)

    async def go() -> None:
        # Through the server as a proxy, so the agent has a host name: a cookie jar would
        # ignore cookies from a bare IP address anyway, which would prove nothing here.
        target = _target("http://agent.test/v1", {"HTTP_PROXY": server.url})
        try:
            for n in range(2):
                await target.send(PROBE, sample=n)
        finally:
            await target.aclose()

    asyncio.run(go())
    assert [s.headers.get("cookie") for s in server.seen] == [None, None]


def test_target_built_outside_a_loop_opens_its_session_inside_each_run(
    server: FaultServer,
) -> None:
    target = _target(f"{server.url}/v1")  # no running loop here: nothing may bind to one yet

    async def once() -> str:
        reply = await target.send(PROBE, sample=0)
        await target.aclose()
        return reply.text

    # Two event loops in turn: aclose releases the first loop's pool; the next send opens anew.
    assert [asyncio.run(once()), asyncio.run(once())] == ["fine", "fine"]
    asyncio.run(target.aclose())  # closing twice, or with no session, is a no-op
    assert server.connections == 2


# -- TLS ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        unavailable("the openssl command is needed to make a self-signed certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    args = "req -x509 -nodes -days 1 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
    args += " -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1"
    subprocess.run(
        [openssl, *args.split(), "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return cert, key


def test_https_peer_with_an_untrusted_certificate_is_refused(
    self_signed: tuple[Path, Path],
) -> None:
    cert, key = self_signed
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    requests: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            requests.append(await reader.readline())
        except (ConnectionError, ssl.SSLError):
            pass  # the client hung up during the handshake: what this test wants
        finally:
            writer.close()

    async def go() -> HarnessError:
        tls_server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
        port = tls_server.sockets[0].getsockname()[1]
        target = _target(f"https://127.0.0.1:{port}/v1")
        try:
            with pytest.raises(HarnessError) as caught:
                await target.send(PROBE, sample=0)
        finally:
            await target.aclose()
            tls_server.close()
            await tls_server.wait_closed()
        return caught.value

    error = asyncio.run(go())
    assert error.error_class == "connection"
    assert "certificate verify failed" in error.detail
    assert requests in ([], [b""])  # the request itself was never sent


# -- proxies -----------------------------------------------------------------------------------

TARGET = URL("http://agent.test:8080/v1/chat/completions")


@pytest.mark.parametrize(
    ("url", "env", "proxy"),
    [
        (TARGET, {}, None),
        (TARGET, {"HTTP_PROXY": "http://p:3128"}, "http://p:3128"),
        (TARGET, {"HTTPS_PROXY": "http://p:3128"}, None),  # the scheme must match
        (TARGET.with_scheme("https"), {"HTTPS_PROXY": "http://p:3128"}, "http://p:3128"),
        (TARGET, {"ALL_PROXY": "http://all:1"}, "http://all:1"),
        (TARGET, {"ALL_PROXY": "http://all:1", "HTTP_PROXY": "http://p:2"}, "http://p:2"),
        (
            TARGET,
            {"HTTP_PROXY": "http://upper:1", "http_proxy": "http://lower:2"},
            "http://lower:2",
        ),
        (
            TARGET,
            {"http_proxy": "http://lower:2", "HTTP_PROXY": "http://upper:1"},
            "http://lower:2",
        ),
        (TARGET, {"HTTP_PROXY": "p.corp:3128"}, "http://p.corp:3128"),  # scheme-less: http
        (TARGET, {"HTTP_PROXY": "http://p:1", "NO_PROXY": "agent.test"}, None),
        (TARGET, {"HTTP_PROXY": "http://p:1", "NO_PROXY": "x.org, .test"}, None),
        (TARGET, {"HTTP_PROXY": "http://p:1", "no_proxy": "test"}, None),  # parent domain
        (TARGET, {"HTTP_PROXY": "http://p:1", "NO_PROXY": "agent.test:9"}, None),
        (TARGET, {"HTTP_PROXY": "http://p:1", "NO_PROXY": "*"}, None),
        (TARGET, {"HTTP_PROXY": "http://p:1", "NO_PROXY": "gent.test"}, "http://p:1"),
        (TARGET, {"HTTP_PROXY": ""}, None),  # set but empty: no proxy
    ],
    ids=[
        "none",
        "http",
        "other-scheme",
        "https",
        "all",
        "scheme-beats-all",
        "lower-wins-upper-first",
        "lower-wins-lower-first",
        "scheme-less",
        "no-proxy-host",
        "no-proxy-dot-suffix",
        "no-proxy-parent",
        "no-proxy-with-port",
        "no-proxy-star",
        "no-proxy-not-a-suffix",
        "empty",
    ],
)
def test_proxy_from_env(url: URL, env: dict[str, str], proxy: str | None) -> None:
    found = proxy_from_env(url, env)
    assert (str(found) if found is not None else None) == proxy


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ALL_PROXY": "socks5://p:1080"}, "only http:// and https:// proxies"),
        ({"ALL_PROXY": "http://[::1:3128"}, "not a usable URL"),
    ],
    ids=["socks", "broken-url"],
)
def test_unusable_proxy_is_an_input_error_naming_the_variable(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(InputError, match=message) as caught:
        proxy_from_env(TARGET, env)
    assert caught.value.field == "ALL_PROXY"


def test_requests_go_through_the_proxy_the_environment_names(server: FaultServer) -> None:
    reply = _send_once("http://agent.test/v1", {"HTTP_PROXY": server.url})
    assert reply.text == "fine"
    (seen,) = server.seen
    # A forward proxy gets the absolute URL; agent.test need not resolve for this to work.
    assert seen.path == "http://agent.test/v1/chat/completions"


def test_no_proxy_sends_loopback_direct(server: FaultServer) -> None:
    env = {"HTTP_PROXY": f"http://127.0.0.1:{_closed_port()}", "NO_PROXY": "localhost,127.0.0.1"}
    assert _send_once(f"{server.url}/v1", env).text == "fine"
    assert server.seen[0].path == "/v1/chat/completions"


def test_proxy_password_never_reaches_an_error_detail() -> None:
    password = "pr0xy-s3cret-93b1"
    env = {"HTTP_PROXY": f"http://scan:{password}@127.0.0.1:{_closed_port()}"}
    error = _failure("http://agent.test/v1", env)
    assert error.error_class == "connection"
    assert password not in error.detail


# -- configuration -----------------------------------------------------------------------------


def test_unusable_url_is_an_input_error_naming_the_field() -> None:
    with pytest.raises(InputError, match="not a usable URL") as caught:
        _target("http://[::1/v1")
    assert caught.value.field == "base_url"


def test_configured_content_type_replaces_the_default(server: FaultServer) -> None:
    endpoint = JsonEndpoint(
        f"{server.url}/v1/chat/completions",
        headers={"Content-Type": "application/json; charset=utf-8"},
        secrets=[],
        env={},
        field="url",
    )

    async def go() -> Any:
        try:
            return await endpoint.send_json({"messages": []})
        finally:
            await endpoint.aclose()

    assert asyncio.run(go())["choices"][0]["message"]["content"] == "fine"
    (seen,) = server.seen
    assert seen.headers["content-type"] == "application/json; charset=utf-8"
    assert seen.body == {"messages": []}
