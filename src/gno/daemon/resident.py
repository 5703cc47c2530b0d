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
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock, Timeout

from gno.config import Settings
from gno.errors import ErrorCode, make_error
from gno.models import GnoModel

Kind = Literal["daemon", "serve"]
KINDS: tuple[Kind, ...] = ("daemon", "serve")


class ResidentStatus(GnoModel):
    """What `gno daemon --status` (and `--stop`, `--detach`) report."""

    running: bool
    kind: str | None = None
    pid: int | None = None
    index: str | None = None
    started_at: str | None = None
    log_file: str | None = None
    pid_file: str | None = None
    url: str | None = None
    stopped: bool | None = None


@dataclass(frozen=True)
class ResidentPaths:
    lock: Path
    pid_file: Path
    log_file: Path


def resident_paths(
    settings: Settings, kind: Kind, pid_file: str | None = None, log_file: str | None = None
) -> ResidentPaths:
    data = settings.data_dir
    return ResidentPaths(
        lock=data / "resident.lock",
        pid_file=Path(pid_file).expanduser() if pid_file else data / f"{kind}.pid",
        log_file=Path(log_file).expanduser() if log_file else data / f"{kind}.log",
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_pid_file(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("pid"), int) else None


def _lock_held(lock_path: Path) -> bool:
    if not lock_path.exists():
        return False
    probe = FileLock(str(lock_path), is_singleton=False)
    try:
        probe.acquire(timeout=0)
    except Timeout:
        return True
    probe.release()
    return False


def current_owner(settings: Settings, pid_file: str | None = None) -> ResidentStatus:
    """The live resident owner of the data directory, if any (stale pid files are ignored)."""
    candidates = [resident_paths(settings, k, pid_file if pid_file else None) for k in KINDS]
    if pid_file:
        candidates = candidates[:1]
    for paths in candidates:
        info = _read_pid_file(paths.pid_file)
        if info is None or not alive(int(info["pid"])) or not _lock_held(paths.lock):
            continue
        return ResidentStatus(
            running=True,
            kind=str(info.get("kind") or ""),
            pid=int(info["pid"]),
            index=info.get("index"),
            started_at=info.get("startedAt"),
            log_file=info.get("logFile"),
            pid_file=str(paths.pid_file),
            url=info.get("url"),
        )
    return ResidentStatus(running=False)


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
        }
        tmp = self.paths.pid_file.with_name(self.paths.pid_file.name + ".tmp")
        tmp.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(info), encoding="utf-8")
        os.replace(tmp, self.paths.pid_file)
        return self

    def __exit__(self, *exc: object) -> None:
        info = _read_pid_file(self.paths.pid_file)
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
        if not alive(owner.pid) or not _lock_held(lock):
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
        info = _read_pid_file(paths.pid_file)
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
