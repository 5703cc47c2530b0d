"""The resident owner answers CLI commands: a warm template process forks one worker per command.

Why a fork per command instead of threads in the owner: a command reads its working directory,
its environment (click, rich and the settings all read `os.environ`), its parent pid (the memory
session) and its terminal (isatty, width, colour) from process-wide state. A worker forked from a
warm template gets the caller's fds 0-2 (passed over the socket), `chdir`s to the caller's cwd and
takes the caller's environment wholesale, so two concurrent clients can never see each other's
state, stdin is read only if and when the command reads it (an idle open pipe never hangs
anything), and the output is the in-process output by construction: the worker runs the very
same click command (`gno.cli.main.main`), which builds the same request model through the
capability table and makes the same engine call. The request model is built here, in the owner,
because building it in the client would import pydantic there -- the start-up cost this removes.

The template is forked from the owner right after it took the data directory, before any of its
threads start (a fork of a multi-threaded process may inherit a held lock), and never holds a
connection to the index across a fork: it imports the CLI, the engine, the MCP server and every
result model, builds the pydantic validators, loads the configured embedding model
(`gno.embed.registry.keep_warm`) and the vector matrix (closing its connection before it forks;
`gno.daemon.warmup`), then listens. Each worker opens its own SQLite connection and takes the one
cross-process write lease like any CLI process.

The template dies with the owner (SIGTERM from it on shutdown, PR_SET_PDEATHSIG and a parent
check otherwise), and its idle workers with it; workers in flight finish their command. The
template closes its copies of the owner's fds (the resident lock, a server's port), so a
long-lived worker (`gno mcp`) never keeps the data directory owned.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import select
import signal
import socket
import sys
import threading
import time

from gno import __version__
from gno.config import Settings
from gno.daemon.resident import alive
from gno.daemon.warmup import preload, remove_scratch, share_index, warm_worker
from gno.fsio import umask_changed
from gno.owner_socket import PROTOCOL, Request, decode_request, short_address, socket_path

log = logging.getLogger("gno.daemon")
MAX_HEADER = 4 * 1024 * 1024
#: forked workers waiting for a command
SPARES = 3
#: a worker's second message to the template: its command finished (`_spare`)
DONE = 1 << 31
#: a spare's message to the template: its warm-up is over (the next one may start)
WARM = 1 << 30
#: a command taken this recently holds back the forking of more than one spare
BUSY_S = 2.0
#: spares beyond the first are forked (and warmed) once no command was taken or finished for this long
#: (a running command holds them back anyway; a sequential caller's next command comes within tens of
#: milliseconds): 0.4 left a burst of four commands with one warmed spare by the next burst
QUIET_S = 0.1


def start_template(settings: Settings) -> int | None:
    """Fork the warm template for `settings`' data directory; its pid (None: not supported here)."""
    if not hasattr(socket, "AF_UNIX") or not hasattr(os, "fork"):
        return None
    parent = os.getpid()
    for h in logging.getLogger("gno").handlers:
        h.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        _template(settings, parent)
    except BaseException:  # noqa: BLE001 - the template must never return into the owner's code
        log.exception("command socket stopped")
        code = 1
    finally:
        os._exit(code)


def stop_template(pid: int | None, data_root: str) -> None:
    if pid is None:
        return
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGTERM)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)
    with contextlib.suppress(OSError):
        os.unlink(socket_path(data_root))


def _set_parent_death_signal(signum: int) -> None:
    """Linux PR_SET_PDEATHSIG: receive `signum` when the parent dies (0: no longer)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signum))


def _close_inherited_fds() -> None:
    """Close the owner's fds (its resident lock, a server's listening socket) but the log's.

    Otherwise a long-lived worker (`gno mcp`) would keep the data directory owned, or the port
    bound, after the owner is gone. The owner's objects holding them stay referenced by its
    frames below this one and are never collected here (the template ends with `os._exit`)."""
    keep = {0, 1, 2}
    for h in logging.getLogger("gno").handlers:
        stream = getattr(h, "stream", None)
        with contextlib.suppress(AttributeError, OSError, ValueError):
            keep.add(stream.fileno())  # type: ignore[union-attr]
    folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    with contextlib.suppress(OSError):
        for fd in [int(n) for n in os.listdir(folder)]:
            if fd not in keep:
                with contextlib.suppress(OSError):
                    os.close(fd)


def _template(settings: Settings, parent: int) -> None:
    """Keep `SPARES` forked workers waiting for a caller, each warmed on the scratch index.

    A fork of this process (hundreds of MB mapped) costs tens of milliseconds on a busy machine;
    forked ahead, a command waits only for its own work. A spare is as fresh as a new fork: the
    template's state never changes after the warm-up. While commands come and go, a new spare is
    forked only when none is left (a burst of clients), and it does not warm up; the rest are forked
    and warmed once no command ran for `QUIET_S`, so a fork and a warm-up do not take a running
    command's CPU on a small machine, one after the other (a spare's warm-up takes a core for a
    few hundred milliseconds: one at a time leaves the other to the caller's commands). Then the
    cold spares are retired too: left waiting, a cold spare would answer the next caller at twice
    a warm one's cost."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the owner decides when to stop
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # workers are reaped by the kernel
    _set_parent_death_signal(signal.SIGTERM)
    _close_inherited_fds()
    scratch = preload(settings)
    listener = _listen(settings.data_root)
    if listener is None:
        return
    log.info("answering commands on %s", socket_path(settings.data_root))
    taken_r, taken_w = os.pipe()
    idle: dict[int, tuple[bool, int]] = {}  # waiting spare → (warmed, the write end of its retire pipe)
    busy: dict[int, float] = {}  # taken worker → when; a command running longer no longer holds spares back
    last = 0.0  # when a command was last taken or finished
    warming = 0  # the spare warming up now (0: none)
    try:
        while not stop.is_set() and os.getppid() == parent:
            now = time.monotonic()
            busy = {pid: t for pid, t in busy.items() if now - t < BUSY_S and alive(pid)}
            quiet = not busy and now - last >= QUIET_S
            if quiet:
                for pid in [pid for pid, (warm, _) in idle.items() if not warm]:
                    _retire(idle.pop(pid)[1])
            if quiet and len(idle) < SPARES:
                share_index(settings)  # the spares forked now start from the index as it is
            while len(idle) < (SPARES if quiet else 1) and not (quiet and warming in idle):
                retire_r, retire_w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    for fd in (taken_r, retire_w, *(w for _, w in idle.values())):
                        os.close(fd)
                    _spare(listener, taken_w, retire_r, scratch if quiet else None)  # never returns
                os.close(retire_r)
                idle[pid] = (quiet, retire_w)
                warming = pid if quiet and scratch is not None else warming  # it reports WARM when done
            ready, _, _ = select.select([taken_r], [], [], 1.0 if quiet else QUIET_S)
            if ready:
                data = os.read(taken_r, 4 * SPARES * 16)
                for i in range(0, len(data) - 3, 4):
                    word = int.from_bytes(data[i : i + 4], "big")
                    pid = word & ~(DONE | WARM)
                    if word & WARM:  # the next spare may warm up now
                        warming = 0 if pid == warming else warming
                        continue
                    last = time.monotonic()
                    if pid in idle:
                        os.close(idle.pop(pid)[1])
                    if word & DONE:
                        busy.pop(pid, None)
                    else:
                        busy[pid] = last
            for pid in [pid for pid in idle if not alive(pid)]:  # a spare killed from outside is replaced
                os.close(idle.pop(pid)[1])
    except InterruptedError:
        pass
    finally:
        for pid in idle:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(socket_path(settings.data_root))
        remove_scratch(settings.data_root)


def _retire(retire_w: int) -> None:
    """Tell a waiting spare to exit (a spare that took a caller meanwhile runs its command anyway)."""
    with contextlib.suppress(OSError):  # it is gone already
        os.write(retire_w, b"R")
    os.close(retire_w)


def _spare(listener: socket.socket, taken: int, retire: int, scratch: dict[str, str] | None) -> None:
    """A forked worker: warm up, wait for one command (dying with the template meanwhile), run it."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _set_parent_death_signal(signal.SIGTERM)
        if scratch is not None:
            warm_worker(scratch, lambda: bool(select.select([listener], [], [], 0)[0]))
            os.write(taken, (os.getpid() | WARM).to_bytes(4, "big"))
        conn = _accept(listener, retire)
        if conn is None:
            code = 0
            return
        _set_parent_death_signal(0)  # taken: the command finishes even if the owner stops meanwhile
        os.write(taken, os.getpid().to_bytes(4, "big"))
        listener.close()
        os.close(retire)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        request = _receive(conn)
        code = 0 if request is None else _run(conn, *request)
        with contextlib.suppress(OSError):
            os.write(taken, (os.getpid() | DONE).to_bytes(4, "big"))
    except BaseException:  # noqa: BLE001 - report what happened to the log, never to the owner's code
        log.exception("command worker failed")
    finally:
        os._exit(code)


def _accept(listener: socket.socket, retire: int) -> socket.socket | None:
    """The next caller's connection, or None when the template retires this spare.

    The listener is non-blocking: every waiting spare wakes for a caller and one of them takes it."""
    while True:
        ready, _, _ = select.select([listener.fileno(), retire], [], [])
        if retire in ready:
            return None
        try:
            conn, _ = listener.accept()
        except (BlockingIOError, InterruptedError):  # another spare took it
            continue
        return conn


def _listen(data_root: str) -> socket.socket | None:
    path = socket_path(data_root)
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    addr, dir_fd = short_address(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(addr)
    except OSError as exc:
        log.warning("no command socket (%s): CLI commands run in their own process", exc)
        sock.close()
        return None
    finally:
        os.umask(old)
        if dir_fd is not None:
            os.close(dir_fd)
    os.chmod(path, 0o600)
    sock.listen(64)
    sock.setblocking(False)  # spares wait in select and race for each caller (`_accept`)
    return sock


# -- one command --------------------------------------------------------------------------------
def _receive(conn: socket.socket) -> tuple[Request, list[int]] | None:
    conn.settimeout(10.0)
    if hasattr(socket, "SO_PEERCRED"):
        import struct

        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", creds)
        if uid != os.getuid():
            return None
    data, fds, _, _ = socket.recv_fds(conn, 65536, 3)
    if len(fds) != 3 or len(data) < 4:
        _refuse(conn, fds, "no fds")
        return None
    size = int.from_bytes(data[:4], "big")
    body = bytearray(data[4:])
    while len(body) < size <= MAX_HEADER:
        chunk = conn.recv(min(65536, size - len(body)))
        if not chunk:
            break
        body += chunk
    try:
        request = decode_request(bytes(body)) if len(body) == size else None
    except ValueError:
        request = None
    if request is None or request.protocol != PROTOCOL or request.version != __version__:
        _refuse(conn, fds, "another gno version")
        return None
    return request, fds


def _refuse(conn: socket.socket, fds: list[int], reason: str) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(OSError):
        conn.sendall(b"R" + reason.encode() + b"\n")


def _run(conn: socket.socket, request: Request, fds: list[int]) -> int:
    """Become the caller's process (fds, cwd, environment, umask, parent pid) and run `gno ARGV`."""
    try:
        os.chdir(request.cwd)
    except OSError:
        _refuse(conn, fds, "cwd")
        return 0
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request.env)
    os.umask(request.umask)  # files a write creates get the caller's permissions
    umask_changed()
    if hasattr(time, "tzset"):
        time.tzset()  # local times in the caller's $TZ
    from gno import settings as gno_settings

    gno_settings.set_caller_ppid(request.ppid)
    caller_stdio()
    _caller_logging()
    argv = request.argv
    sys.argv = ["gno", *argv]
    conn.sendall(f"S{os.getpid()}\n".encode())
    if conn.recv(1) != b"G":  # the caller gave up waiting and runs the command itself: never run it twice
        return 0
    conn.settimeout(None)
    threading.Thread(target=_watch_caller, args=(conn,), name="gno-caller", daemon=True).start()
    code = exit_code(argv)
    with contextlib.suppress(OSError):
        conn.sendall(f"X{code}\n".encode())
    return code


def exit_code(argv: list[str]) -> int:
    """Run the click CLI as the console script does and return what the process would exit with."""
    from gno.cli.main import main

    code: int
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught exception
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120  # the interpreter's exit status when flushing stdout fails at exit
    return code


def caller_stdio() -> None:
    """Fresh stdin/stdout/stderr on fds 0-2, configured as the interpreter configures them at start.

    `sys.__stdout__` and the others keep the template's objects (on the same fd numbers), so
    they are never collected, which would close the caller's fds."""
    encoding = os.environ.get("PYTHONIOENCODING", "").partition(":")[0] or sys.getfilesystemencoding()
    out_tty = os.isatty(1)
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding=encoding, newline="\n")
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding=encoding, newline="\n", line_buffering=out_tty
    )
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        encoding=encoding,
        errors="backslashreplace",
        newline="\n",
        line_buffering=True,
    )


def _caller_logging() -> None:
    """Logging as a fresh process has it: no handler (warnings reach stderr), nothing to the owner's log."""
    root = logging.getLogger("gno")
    for h in list(root.handlers):
        root.removeHandler(h)
    root.setLevel(logging.NOTSET)
    root.propagate = True


def _watch_caller(conn: socket.socket) -> None:
    """`I` from the caller is its Ctrl-C; the caller gone (killed) ends this command as it would have."""
    main = threading.main_thread().ident
    while True:
        try:
            data = conn.recv(64)
        except OSError:
            data = b""
        if not data:
            os.kill(os.getpid(), signal.SIGTERM)
            return
        if b"I" in data and main is not None:
            signal.pthread_kill(main, signal.SIGINT)
