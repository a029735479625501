"""The service on a real loopback socket: uvicorn in a thread, stopped when the test ends."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime

import uvicorn

from trustprobe.service import ServiceSettings, create_app
from trustprobe.store import TrustStore


@contextmanager
def serve(
    store: TrustStore,
    settings: ServiceSettings | None = None,
    *,
    clock: Callable[[], datetime] | None = None,
) -> Iterator[str]:
    """Run the app on a free port of 127.0.0.1 and yield its base URL."""
    app = (
        create_app(settings or ServiceSettings(), store=store)
        if clock is None
        else create_app(settings or ServiceSettings(), store=store, clock=clock)
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Without it, keep-alive requests on a socket handed to uvicorn stall ~40 ms each
    # (Nagle's algorithm meeting delayed ACKs); accepted connections inherit the option.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the service did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
