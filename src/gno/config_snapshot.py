"""What the fastest commands need from a validated `index.yml`, without YAML or pydantic.

`gno search` answers in a few milliseconds, but parsing YAML and building the pydantic config
would cost several times the whole search. So after every successful validation the engine
records the configured collection names, keyed by the file's identity (device, inode, size and
modification time in nanoseconds). A reader trusts the record only while the file still has that
identity: an edit, an atomic replace or a deletion sends it back to the full validation, which
reports a missing or broken config exactly as before and records the new state.

The record lives in the cache folder and is derived: deleting it only costs one validation. It
holds the last config validated with that cache folder; alternating `--config` files only
means each command validates again.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # not typing's: a cold `gno search` does not import typing
if TYPE_CHECKING:
    from gno.settings import Settings

Identity = list[int]


def identity(path: str) -> Identity | None:
    """(device, inode, size, mtime_ns) of the config file, or None when it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def _record_path(settings: Settings) -> str:
    return os.path.join(settings.cache_root, "config-snapshot.json")


def read(settings: Settings) -> list[str] | None:
    """The collection names of the validated config, or None when the record is missing or stale."""
    try:
        with open(_record_path(settings), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("config") != settings.config_location:
        return None
    if data.get("identity") != identity(settings.config_location):
        return None
    names = data.get("collections")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    return names


def record(settings: Settings, ident: Identity, names: list[str]) -> None:
    """Record the names of a config that just validated; `ident` was taken before reading it.

    Best effort: a read-only or full cache folder only means the next command validates again.
    """
    path = _record_path(settings)
    body = {"config": settings.config_location, "identity": ident, "collections": names}
    try:
        with open(path, encoding="utf-8") as fh:
            if json.load(fh) == body:
                return
    except (OSError, ValueError):
        pass
    from pathlib import Path

    from gno.fsio import atomic_write_text

    try:
        atomic_write_text(Path(path), json.dumps(body))
    except OSError:
        pass
