"""The per-install key behind redaction markers (``[REDACTED:<rule>:<digest8>]``).

Why a key: an unkeyed ``sha256(secret)[:8]`` turns every weak password back into itself with a
dictionary (``hunter2``, ``Summer2024!``). Keyed with 32 random bytes that never leave the data
folder, the digest still groups equal secrets within one install and tells a user "same secret as
before", yet is worthless to anyone who only sees the marker.

The key file is created once, atomically and exclusively (a racing second process reads the
winner's key instead of writing its own), with mode 0600 from the first byte.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from gno.errors import RuntimeFailure
from gno.fsio import exclusive_create

KEY_FILE = "guard-marker.key"
KEY_BYTES = 32


def _read(path: Path) -> bytes | None:
    try:
        raw = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise RuntimeFailure(f"cannot read the guard's marker key {path}: {exc}") from exc
    try:
        key = bytes.fromhex(raw)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise RuntimeFailure(f"{path} is not a guard marker key (64 hex characters); move it away to make a new one")
    return key


def install_key(data_dir: Path) -> bytes:
    """This install's marker key, created on first use in ``data_dir``."""
    path = data_dir / KEY_FILE
    key = _read(path)
    if key is not None:
        return key
    fresh = secrets.token_bytes(KEY_BYTES)
    try:
        exclusive_create(path, fresh.hex().encode("ascii") + b"\n", mode=0o600)
    except FileExistsError:
        pass  # another process made it first: use theirs
    except OSError as exc:
        raise RuntimeFailure(f"cannot create the guard's marker key {path}: {exc}") from exc
    key = _read(path)
    assert key is not None
    return key
