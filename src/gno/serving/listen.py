"""Binding a server's listening socket before anything is announced.

`uvicorn.run(host, port)` binds inside its event loop: a busy port surfaces there as a logged
traceback after the caller already said "serving". Binding here first turns every bind failure
into one `GnoError` with a code from the table (a busy port is `ADDRESS_IN_USE`, exit 4), and
lets `--port 0` pick a free port whose number is then announced (so nothing races for a port
chosen in advance).
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from gno.errors import ErrorCode, ValidationError, make_error


def bind_listener(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port), or a GnoError naming the fix."""
    if not 0 <= port <= 65535:
        raise ValidationError(f"invalid port {port}: use 1-65535 (or 0 for any free port)", details={"port": port})
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ValidationError(
            f"cannot bind {host}: {exc.strerror or exc}; use an IP address or a name this machine resolves",
            details={"host": host},
        ) from exc
    family, socktype, proto, _, addr = infos[0]
    # the protocol number matters: asyncio turns Nagle off (TCP_NODELAY) only on connections whose
    # socket says IPPROTO_TCP, and an accepted connection inherits it from this socket. With proto 0
    # every response paid a delayed-ACK stall (about 40 ms a request on Linux loopback).
    sock = socket.socket(family, socktype, proto or socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: TIME_WAIT is no conflict
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(addr)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise _bind_error(host, port, exc) from exc
    sock.set_inheritable(True)
    return sock


def _bind_error(host: str, port: int, exc: OSError) -> Exception:
    where = f"{host}:{port}"
    details: dict[str, Any] = {"host": host, "port": port, "errno": exc.errno}
    if exc.errno == errno.EADDRINUSE:
        return make_error(
            ErrorCode.ADDRESS_IN_USE,
            f"{where} is already in use (another gno serve?): stop that server or pick another --port",
            details,
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return make_error(
            ErrorCode.VALIDATION, f"no permission to bind {where}: pick a port above 1023 (e.g. --port 3000)", details
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return make_error(
            ErrorCode.VALIDATION,
            f"cannot bind {where}: {host} is not an address of this machine; use 127.0.0.1 or one of its addresses",
            details,
        )
    return make_error(ErrorCode.RUNTIME, f"cannot bind {where}: {exc.strerror or exc}", details)


def bound_port(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])


#: seconds an idle keep-alive connection stays open: longer than clients keep theirs (httpx, which
#: the MCP SDK and gno's SDK use, drops an idle connection after 5 s), so it is always the client
#: that closes it. At uvicorn's own 5 s both ends expire it together, and a request sent on it at
#: that moment dies with a ReadError (seen with 16 MCP clients, one idle while the others connect).
KEEP_ALIVE_S = 65


def serve_on(app: Any, sock: socket.socket) -> None:
    """Run the ASGI app with uvicorn on an already-listening socket until interrupted."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_keep_alive=KEEP_ALIVE_S))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
