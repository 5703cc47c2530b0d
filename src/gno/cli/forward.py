"""The client side of the resident owner's command socket: hand the invocation over, or decline.

`run_on_owner` connects to `<data>/run/gno.sock` (`gno.owner_socket`), sends the argv, cwd,
environment, parent pid and gno version with this process's fds 0-2 attached, and waits for the
exit code of the command, which the owner runs with exactly those fds. Identity stays the
caller's: the session default (`ppid:<pid>`), `$GNO_MEMORY_CALLER`, `$GNO_INDEX`, the config
location and every other environment-derived default are computed in the owner's worker from
what this process sent, never from the owner's own environment.

Anything that goes wrong before the owner says it started -- no socket, nobody listening (a
stale socket), an owner of another gno version, a closed fd 0-2, a refused or broken handshake --
returns None and the caller runs the command in-process, silently. After the start, the owner
writes straight to our stdout/stderr; this process only relays Ctrl-C (`I`) and exits with the
code it receives. Only the interpreter's built-in `_socket` and `array` are imported here (the
`socket` module alone costs a third of a bare start-up): with an owner answering, no click,
pydantic or numpy is ever loaded by the CLI process.
"""

from __future__ import annotations

import os
import sys

from gno.owner_socket import connect, encode_request, socket_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket as Socket
    from collections.abc import Sequence

#: commands that manage the resident owner itself always run in the caller's process
LOCAL_COMMANDS = frozenset({"daemon", "serve"})
#: an owner that has not started the command by then (wedged, or overloaded): run it here instead
START_TIMEOUT_S = 30.0
LOST = "error [RUNTIME]: the resident owner's worker ended before reporting an exit status; see its log\n"


def _line(sock: Socket, buf: bytearray) -> bytes | None:
    """The next newline-terminated reply, or None at end of stream."""
    while b"\n" not in buf:
        chunk = sock.recv(256)
        if not chunk:
            return None
        buf += chunk
    line, _, rest = bytes(buf).partition(b"\n")
    buf[:] = rest
    return line


def run_on_owner(args: Sequence[str], data_root: str, version: str) -> int | None:
    """The exit code of `gno ARGS` as the resident owner ran it, or None: run it here."""
    from _socket import SCM_RIGHTS, SOL_SOCKET

    path = socket_path(data_root)
    if not os.path.exists(path):
        return None
    try:
        sock = connect(path, START_TIMEOUT_S)
    except OSError:  # nobody listens: a stale socket
        return None
    try:
        from array import array

        umask = os.umask(0o22)
        os.umask(umask)
        message = encode_request(version, os.getcwd(), os.getppid(), umask, args, os.environ)
        fds = array("i", [0, 1, 2])
        sent = sock.sendmsg([message], [(SOL_SOCKET, SCM_RIGHTS, fds)])
        if sent < len(message):
            sock.sendall(message[sent:])
        buf = bytearray()
        started = _line(sock, buf)
    except OSError:  # a closed fd 0-2, a cwd that is gone, an owner that does not answer in time
        sock.close()
        return None
    if started is None or not started.startswith(b"S"):
        sock.close()  # refused (another version) or broken before any output: in-process
        return None
    try:
        sock.sendall(b"G")  # from here on the owner runs it, and only the owner
    except OSError:
        sock.close()
        return None
    sock.settimeout(None)  # the command itself may take as long as it takes
    return _wait(sock, buf)


def _wait(sock: Socket, buf: bytearray) -> int:
    """Relay Ctrl-C to the worker until it reports its exit code."""
    import signal

    def interrupt(_signum: int, _frame: object) -> None:
        try:
            sock.sendall(b"I")
        except OSError:
            pass

    signal.signal(signal.SIGINT, interrupt)
    while True:
        try:
            line = _line(sock, buf)
        except InterruptedError:
            continue
        except OSError:
            line = None
        if line is None:
            sys.stderr.write(LOST)
            return 2
        if line.startswith(b"X"):
            return int(line[1:])
