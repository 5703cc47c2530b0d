"""Durable file writes: nothing half-written ever replaces a user's file.

Two primitives cover every write gno makes to disk: `atomic_write_*` (temp file in the same
folder, fsync, rename: readers see the old or the new bytes, never a mix) for files gno owns
or edits, and `exclusive_create` (O_EXCL: fails if the path exists, so two writers can never
both "create" one file) for new notes and fact files.

Permissions follow what an editor would do, not the temp file's private 0600: a replaced file
keeps its permission bits, a new one gets the usual `0666 & ~umask`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from functools import cache
from pathlib import Path


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@cache
def _umask() -> int:
    old = os.umask(0o022)
    os.umask(old)
    return old


def umask_changed() -> None:
    """The process took another umask (a resident owner's worker takes its caller's): read it anew."""
    _umask.cache_clear()


def new_file_mode() -> int:
    """The mode a plain `open(path, "w")` would give a new file."""
    return 0o666 & ~_umask()


def _mode_of(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return new_file_mode()


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace `path` with `data` atomically; `mode` defaults to the file's current bits.

    A symlink at `path` stays a link: its target is what gets replaced.
    """
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_of(path) if mode is None else mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def exclusive_create(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Create `path` with `data` (and `mode`, default `0666 & ~umask`); FileExistsError if taken.

    The bytes are written to a temp file first and then hard-linked into place, so a crash
    never leaves a partial file at `path` and the link fails atomically if it exists.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), new_file_mode() if mode is None else mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _fsync_dir(path.parent)
