"""Resident owners (`gno daemon`, `gno serve`): one per data directory, keeping the index current.

`resident` holds the ownership (flock + pid file, `--status`, `--stop`, `--detach`), `routing`
turns file-system events into paths to sync, `runtime` runs the watcher, the reconciliation passes
and background embedding, `command_server` answers CLI commands from a warm process.
`run_foreground` is what both commands call once they own the data directory: log to the file,
run until SIGTERM/SIGINT, release everything on the way out.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

from gno.config import Settings
from gno.daemon.command_server import start_template, stop_template
from gno.daemon.resident import (
    Kind,
    ResidentOwner,
    ResidentPaths,
    ResidentStatus,
    current_owner,
    resident_paths,
    stop_owner,
    wait_for_owner,
)
from gno.daemon.runtime import ResidentRuntime, RuntimeOptions
from gno.errors import ErrorCode, make_error

__all__ = [
    "ResidentRuntime",
    "ResidentStatus",
    "RuntimeOptions",
    "current_owner",
    "detach",
    "resident_paths",
    "run_foreground",
    "stop_owner",
]


def _log_to(path: Path) -> logging.Handler:
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("gno")
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    root.propagate = False  # the file is the log; a console handler set up by a library would double it
    return handler


def run_foreground(
    settings: Settings,
    kind: Kind,
    paths: ResidentPaths,
    options: RuntimeOptions,
    *,
    watch: bool = True,
    serve: Callable[[], None] | None = None,
    url: str | None = None,
    commands: bool = True,
) -> None:
    """Own the data directory and keep the index current until asked to stop.

    With `commands`, CLI commands for this data directory are answered here (`command_server`).

    With `serve` (the HTTP server's blocking run), the server runs in this thread and the runtime
    beside it; without, this thread waits for SIGTERM/SIGINT. `ALREADY_RUNNING` when another
    resident owner holds the directory.
    """
    with ResidentOwner(settings, kind, paths, url=url):
        handler = _log_to(paths.log_file)
        log = logging.getLogger("gno.daemon")
        template = start_template(settings) if commands else None  # before any thread starts
        runtime = ResidentRuntime(settings, options) if watch else None
        log.info("%s started (pid file %s, index %s)", kind, paths.pid_file, settings.index_name)
        watching = "watching the collections" if watch else "not watching"
        print(f"gno {kind}: index {settings.index_name!r}, {watching}, log {paths.log_file}", file=sys.stderr)
        try:
            if runtime is not None:
                runtime.start()
            if serve is not None:
                serve()
            else:
                assert runtime is not None

                def on_signal(signum: int, _frame: FrameType | None) -> None:
                    log.info("signal %d: stopping", signum)
                    runtime.stop()

                signal.signal(signal.SIGTERM, on_signal)
                signal.signal(signal.SIGINT, on_signal)
                while not runtime.stop_event.wait(1.0):
                    pass
        finally:
            if runtime is not None:
                runtime.stop()
                runtime.join(10.0)
            stop_template(template, settings.data_root)
            log.info("%s stopped", kind)
            logging.getLogger("gno").removeHandler(handler)
            handler.close()


def detach(settings: Settings, paths: ResidentPaths, argv: Sequence[str]) -> ResidentStatus:
    """Start `gno <argv>` in a new session, output to the log file; return once it owns the data dir."""
    owner = current_owner(settings)
    if owner.running:
        raise make_error(
            ErrorCode.ALREADY_RUNNING,
            f"{owner.kind} (pid {owner.pid}) already owns {settings.data_dir}; stop it with `gno daemon --stop`",
            {"pid": owner.pid, "kind": owner.kind},
        )
    paths.log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(paths.log_file, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gno", *argv],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=settings.env,
        )
    return wait_for_owner(settings, proc, paths)
