"""The resident runtime: a file watcher, reconciliation passes and background embedding.

Three threads, each with its own engine (its own SQLite connection, so a long write never
blocks the readers of `gno serve`, and WAL lets every other process read meanwhile):

* the **watcher** (`watchfiles`, inotify on Linux) turns each debounced batch of events into a
  path-scoped sync under the write lease, so a save reaches the index in well under 2 s;
* **reconciliation**: a full incremental sync (a stat per file, files read only when their size or
  mtime changed) at start, every `reconcile_interval` seconds, and for one collection shortly
  after any folder-level event, because inotify can miss files created in a folder before its
  watch exists and may report a recursive delete as the folder alone;
* the **embedder**: when vectors are wanted (the config names a model, or the index already has
  vectors for it), new chunks are embedded in short rounds, each under the lease and released
  between rounds, so writes from the watcher or a CLI never wait for a whole embedding job.

Writes always take the one cross-process write lease; a `gno update` run by hand meanwhile simply
queues behind it (or the other way round).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gno.config import Settings
from gno.daemon.routing import ChangeRouter
from gno.engine import Engine
from gno.errors import GnoError

log = logging.getLogger("gno.daemon")

#: after a folder-level event, a reconciliation of that collection follows this many seconds later
FOLDER_RECHECK_S = 2.0
EMBED_ROUND = 64


@dataclass
class RuntimeOptions:
    reconcile_interval: float = 300.0
    sync_on_start: bool = True
    embed: bool = True
    debounce_ms: int = 400
    step_ms: int = 50
    force_polling: bool = False


class ResidentRuntime:
    """Keeps one index current while the resident owner runs; `start()` / `stop()` / `join()`."""

    def __init__(self, settings: Settings, options: RuntimeOptions | None = None) -> None:
        self.settings = settings
        self.options = options or RuntimeOptions()
        self.stop_event = threading.Event()
        self._embed_wanted = threading.Event()
        self._threads: list[threading.Thread] = []
        self._recheck: dict[str, float] = {}
        self.syncs = 0
        self.reconciles = 0

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        self._threads = [threading.Thread(target=self._guard(self._watch_loop), name="gno-watcher", daemon=True)]
        if self.options.embed:
            self._threads.append(threading.Thread(target=self._guard(self._embed_loop), name="gno-embed", daemon=True))
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self.stop_event.set()
        self._embed_wanted.set()

    def join(self, timeout: float | None = None) -> None:
        for t in self._threads:
            t.join(timeout)

    def _guard(self, fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn()
            except Exception:  # noqa: BLE001 - a resident thread logs, it never dies silently
                log.exception("resident thread %s failed", threading.current_thread().name)
                self.stop()

        return run

    # -- watcher -----------------------------------------------------------------------------
    def _watch_loop(self) -> None:
        from watchfiles import watch

        engine = Engine(self.settings)
        try:
            if self.options.sync_on_start:
                self._reconcile(engine, None)
            next_full = time.monotonic() + self.options.reconcile_interval
            while not self.stop_event.is_set():
                stamp = self._config_stamp()
                try:
                    router = ChangeRouter(engine.config.collections)
                except GnoError as err:  # no config yet, or a broken one: wait for the next edit
                    log.warning("cannot watch: [%s] %s", err.code, err.message)
                    roots = []
                else:
                    roots = router.roots()
                if not roots:
                    log.info("no collection folder to watch; waiting for the config to change")
                    while not self.stop_event.wait(1.0) and self._config_stamp() == stamp:
                        pass
                    continue
                log.info("watching %d folder(s): %s", len(roots), ", ".join(map(str, roots)))
                for changes in watch(
                    *roots,
                    watch_filter=None,
                    debounce=self.options.debounce_ms,
                    step=self.options.step_ms,
                    stop_event=self.stop_event,
                    rust_timeout=1000,
                    yield_on_timeout=True,
                    raise_interrupt=False,
                    force_polling=self.options.force_polling or None,
                ):
                    if changes:
                        self._apply(engine, router, (p for _, p in changes))
                    now = time.monotonic()
                    for name, due in list(self._recheck.items()):
                        if now >= due:
                            self._recheck.pop(name, None)
                            self._reconcile(engine, [name])
                    if now >= next_full:
                        self._reconcile(engine, None)
                        next_full = now + self.options.reconcile_interval
                    if self._config_stamp() != stamp:
                        log.info("config changed; re-reading the collections")
                        break
        finally:
            engine.close()

    def _config_stamp(self) -> float | None:
        try:
            return self.settings.config_path.stat().st_mtime
        except OSError:
            return None

    def _apply(self, engine: Engine, router: ChangeRouter, paths: Iterable[str]) -> None:
        routed = router.route(paths, engine.store)
        for name in routed.whole:
            self._reconcile(engine, [name])
        for name in routed.folders:
            self._recheck[name] = time.monotonic() + FOLDER_RECHECK_S
        for name, rels in routed.paths.items():
            if name in routed.whole or not rels:
                continue
            coll = engine.config.collection(name)
            if coll is None:
                continue
            t0 = time.perf_counter()
            try:
                with engine.lease():
                    r = engine.sync_paths(coll, rels)
            except GnoError as err:
                log.warning("sync of %d path(s) in %s failed: [%s] %s", len(rels), name, err.code, err.message)
                self._recheck[name] = time.monotonic() + FOLDER_RECHECK_S
                continue
            self.syncs += 1
            changed = r.added + r.updated + r.renamed + r.reactivated
            log.info(
                "%s: %d path(s) in %.0f ms (+%d ~%d >%d -%d)",
                name,
                len(rels),
                (time.perf_counter() - t0) * 1000,
                r.added + r.reactivated,
                r.updated,
                r.renamed,
                r.inactivated,
            )
            if changed:
                self._embed_wanted.set()

    def _reconcile(self, engine: Engine, names: list[str] | None) -> None:
        try:
            cfg = engine.config
        except GnoError as err:
            log.warning("reconciliation skipped: [%s] %s", err.code, err.message)
            return
        targets = names or [c.name for c in cfg.collections]
        targets = [n for n in targets if cfg.collection(n) is not None]
        if not targets:
            return
        try:
            res = engine.update(targets)
        except GnoError as err:
            log.warning("reconciliation failed: [%s] %s", err.code, err.message)
            return
        self.reconciles += 1
        changed = sum(c.added + c.updated + c.renamed + c.reactivated + c.inactivated for c in res.collections)
        log.info("reconciled %s in %.0f ms (%d change(s))", ", ".join(targets), res.duration_ms, changed)
        if changed or names is None:
            self._embed_wanted.set()

    # -- background embedding ----------------------------------------------------------------
    def _embed_loop(self) -> None:
        engine = Engine(self.settings)
        try:
            while not self.stop_event.is_set():
                self._embed_wanted.wait()
                self._embed_wanted.clear()
                if self.stop_event.wait(1.0) or not self._vectors_wanted(engine):
                    continue
                while not self.stop_event.is_set():
                    try:
                        r = engine.embed(max_chunks=EMBED_ROUND, lock_wait=5.0)
                    except GnoError as err:
                        log.warning("background embedding paused: [%s] %s", err.code, err.message)
                        break
                    if r.first_pass_embedded:
                        log.info("first pass: %d chunk(s) with %s", r.first_pass_embedded, r.first_pass_model)
                    if r.embedded:
                        log.info("embedded %d chunk(s), %d pending", r.embedded, r.pending)
                    if r.pending == 0 or r.embedded + r.first_pass_embedded == 0:
                        break
        finally:
            engine.close()

    def _vectors_wanted(self, engine: Engine) -> bool:
        """Embed only when the user chose vectors: a model in the config, or vectors already built."""
        try:
            if engine.config.models.embed:
                return True
            return engine.semantic.status().embedded_chunks > 0
        except GnoError:
            return False
