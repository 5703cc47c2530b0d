"""The one path-safety rule: no read or write follows a path out of its collection.

A collection is a folder the user chose; a symlink inside it (a cloned repo's `id_rsa.md ->
~/.ssh/id_rsa`, a folder `out -> /`) must not turn gno into a reader or writer of anything
else. The rule is on the *real* path (every symlink resolved): it must be the collection's real
root or below it. A symlink that stays inside the root is fine and is followed.

- sync skips a file or folder that leaves the root and records the ingest warning
  `PATH_OUTSIDE_COLLECTION` (visible in `gno status`; the walker applies `within`), so nothing of it is
  indexed;
- capture and edit resolve their target first and refuse with VALIDATION when it leaves the
  root, before any folder is made or byte written;
- reads of a document from disk (`get`, the editor's source) refuse the same way, so a file
  swapped for an escaping symlink after it was indexed is not read either.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: a cold `gno get` imports neither typing nor pathlib
if TYPE_CHECKING:
    from pathlib import Path


def real(path: Path | str) -> str:
    """The path with every symlink resolved (missing tail components kept as written)."""
    return os.path.realpath(path)


def within(real_root: str, real_path: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def confined_real(root: str, rel: str, *, action: str) -> str:
    """The real path of `root/rel` (every symlink resolved), or VALIDATION when that leaves the root.

    On strings, without pathlib (a cold `gno get` checks its document with it).
    """
    target = real(os.path.join(root, rel))
    if not within(real(root), target):
        from gno.errors import ValidationError

        raise ValidationError(
            f"refusing to {action} {rel!r}: its real path {target} is outside the collection folder {root}",
            details={"path": rel, "realPath": target, "reason": "outside_collection"},
        )
    return target


def confined(root: Path, rel: str, *, action: str) -> Path:
    """`root/rel` with its symlinks resolved, or VALIDATION when that leaves the root.

    Writers use the returned real path: an edit through an in-root symlink then replaces the
    link's target (the link stays a link), and a capture never creates folders through one
    that points away.
    """
    from pathlib import Path

    return Path(confined_real(str(root), rel, action=action))
