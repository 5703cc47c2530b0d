"""Walk a collection's folder: which files belong to it (pattern, include, exclude).

`pattern` is a glob over the POSIX relative path (`**` crosses folders); `include` is an
extension allowlist; `exclude` names path components to prune (or globs when they contain
`*`, `?`, `[` or `/`). Dotfiles and dot-folders are always skipped.

The walk is one `os.scandir` per folder and one `stat` per matching file (the folder listing
already says what is a file and what is a folder), because a no-change re-index is bounded by
exactly that work. What the walk cannot take in is reported, never dropped silently: an
unreadable folder, a text file (markdown, `.txt`) over the collection's size cap (`maxFileBytes`,
by stat: the file is never opened), a name that is not a regular file, a symlink whose target lies
outside the collection folder. A document in a converted format (PDF, Word, ...) is mostly images
and layout by size; its own conversion budget bounds it (the source's bytes and the mirror's
characters), not the text cap.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from stat import S_ISREG
from typing import Protocol

from gno.confine import real, within
from gno.ingest.converters import NATIVE_EXTENSIONS, Converter, Registry, extension, registry
from gno.ingest.problems import IngestCode

DEFAULT_EXTENSIONS = NATIVE_EXTENSIONS


@dataclass(slots=True)
class WalkedFile:
    rel_path: str
    abs_path: str
    size: int  # -1: a symlink whose target is missing (the reader records the failure)
    mtime_ns: int


@dataclass(slots=True)
class WalkIssue:
    """Something under the collection folder that was seen but not taken in."""

    rel_path: str  # a folder ends with "/"
    code: IngestCode
    message: str


@dataclass
class Walk:
    files: list[WalkedFile] = field(default_factory=list)
    issues: list[WalkIssue] = field(default_factory=list)
    #: folders whose listing failed: documents under them are not known to be gone
    unlisted: list[str] = field(default_factory=list)
    #: files admitted in a converted format (none: the sync never looks up a converter)
    documents: int = 0

    def covers_unlisted(self, rel_path: str) -> bool:
        return any(rel_path.startswith(prefix) for prefix in self.unlisted)


#: a glob's groups: a character class, alternatives (an opener without its closer is a plain character)
_CLOSERS = {"[": "]", "{": "}"}


def _group(opener: str, body: str) -> str:
    """A glob's `[..]` (`[!..]` negated) or `{a,b}` as regex."""
    if opener == "[":
        body = body.replace("\\", "\\\\")
        return f"[^{body[1:]}]" if body.startswith("!") else f"[{body}]"
    return "(?:" + "|".join(re.escape(a) for a in body.split(",")) + ")"


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
        elif c in _CLOSERS and (j := pattern.find(_CLOSERS[c], i + 1)) >= 0:
            out.append(_group(c, pattern[i + 1 : j]))
            i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("^" + "".join(out) + "$")


def _is_glob(entry: str) -> bool:
    return any(ch in entry for ch in "*?[/")


class CollectionSpec(Protocol):
    """What a walk and a sync read of a collection: the validated config's fields, or the same
    fields recorded from it (the cold `gno update` path builds no pydantic model)."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def pattern(self) -> str: ...
    @property
    def include(self) -> list[str]: ...
    @property
    def exclude(self) -> list[str]: ...
    @property
    def memory_managed(self) -> bool: ...
    @property
    def file_cap(self) -> int: ...


class Matcher:
    """Decides membership of one relative path in a collection.

    Formats that are converted to markdown (`gno.ingest.converters`) join the default include list
    when their converter is installed; the collection's pattern scopes them as it scopes markdown
    (its `.md` suffix stands for any converted extension: `notes/**/*.md` admits `notes/**/*.pdf`).
    A file of a known format whose converter is not installed is noted in `missing` (reported by
    the walk). The converters are looked up only when a name is not markdown.
    """

    def __init__(self, coll: CollectionSpec, *, record_missing: bool = False) -> None:
        self.record_missing = record_missing  # a walk reports them; a path check (watcher, capture) does not
        self.pattern_src = coll.pattern
        self.pattern = compile_glob(coll.pattern)
        # `**/*.md` (the default) and the like: a suffix test instead of a regex per file
        tail = coll.pattern[4:] if coll.pattern.startswith("**/*") else None
        self.suffix = tail if tail is not None and not any(ch in tail for ch in "*?[]{}/") else None
        self.include = frozenset(e.lower() for e in coll.include)
        self.extensions = self.include or DEFAULT_EXTENSIONS
        self.exclude_names = frozenset(e for e in coll.exclude if not _is_glob(e))
        self.exclude_globs = [compile_glob(e) for e in coll.exclude if _is_glob(e)]
        # when the suffix is itself an admitted extension, it settles membership on its own
        sfx = self.suffix or ""
        quick = sfx.count(".") == 1 and sfx.startswith(".") and sfx.lower() in self.extensions
        self.quick = sfx if quick and not self.exclude_globs else None
        self.missing: list[tuple[str, Converter]] = []  # files whose converter's extra is not installed
        self.documents = 0  # files admitted in a converted format
        self._registry: Registry | None = None
        self._doc_patterns: dict[str, re.Pattern[str]] = {}

    def prune_dir(self, name: str) -> bool:
        return name.startswith(".") or name in self.exclude_names

    def registry(self) -> Registry:
        if self._registry is None:
            self._registry = registry()
        return self._registry

    def _doc_pattern(self, ext: str) -> re.Pattern[str]:
        pat = self._doc_patterns.get(ext)
        if pat is None:
            src = self.pattern_src
            pat = compile_glob(src[:-3] + ext) if src.endswith(".md") else self.pattern
            self._doc_patterns[ext] = pat
        return pat

    def _document(self, rel: str, name: str, ext: str) -> bool:
        """Membership of a file in a converted format (the default include list only)."""
        if ext in NATIVE_EXTENSIONS or self.include or name[0] == "." or name in self.exclude_names:
            return False
        reg = self.registry()
        conv = reg.by_ext.get(ext)
        missing = reg.missing.get(ext) if conv is None else None
        if conv is None and missing is None:  # an image, an archive: not a format gno knows
            return False
        if self.exclude_globs and any(g.match(rel) for g in self.exclude_globs):
            return False
        if self._doc_pattern(ext).match(rel) is None:
            return False
        if missing is not None:
            if self.record_missing:
                self.missing.append((rel, missing))
            return False
        self.documents += 1
        return True

    def _listed(self, rel: str, ext: str) -> bool:
        """A format named in `include`: scoped by the pattern like markdown."""
        if self._doc_pattern(ext).match(rel) is None:
            return False
        self.documents += 1
        return True

    def matches_name(self, rel: str, name: str) -> bool:
        """Membership of a file whose folders were already admitted by `prune_dir`."""
        if self.quick is not None:
            q = self.quick
            if name.endswith(q) and len(name) > len(q) and name[0] != ".":
                return name not in self.exclude_names
            dot = name.rfind(".")
            if dot <= 0:
                return False
            ext = name[dot:].lower()
            if ext in self.include and ext not in NATIVE_EXTENSIONS and name not in self.exclude_names:
                return self._listed(rel, ext)
            return self._document(rel, name, ext)
        if name.startswith(".") or name in self.exclude_names:
            return False
        dot = name.rfind(".")
        if dot <= 0:
            return False
        ext = name[dot:].lower()
        if ext not in self.extensions:
            return self._document(rel, name, ext)
        if self.exclude_globs and any(g.match(rel) for g in self.exclude_globs):
            return False
        if ext not in NATIVE_EXTENSIONS:
            return self._listed(rel, ext)
        if self.suffix is not None:
            return name.endswith(self.suffix)
        return self.pattern.match(rel) is not None

    def matches(self, rel: str) -> bool:
        parts = rel.split("/")
        if any(self.prune_dir(p) for p in parts[:-1]):
            return False
        return self.matches_name(rel, parts[-1])

    def missing_issues(self) -> list[WalkIssue]:
        """CONVERTER_MISSING for each file of a known format whose converter is not installed."""
        out = []
        for rel, conv in self.missing:
            what = conv.label or conv.id
            message = f"{what}: its converter is not installed; run `{conv.install_hint()}` to index it"
            out.append(WalkIssue(rel, IngestCode.CONVERTER_MISSING, message))
        self.missing.clear()
        return out


def is_inside(real_root: str, path: str) -> bool:
    """Whether `path`, with every symlink resolved, stays inside the (resolved) root (`confine`)."""
    return within(real_root, real(path))


def _outside(rel: str, path: str) -> WalkIssue:
    message = f"{rel} leads outside the collection (to {os.path.realpath(path)}); skipped"
    return WalkIssue(rel, IngestCode.PATH_OUTSIDE_COLLECTION, message)


def _linked_file(entry: os.DirEntry[str], rel: str, real_root: str, walk: Walk, cap: int) -> WalkedFile | None:
    """A symlink with a matching name: followed when its target stays inside the folder."""
    if not is_inside(real_root, entry.path):
        walk.issues.append(_outside(rel, entry.path))
        return None
    try:
        st = entry.stat()
    except FileNotFoundError:
        return WalkedFile(rel, entry.path, -1, 0)  # dangling: the reader records READ_FAILED
    except OSError:
        return None
    return _admit(rel, entry.path, st, walk, cap)


def size_text(n: int) -> str:
    """A byte count as people read it: 10 MB, 512 KB, 300 bytes (binary units)."""
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


def _admit(rel: str, path: str, st: os.stat_result, walk: Walk, cap: int) -> WalkedFile | None:
    if not S_ISREG(st.st_mode):
        walk.issues.append(WalkIssue(rel, IngestCode.NOT_A_FILE, "not a regular file; skipped"))
        return None
    if st.st_size > cap and extension(rel) in NATIVE_EXTENSIONS:
        message = f"{size_text(st.st_size)}, over the {size_text(cap)} cap (maxFileBytes); skipped"
        walk.issues.append(WalkIssue(rel, IngestCode.FILE_TOO_LARGE, message))
        return None
    return WalkedFile(rel, path, st.st_size, st.st_mtime_ns)


def walk_collection(coll: CollectionSpec) -> Walk:
    """The collection's files, in listing order (callers that write sort what they write)."""
    matcher = Matcher(coll, record_missing=True)
    root = os.path.abspath(coll.path)
    real_root = os.path.realpath(root)
    walk = Walk()
    files = walk.files
    matches = matcher.matches_name
    exclude_names = matcher.exclude_names
    cap = coll.file_cap
    stack: list[tuple[str, str]] = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            walk.unlisted.append(prefix)
            walk.issues.append(
                WalkIssue(prefix, IngestCode.FOLDER_UNREADABLE, f"cannot list folder: {exc.strerror or exc}")
            )
            continue
        subdirs: list[tuple[str, str]] = []
        for entry in entries:  # the hot loop of a re-index: one stat per matching file, nothing more
            name = entry.name
            if name[0] == ".":
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name not in exclude_names:
                        subdirs.append((entry.path, prefix + name + "/"))
                    continue
                rel = prefix + name
                if not matches(rel, name):
                    if entry.is_symlink() and name not in exclude_names and os.path.isdir(entry.path):
                        if not is_inside(real_root, entry.path):  # a linked folder inside is walked as itself
                            walk.issues.append(_outside(rel, entry.path))
                    continue
                if entry.is_symlink():
                    f = _linked_file(entry, rel, real_root, walk, cap)
                    if f is not None:
                        files.append(f)
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # vanished between the listing and the stat: it is simply gone
            if st.st_size <= cap and S_ISREG(st.st_mode):
                files.append(WalkedFile(rel, entry.path, st.st_size, st.st_mtime_ns))
            else:
                f = _admit(rel, entry.path, st, walk, cap)
                if f is not None:
                    files.append(f)
        stack.extend(subdirs)
    if matcher.missing:
        walk.issues.extend(matcher.missing_issues())
    walk.documents = matcher.documents
    return walk


def stat_paths(coll: CollectionSpec, rel_paths: Iterable[str]) -> Walk:
    """The named files of a collection (a path-scoped sync after a write), with the walk's rules:
    a name the collection's pattern, include or exclude leave out is not one of its files."""
    root = os.path.abspath(coll.path)
    real_root = os.path.realpath(root)
    matcher = Matcher(coll, record_missing=True)
    walk = Walk()
    for rel in sorted(set(rel_paths)):
        if not matcher.matches(rel):
            continue
        path = os.path.join(root, *rel.split("/"))
        if not is_inside(real_root, path):
            if os.path.lexists(path):
                walk.issues.append(_outside(rel, path))
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        f = _admit(rel, path, st, walk, coll.file_cap)
        if f is not None:
            walk.files.append(f)
    walk.issues.extend(matcher.missing_issues())
    walk.documents = matcher.documents
    return walk


def read_file(path: str) -> bytes:
    """The whole file (a raw descriptor: no buffered reader object per file)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        parts = []
        while chunk := os.read(fd, 1 << 20):
            parts.append(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)
