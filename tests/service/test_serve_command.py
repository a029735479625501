"""``trustprobe serve`` as an operator runs it, on a real port on 127.0.0.1."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cli.in_process import Cli
from trustprobe.errors import ExitCode
from trustprobe.store import open_store


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    open_store(url, upgrade=True).close()
    return url


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another process already listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def _serve(store_url: str, port: int) -> subprocess.Popen[str]:
    # A real process: serve runs until it is stopped by a signal.
    return subprocess.Popen(
        [sys.executable, "-m", "trustprobe", "serve", "--port", str(port)],
        env={"TRUSTPROBE_DATABASE_URL": store_url, "COLUMNS": "200", "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_taken_port_is_reported_first_with_its_own_exit_code(
    cli: Cli, store_url: str, taken_port: int
) -> None:
    done = cli("serve", "--port", str(taken_port), env={"TRUSTPROBE_DATABASE_URL": store_url})
    assert done.returncode == ExitCode.BIND_FAILED == 5
    output = done.stdout + done.stderr
    assert f"cannot listen on 127.0.0.1:{taken_port}" in output
    assert "address already in use" in output.lower()
    # Nothing claims the service is up before (or after) the failure.
    for claim in ("serving", "startup complete", "Uvicorn running", "Started server"):
        assert claim not in output, output


def test_serve_binds_before_it_says_so_and_answers_healthz(store_url: str) -> None:
    process = _serve(store_url, 0)  # port 0: the kernel picks one, and serve names it
    try:
        line = process.stderr.readline() if process.stderr else ""
        found = re.search(r"serving .* on http://127\.0\.0\.1:(\d+)", line)
        assert found, line
        url = f"http://127.0.0.1:{found.group(1)}"
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(f"{url}/healthz", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "serve never answered"
                time.sleep(0.1)
        assert (response.status_code, response.json()) == (200, {"status": "alive"})
        assert httpx.get(f"{url}/readyz", timeout=5).json()["status"] == "ready"
    finally:
        process.terminate()
        process.communicate(timeout=30)
