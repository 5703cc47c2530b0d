"""Resident ownership of a data directory: one `gno daemon` or `gno serve` at a time.

A resident owner watches the collections and writes the index in the background, so two of them
on one data directory would only fight over the write lease and double every sync. Ownership is
an exclusive flock on `<data>/resident.lock`, held for the owner's lifetime (the kernel drops it
if the process dies, so a crash never leaves a stale owner), plus a JSON pid file
(`<data>/daemon.pid` or `<data>/serve.pid`) that tells `--status` and `--stop` who owns it and
where it logs. A second owner is refused with `ALREADY_RUNNING`, naming the pid and the fix.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from datetime import UTC, datetime

from filelock import FileLock, Timeout

from gno.config import Settings
from gno.errors import ErrorCode, make_error
from gno.resident_state import KINDS as KINDS
from gno.resident_state import Kind as Kind
from gno.resident_state import ResidentPaths as ResidentPaths
from gno.resident_state import ResidentStatus as ResidentStatus
from gno.resident_state import alive as alive
from gno.resident_state import current_owner as current_owner
from gno.resident_state import lock_held, read_pid_file
from gno.resident_state import resident_paths as resident_paths
from gno.version import __version__


class ResidentOwner:
    """Holds the data directory's resident lock and pid file for as long as it is open."""

    def __init__(self, settings: Settings, kind: Kind, paths: ResidentPaths, url: str | None = None) -> None:
        self.settings = settings
        self.kind = kind
        self.paths = paths
        self.url = url
        self._lock = FileLock(str(paths.lock), is_singleton=False)

    def __enter__(self) -> ResidentOwner:
        self.paths.lock.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire(timeout=0)
        except Timeout as exc:
            owner = current_owner(self.settings)
            who = f"{owner.kind} (pid {owner.pid})" if owner.running else "another gno process"
            raise make_error(
                ErrorCode.ALREADY_RUNNING,
                f"{who} already owns the data directory {self.settings.data_dir}; "
                f"stop it with `gno {owner.kind or 'daemon'} --stop` or use its index",
                {"dataDir": str(self.settings.data_dir), "pid": owner.pid, "kind": owner.kind},
            ) from exc
        info = {
            "pid": os.getpid(),
            "kind": self.kind,
            "index": self.settings.index_name,
            "startedAt": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "logFile": str(self.paths.log_file),
            "url": self.url,
            "version": __version__,
        }
        tmp = self.paths.pid_file.with_name(self.paths.pid_file.name + ".tmp")
        tmp.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(info), encoding="utf-8")
        os.replace(tmp, self.paths.pid_file)
        return self

    def __exit__(self, *exc: object) -> None:
        info = read_pid_file(self.paths.pid_file)
        if info is not None and info.get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                self.paths.pid_file.unlink()
        self._lock.release()


def not_running(settings: Settings) -> Exception:
    return make_error(
        ErrorCode.NOT_RUNNING,
        f"no gno daemon or serve owns {settings.data_dir}; start one with `gno daemon --detach`",
        {"dataDir": str(settings.data_dir)},
    )


def stop_owner(settings: Settings, pid_file: str | None = None, timeout_s: float = 15.0) -> ResidentStatus:
    """SIGTERM the resident owner and wait until it released the data directory."""
    owner = current_owner(settings, pid_file)
    if not owner.running or owner.pid is None:
        raise not_running(settings)
    os.kill(owner.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    lock = resident_paths(settings, "daemon").lock
    while time.monotonic() < deadline:
        if not alive(owner.pid) or not lock_held(lock):
            return owner.model_copy(update={"running": False, "stopped": True})
        time.sleep(0.05)
    raise make_error(
        ErrorCode.RUNTIME,
        f"{owner.kind} (pid {owner.pid}) did not stop within {timeout_s:g}s; see {owner.log_file}",
        {"pid": owner.pid},
    )


def wait_for_owner(
    settings: Settings, proc: subprocess.Popen[bytes], paths: ResidentPaths, timeout_s: float = 30.0
) -> ResidentStatus:
    """After `--detach`: wait until the child owns the data directory (or died)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        info = read_pid_file(paths.pid_file)
        if info is not None and info.get("pid") == proc.pid:
            return current_owner(settings, str(paths.pid_file))
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    tail = ""
    with contextlib.suppress(OSError):
        tail = paths.log_file.read_text(encoding="utf-8", errors="replace")[-600:].strip()
    raise make_error(
        ErrorCode.RUNTIME,
        f"the detached process did not start; log {paths.log_file}: {tail or '(empty)'}",
        {"logFile": str(paths.log_file)},
    )
