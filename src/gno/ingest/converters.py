"""Converters: how a file that is not markdown becomes a markdown mirror the index can cite.

A converter is a `Converter` record: which extensions it takes, the `module:function` that turns
a file into markdown (run in the conversion worker, never in the indexing process), the modules
it needs installed, and its id and version (a new version re-converts on the next `update`).
Every converter, gno's own included, registers through the entry-point group `gno.converters`:
an entry point names a `Converter` or a sequence of them, so a third-party package adds a format
without touching gno (docs/converters.md shows a whole plugin). A plugin's converter wins over a
built-in one for the same extension.

Discovery reads package metadata (a few milliseconds), so it happens at most once per process and
only when a walk meets a file that is not markdown: a markdown-only vault never pays for it.

A converter function takes the file's path and the `Budget` and returns markdown; it raises
`Refused` with an ingest code for a file it cannot take in (encrypted, no text, over budget).
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from gno.ingest.extensions import NATIVE_EXTENSIONS as NATIVE_EXTENSIONS
from gno.ingest.extensions import extension as extension
from gno.ingest.problems import IngestCode

GROUP = "gno.converters"


@dataclass(frozen=True, slots=True)
class Budget:
    """What one conversion may spend: wall time, the worker's address space, the mirror's size."""

    seconds: float = 60.0
    memory_bytes: int = 3 * 1024**3
    max_chars: int = 5_000_000
    max_bytes: int = 100 * 1024 * 1024  # the source file


@dataclass(frozen=True, slots=True)
class Converter:
    id: str
    version: str
    extensions: tuple[str, ...]
    target: str  # "package.module:function", imported in the worker only
    label: str = ""  # what the files are called in messages ("PDF", "Word document")
    requires: tuple[str, ...] = ()  # import names that must be installed
    dists: tuple[str, ...] = ()  # distributions whose version is part of the converter's tag
    extra: str = "documents"  # the pip extra that installs `requires`
    seconds: float | None = None  # a tighter time budget than the default
    builtin: bool = field(default=False, compare=False)

    def available(self) -> bool:
        return all(_installed(m) for m in self.requires)

    def tag(self) -> str:
        """`id@version` plus the versions of the libraries doing the work: what a mirror was made by."""
        libs = "+".join(f"{d}-{_dist_version(d)}" for d in self.dists)
        return f"{self.id}@{self.version}" + (f"+{libs}" if libs else "")

    def install_hint(self) -> str:
        return f"pip install 'gno[{self.extra}]'"


class Refused(Exception):
    """A converter's verdict on a file it cannot take in, with the ingest code `status` shows."""

    def __init__(self, code: IngestCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Registry:
    """The installed converters by extension, and the extensions whose converter is not installed."""

    by_ext: dict[str, Converter]
    missing: dict[str, Converter]

    def for_name(self, name: str) -> Converter | None:
        ext = extension(name)
        return self.by_ext.get(ext) if ext else None

    def extensions(self) -> frozenset[str]:
        return frozenset(self.by_ext)

    def tags(self) -> dict[str, str]:
        """extension → the tag of the converter that takes it (recorded per collection)."""
        return {ext: c.tag() for ext, c in sorted(self.by_ext.items())}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@cache
def _dist_version(dist: str) -> str:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return "none"


def _flatten(obj: object) -> Iterable[Converter]:
    if isinstance(obj, Converter):
        yield obj
    elif isinstance(obj, list | tuple):
        for item in obj:
            yield from _flatten(item)


def build_registry(converters: Iterable[Converter]) -> Registry:
    """Later converters win for an extension, except that a built-in never displaces a plugin."""
    by_ext: dict[str, Converter] = {}
    missing: dict[str, Converter] = {}
    for conv in converters:
        for raw in conv.extensions:
            ext = raw.lower()
            if ext in NATIVE_EXTENSIONS:
                continue
            if conv.available():
                held = by_ext.get(ext)
                if held is None or held.builtin or not conv.builtin:
                    by_ext[ext] = conv
                missing.pop(ext, None)
            elif ext not in by_ext:
                missing.setdefault(ext, conv)
    return Registry(by_ext, missing)


def discovered() -> list[Converter]:
    """Every converter the installed packages register, built-ins first (stable order)."""
    found: list[Converter] = []
    for ep in sorted(md.entry_points(group=GROUP), key=lambda e: (not e.value.startswith("gno."), e.name)):
        try:
            found.extend(_flatten(ep.load()))
        except Exception:  # noqa: BLE001, S112 - a broken plugin must not stop indexing
            continue
    return found


@cache
def registry() -> Registry:
    """The process's converters (read once; `registry.cache_clear()` after installing a plugin)."""
    return build_registry(discovered())
