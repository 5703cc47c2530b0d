"""Durable file writes: nothing half-written ever replaces a user's file.

Two primitives cover every write gno makes to disk: `atomic_write_*` (temp file in the same
folder, fsync, rename: readers see the old or the new bytes, never a mix) for files gno owns
or edits, and `exclusive_create` (O_EXCL: fails if the path exists, so two writers can never
both "create" one file) for new notes and fact files.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
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


def exclusive_create(path: Path, data: bytes) -> None:
    """Create `path` with `data`; raise FileExistsError if anything is already there.

    The bytes are written to a temp file first and then hard-linked into place, so a crash
    never leaves a partial file at `path` and the link fails atomically if it exists.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _fsync_dir(path.parent)
