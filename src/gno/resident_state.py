"""Who owns a data directory, read without taking anything: the resident owner's pid file and lock.

`gno daemon --status`, `gno doctor` and a second owner's refusal all ask the same question: is a
`gno daemon` or `gno serve` holding `<data>/resident.lock`, and what does its pid file
(`<data>/daemon.pid` or `<data>/serve.pid`) say (pid, kind, index, start time, log, url, gno
version)? A pid file whose process is gone, or whose lock is free, is stale and ignored. Taking
and releasing ownership is `gno.daemon.resident`; this module only reads, so a core check can
ask without importing the daemon.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock, Timeout

from gno.config import Settings
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
    version: str | None = None


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


def read_pid_file(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("pid"), int) else None


def lock_held(lock_path: Path) -> bool:
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
        info = read_pid_file(paths.pid_file)
        if info is None or not alive(int(info["pid"])) or not lock_held(paths.lock):
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
            version=info.get("version"),
        )
    return ResidentStatus(running=False)
