"""The resident owner's command socket: where it lives and what travels over it.

A `gno` process that finds a resident owner (`gno daemon`, `gno serve`) of its data directory
hands it the whole invocation instead of importing and loading everything itself: one message
with the gno version, the working directory, the parent pid, the umask, the argv and the
environment, carrying the caller's own stdin, stdout and stderr as file descriptors (SCM_RIGHTS). The owner
runs the command in a process forked from a warm template whose fds 0-2 are the caller's, so
bytes, terminal decisions (isatty, width, colour) and stdin reads are the caller's by
construction, and the command line answers from there exactly as it would in-process.

The socket is `<data>/run/gno.sock`: a 0700 directory holding a 0600 socket, and the owner
also checks the peer's uid. The request is a 4-byte big-endian length and NUL-separated fields
(`encode_request`; argv, paths and the environment never contain NUL); the owner answers in
ASCII lines, `S<pid>` (ready) or `R<reason>` (refused: run in-process); the caller confirms
with `G` (go: from then on only the owner runs it, so a caller that gave up waiting never runs a
command twice), the owner ends with `X<exit code>`; the caller may send `I` (its Ctrl-C).

Kept free of everything but `os` (and `gno.tuples`): the client imports it before deciding
anything, and must stay cheaper than a bare interpreter start.
"""

from __future__ import annotations

import os

from gno.tuples import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket
    from collections.abc import Mapping, Sequence

PROTOCOL = 1
SOCKET_DIR = "run"
SOCKET_NAME = "gno.sock"
#: a Unix socket path longer than this (sun_path is 108 bytes on Linux) is reached through /proc
MAX_SUN_PATH = 100


def socket_path(data_root: str) -> str:
    return os.path.join(data_root, SOCKET_DIR, SOCKET_NAME)


def short_address(path: str) -> tuple[str, int | None]:
    """An address `bind`/`connect` accept for `path`, and the directory fd to close afterwards.

    A long data directory (a test's temp dir) would overflow `sun_path`; Linux reaches the same
    socket through `/proc/self/fd/<dir fd>/<name>`."""
    if len(path.encode()) <= MAX_SUN_PATH or not os.path.isdir("/proc/self/fd"):
        return path, None
    fd = os.open(os.path.dirname(path), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    return f"/proc/self/fd/{fd}/{os.path.basename(path)}", fd


def connect(path: str, timeout: float) -> socket:
    """A stream connected to the socket at `path`; OSError when nobody listens there."""
    import _socket

    addr, dir_fd = short_address(path)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(addr)
    except OSError:
        sock.close()
        raise
    finally:
        if dir_fd is not None:
            os.close(dir_fd)
    return sock


def encode_request(
    version: str, cwd: str, ppid: int, umask: int, argv: Sequence[str], env: Mapping[str, str]
) -> bytes:
    """One request: protocol, version, cwd, ppid, umask, argc, the argv, then `KEY=VALUE` per variable."""
    head = [str(PROTOCOL), version, cwd, str(ppid), str(umask), str(len(argv))]
    fields = [*head, *argv, *(f"{k}={v}" for k, v in env.items())]
    body = b"\0".join(os.fsencode(f) for f in fields)
    return len(body).to_bytes(4, "big") + body


class Request(NamedTuple):
    protocol: int
    version: str
    cwd: str
    ppid: int
    umask: int
    argv: list[str]
    env: dict[str, str]


def decode_request(body: bytes) -> Request:
    """The fields of `encode_request` (without its length prefix); ValueError when malformed."""
    fields = [os.fsdecode(f) for f in body.split(b"\0")]
    if len(fields) < 6:
        raise ValueError("short request")
    argc = int(fields[5])
    argv, env = fields[6 : 6 + argc], fields[6 + argc :]
    if len(argv) != argc:
        raise ValueError("short argv")
    pairs = dict(item.partition("=")[::2] for item in env if item)
    return Request(int(fields[0]), fields[1], fields[2], int(fields[3]), int(fields[4]), argv, pairs)
