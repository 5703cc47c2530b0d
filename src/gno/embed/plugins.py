"""Embedder plugins: how a spec in ``models.embed`` finds the code that builds its embedder.

Every embedder, gno's own included, registers through the entry-point group ``gno.embedders``: an
entry point names an `EmbedderPlugin` or a sequence of them, so a third-party package adds a model
without touching gno (``docs/embedders.md`` shows a whole plugin). gno's own plugins come first,
so a plugin cannot take over a built-in name (and with it the fingerprint of stored vectors); a
plugin claims any other spec.

A plugin answers one question, `create(spec, options)`: the embedder for this spec, or ``None``
when the spec is not its. Discovery reads package metadata (a few milliseconds), once per process
and only when an embedder is loaded, which costs far more.
"""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from .base import Embedder

GROUP = "gno.embedders"


@dataclass(frozen=True)
class EmbedderOptions:
    """What the caller asks of any embedder; a plugin ignores what does not apply to it."""

    threads: int | None = None
    batch_size: int | None = None
    timeout: float | None = None
    warm: bool = False


@dataclass(frozen=True)
class EmbedderPlugin:
    """One family of specs: its listing name, an example spec, what it is for, and its factory.

    `create` gets the spec as written (case kept: a URL's model name may need it) and returns
    ``None`` for a spec that is not its; it raises `EmbedderUnavailable` when the spec is its but
    cannot load (a missing package, a missing file, an unreachable server)."""

    name: str
    spec: str
    role: str
    create: Callable[[str, EmbedderOptions], Embedder | None]
    #: listed by `available_embedders` (False for families with no local example, e.g. remote)
    listed: bool = True


def _flatten(obj: object) -> list[EmbedderPlugin]:
    if isinstance(obj, EmbedderPlugin):
        return [obj]
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        return [p for p in obj if isinstance(p, EmbedderPlugin)]
    return []


@cache
def plugins() -> tuple[EmbedderPlugin, ...]:
    """The installed plugins, gno's own first (`plugins.cache_clear()` after installing one)."""
    found: list[EmbedderPlugin] = []
    points = sorted(md.entry_points(group=GROUP), key=lambda e: (not e.value.startswith("gno."), e.name))
    if not any(ep.value.startswith("gno.") for ep in points):
        # a source tree run without installed metadata still has gno's own embedders
        from .builtin import BUILTIN

        found.extend(BUILTIN)
    for ep in points:
        try:
            found.extend(_flatten(ep.load()))
        except Exception:  # noqa: BLE001, S112 - a broken plugin must not stop gno
            continue
    return tuple(found)
