"""The service's listening socket, bound before anything claims the service is up."""

from __future__ import annotations

import socket

from trustprobe.errors import BindError


def listening_socket(host: str, port: int) -> socket.socket:
    """Bind and listen on ``host:port`` (port 0: the kernel picks one), or raise BindError.

    Uvicorn binds inside its run loop, after it has logged the startup as complete, so a taken
    port would be reported last. Binding here first, and handing uvicorn the socket, makes the
    bind error the first and only thing a failed start says.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise BindError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock = socket.socket(family, kind, proto)
    try:
        # As uvicorn does: a restart may reuse a port whose old connections are in TIME_WAIT.
        # It never lets two processes listen on one port on Linux, so a taken port still fails.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it: without, keep-alive responses on a socket handed to
        # uvicorn wait ~40 ms for delayed ACKs (Nagle's algorithm).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise BindError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.set_inheritable(True)
    return sock
