"""Real servers in tests without port races.

A port picked by binding 0, closing and handing the number to a server is free only until
someone else binds it: with two suites (or xdist workers) on one machine, the server then fails
to start or, worse, the test talks to another suite's server. So threads serve on a socket that
is already listening (`uvicorn_thread`), subprocesses are started with `--port 0` and the test
reads the port the server announces (`announced_port`), and "nothing listens here" is a socket
bound but never listening (`refusing_url`).
"""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: "gno serving http://127.0.0.1:PORT/ …" and "gno service on http://127.0.0.1:PORT …"
_ANNOUNCED = re.compile(r"gno (?:serving|service on) http://[^\s/]*:(\d+)")


def listening_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY: see serving.listen
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


@contextlib.contextmanager
def uvicorn_thread(app: Any) -> Iterator[str]:
    """Serve `app` with uvicorn in a daemon thread on a socket it already owns; yield the base URL."""
    import uvicorn

    sock = listening_socket()
    port = int(sock.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="none"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    try:
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start on port {port}")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def announced_port(proc: subprocess.Popen[bytes], output: Callable[[], str], timeout: float = 120.0) -> int:
    """The port a `gno serve --port 0` / `gno service serve --port 0` process says it listens on."""
    deadline = time.monotonic() + timeout
    while True:
        found = _ANNOUNCED.search(output())
        if found:
            return int(found.group(1))
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening:\n{output()}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"server announced no port in {timeout:.0f}s:\n{output()}")
        time.sleep(0.05)


def file_reader(path: Path) -> Callable[[], str]:
    return lambda: path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


@contextlib.contextmanager
def refusing_url() -> Iterator[str]:
    """A loopback URL whose port is held (bound, never listening): connecting is always refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
