"""Walk a collection's folder: which files belong to it (pattern, include, exclude).

`pattern` is a glob over the POSIX relative path (`**` crosses folders); `include` is an
extension allowlist; `exclude` names path components to prune (or globs when they contain
`*`, `?`, `[` or `/`). Dotfiles, dot-folders and files over 100 MB are always skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gno.config import CollectionConfig

MAX_FILE_BYTES = 100 * 1024 * 1024
DEFAULT_EXTENSIONS = frozenset({".md", ".markdown", ".mdx", ".txt"})


@dataclass(frozen=True)
class WalkedFile:
    rel_path: str
    abs_path: Path
    size: int
    mtime_ns: int


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """Glob → regex: `**/` any folders (or none), `*` within a segment, `?`, `[..]`, `{a,b}`."""
    i, n, out = 0, len(pattern), []
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j + 1
        elif c == "{":
            j = pattern.find("}", i + 1)
            if j < 0:
                out.append(re.escape(c))
                i += 1
            else:
                alts = pattern[i + 1 : j].split(",")
                out.append("(?:" + "|".join(re.escape(a) for a in alts) + ")")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("^" + "".join(out) + "$")


def _is_glob(entry: str) -> bool:
    return any(ch in entry for ch in "*?[/")


class Matcher:
    """Decides membership of one relative path in a collection."""

    def __init__(self, coll: CollectionConfig) -> None:
        self.pattern = compile_glob(coll.pattern)
        self.include = frozenset(e.lower() for e in coll.include)
        self.exclude_names = frozenset(e for e in coll.exclude if not _is_glob(e))
        self.exclude_globs = [compile_glob(e) for e in coll.exclude if _is_glob(e)]

    def prune_dir(self, name: str) -> bool:
        return name.startswith(".") or name in self.exclude_names

    def matches(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        if name.startswith(".") or name in self.exclude_names:
            return False
        ext = os.path.splitext(name)[1].lower()
        if not ext:
            return False
        if self.include and ext not in self.include:
            return False
        if not self.include and ext not in DEFAULT_EXTENSIONS:
            return False
        if any(g.match(rel) for g in self.exclude_globs):
            return False
        if any(part in self.exclude_names for part in rel.split("/")[:-1]):
            return False
        return bool(self.pattern.match(rel))


def walk_collection(coll: CollectionConfig) -> Iterator[WalkedFile]:
    """Yield the collection's files in a stable (sorted) order."""
    root = coll.root
    matcher = Matcher(coll)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not matcher.prune_dir(d))
        rel_dir = os.path.relpath(dirpath, root)
        prefix = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        for fname in sorted(filenames):
            rel = prefix + fname
            if not matcher.matches(rel):
                continue
            full = Path(dirpath) / fname
            try:
                st = full.stat()
            except OSError:
                # a dangling symlink (or a file that vanished): let the reader record READ_FAILED
                if full.is_symlink():
                    yield WalkedFile(rel, full, -1, 0)
                continue
            if not os.path.isfile(full) or st.st_size > MAX_FILE_BYTES:
                continue
            yield WalkedFile(rel, full, st.st_size, st.st_mtime_ns)
