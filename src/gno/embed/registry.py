"""Resolve an embedder spec (``models.embed``) to an :class:`~gno.embed.base.Embedder`.

Specs (case-insensitive): ``None`` / ``"default"`` is MiniLM, else wordllama (the fallback is
logged); every other spec goes to the first embedder plugin that claims it (``gno.embed.plugins``;
gno's own, listed in ``gno.embed.builtin``, come first).

Nothing ever downloads.  Whatever cannot load raises :class:`EmbedderUnavailable` with a reason
(unknown specs included), and callers switch to lexical mode and show that reason.  Local models
are checked cheaply (packages and files present); the model itself is built on first use unless
``warm=True``.  A remote spec is probed once (one tiny request) to learn its dimension.

Why MiniLM is the default: it is the only local embedder measured to rank better than BM25 on
the benchmark corpora, so it adds a different signal to hybrid search, and its query cost (a few
ms) is negligible; its cost is indexing, done incrementally. wordllama is 50-90x faster to index
and is the first stage for large corpora and the logged fallback of ``"default"`` when MiniLM
cannot load (the fingerprint changes, so stored vectors show as stale). Figures:
``docs/benchmarks.md``, "Embedders".
"""

from __future__ import annotations

import time
from typing import Any

from .base import Embedder, EmbedderUnavailable
from .plugins import EmbedderOptions, plugins

__all__ = ["load_embedder", "available_embedders", "keep_warm", "DEFAULT_ORDER", "SPEC_HELP"]

#: embedders a resident owner's template loaded once for every command it forks (by spec)
_WARM: dict[str, Embedder] = {}

#: What ``None``/``"default"`` tries, in order.
DEFAULT_ORDER: tuple[str, ...] = ("minilm", "wordllama")
SPEC_HELP = (
    "default, minilm, mpnet, wordllama[:64|128|256], fake[:dim], http(s)://host:port/v1#model, or a plugin's spec"
)


def load_embedder(
    spec: str | None = None,
    *,
    threads: int | None = None,
    batch_size: int | None = None,
    timeout: float | None = None,
    warm: bool = False,
) -> Embedder:
    """Return the embedder named by ``spec``; raise :class:`EmbedderUnavailable` if it cannot load.

    ``threads``/``batch_size`` apply to MiniLM (``batch_size`` also to remote), ``timeout`` to
    remote; ``warm=True`` builds local models now instead of on first use (so a broken runtime
    is reported here rather than at the first embed).
    """
    raw = (spec or "default").strip()
    name = raw.lower()
    if name in _WARM and threads is None and batch_size is None and timeout is None:
        return _WARM[name]
    if name in ("", "default", "auto"):
        return _load_default(threads=threads, batch_size=batch_size, warm=warm)
    options = EmbedderOptions(threads=threads, batch_size=batch_size, timeout=timeout, warm=warm)
    for plugin in plugins():
        embedder = plugin.create(raw, options)
        if embedder is not None:
            return embedder
    raise EmbedderUnavailable(f"unknown embedder {spec!r}; expected {SPEC_HELP}", embedder=spec)


def keep_warm(spec: str | None) -> Embedder:
    """Load `spec` now and hand this instance to every later `load_embedder(spec)` in this process.

    For a resident owner's template: the processes it forks share the loaded model instead of each
    loading it again (about a second for MiniLM), with the same threads, hence the same vectors.
    onnxruntime's dispatching thread takes back pool work no thread picked up, so a forked copy
    (whose pool threads are gone) still runs. Remote models are not kept (a probe per process).
    The default is kept under its own name too (`minilm`, loaded the same way): one copy of the
    model, where two made every fork of the template copy twice the page tables."""
    name = (spec or "default").strip().lower()
    if name in _WARM:
        return _WARM[name]
    if name.startswith(("http://", "https://", "openai:")):
        raise EmbedderUnavailable("remote embedders are not kept warm", embedder=spec)
    names = [name]
    if name in ("", "default", "auto"):
        candidate, embedder = _first_default(threads=None, batch_size=None, warm=True)
        names.append(candidate)
    else:
        embedder = load_embedder(spec, warm=True)
    embedder.embed_query("warm")
    for n in names:
        _WARM.setdefault(n, embedder)
    return embedder


def _load_default(*, threads: int | None, batch_size: int | None, warm: bool) -> Embedder:
    return _first_default(threads=threads, batch_size=batch_size, warm=warm)[1]


def _first_default(*, threads: int | None, batch_size: int | None, warm: bool) -> tuple[str, Embedder]:
    """The first of `DEFAULT_ORDER` that loads: (its name, the embedder)."""
    reasons: list[str] = []
    missing_extra = True  # every candidate lacked a package (not a file or a broken runtime)
    for candidate in DEFAULT_ORDER:
        try:
            embedder = load_embedder(candidate, threads=threads, batch_size=batch_size, warm=warm)
        except EmbedderUnavailable as exc:
            reasons.append(str(exc))
            missing_extra = missing_extra and exc.extra is not None
            continue
        if reasons:
            import logging  # imported here: logging alone costs ~5 ms at import time

            logging.getLogger("gno.embed").warning(
                "default embedder falls back to %s (%s)", embedder.model_id, "; ".join(reasons)
            )
        return candidate, embedder
    raise EmbedderUnavailable(
        "no local embedding model can be loaded (" + "; ".join(reasons) + ")",
        embedder="default",
        extra="semantic" if missing_extra else None,
    )


def available_embedders(*, deep: bool = False, remote: str | None = None) -> list[dict[str, Any]]:
    """Which embedders can load here, and why not.

    One dict per embedder: ``name``, ``spec``, ``model_id``, ``dim``, ``fingerprint``,
    ``available`` (bool), ``reason`` (str or None), ``default`` (bool: what ``load_embedder(None)``
    picks), ``role``.  ``deep=True`` also loads each local model and embeds one text (adds
    ``load_seconds``; MiniLM takes ~0.5 s).  ``remote`` (a spec) adds a probed remote entry.
    """
    entries = [(p.name, p.spec, p.role) for p in plugins() if p.listed]
    if remote:
        entries.append(("remote", remote, next(p.role for p in plugins() if p.name == "remote")))
    report: list[dict[str, Any]] = []
    default_taken = False
    for name, spec, role in entries:
        row: dict[str, Any] = {
            "name": name,
            "spec": spec,
            "role": role,
            "model_id": None,
            "dim": None,
            "fingerprint": None,
            "available": False,
            "reason": None,
            "default": False,
        }
        try:
            started = time.perf_counter()
            embedder = load_embedder(spec, warm=deep)
            if deep:
                embedder.embed_query("availability probe")
                row["load_seconds"] = round(time.perf_counter() - started, 3)
            row.update(
                model_id=embedder.model_id,
                dim=embedder.dim,
                fingerprint=embedder.fingerprint,
                available=True,
            )
            close = getattr(embedder, "close", None)
            if callable(close):
                close()
        except EmbedderUnavailable as exc:
            row["reason"] = exc.reason
        if row["available"] and name in DEFAULT_ORDER and not default_taken:
            row["default"] = default_taken = True
        report.append(row)
    return report
