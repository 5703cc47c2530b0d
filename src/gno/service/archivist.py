"""The archivist: after a write, link the record to related records (`graph_relations`).

Relations: `same_fact` (another active version with the same `fact_key`), `derived_from` (the
record summarises the linked one; seen from the other side as `summarized_by`) and `similar`
(embedding cosine ≥ 0.85 within the workspace). Search shows them per hit.

Why a crash can never lose a record: the record is committed by `remember` before the archivist
hears of it, and relations are *derived* data. A record carries `archived = 0` until its relations
are committed together with `archived = 1`, so a worker that dies mid-way leaves the record
searchable and pending; the next start (or `run_pending()` / `rebuild()`) recomputes it.
Symmetric edges are stored once (smaller id first), so recomputation is idempotent.

Modes: `thread` (a daemon worker fed by a queue; what the server runs), `sync` (inline after each
write; tests), `off` (nothing until `run_pending()`).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time

from gno.service.backend import Backend, Filter, Tx, placeholders, utcnow

log = logging.getLogger("gno.service.archivist")
NEIGHBOURS = 8
MAX_SAME_FACT = 50


class Archivist:
    def __init__(
        self, backend: Backend, *, fingerprint: str | None, threshold: float = 0.85, mode: str = "thread"
    ) -> None:
        if mode not in ("thread", "sync", "off"):
            raise ValueError(f"archivist mode must be thread, sync or off, not {mode!r}")
        self.backend = backend
        self.fingerprint = fingerprint
        self.threshold = threshold
        self.mode = mode
        self._queue: queue.Queue[int | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.failures = 0

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker (thread mode) and queue every record a previous run left pending."""
        if self.mode != "thread" or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="gno-service-archivist", daemon=True)
        self._thread.start()
        for seq in self.pending():
            self._queue.put(seq)

    def stop(self, timeout: float = 10.0) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    def submit(self, seq: int) -> None:
        """Called after a write committed."""
        if self.mode == "sync":
            self._safe_process(seq)
        elif self.mode == "thread" and self._thread is not None:
            self._queue.put(seq)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until the queue is drained (tests, benchmarks); False on timeout."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def _loop(self) -> None:
        while True:
            seq = self._queue.get()
            try:
                if seq is None:
                    return
                self._safe_process(seq)
            finally:
                self._queue.task_done()

    def _safe_process(self, seq: int) -> None:
        try:
            self.process(seq)
        except Exception:  # noqa: BLE001 - the record is safe; it stays pending and is retried later
            self.failures += 1
            log.exception("archivist failed on record seq=%s; it stays pending", seq)

    # -- work -------------------------------------------------------------------------------------

    def pending(self) -> list[int]:
        with self.backend.read() as tx:
            rows = tx.execute("SELECT seq FROM memories WHERE archived = 0 AND forgotten_at IS NULL ORDER BY seq")
        return [int(r[0]) for r in rows]

    def run_pending(self) -> int:
        """Process every pending record now; returns how many were processed."""
        todo = self.pending()
        for seq in todo:
            self._safe_process(seq)
        return len(todo)

    def rebuild(self, project_id: str | None = None) -> int:
        """Drop and recompute every relation (of one project, or all): relations are derived data."""
        with self.backend.write() as tx:
            where, params = ("WHERE project_id = ?", (project_id,)) if project_id else ("", ())
            tx.execute(f"DELETE FROM graph_relations {where}", params)
            tx.execute(f"UPDATE memories SET archived = 0 {where}", params)
        return self.run_pending()

    def process(self, seq: int) -> int:
        """Compute and store the relations of one record; returns the number of edges stored."""
        with self.backend.write() as tx:
            head = tx.execute("SELECT project_id FROM memories WHERE seq = ?", (seq,))
            if not head:
                return 0
            tx.lock(f"project:{head[0][0]}")
            rows = tx.execute(
                "SELECT id, project_id, workspace_id, fact_key, derived_from, embed_fp, embedding, forgotten_at "
                "FROM memories WHERE seq = ?",
                (seq,),
            )
            mid, pid, wid, fact_key, derived_raw, fp, emb, forgotten = rows[0]
            edges: list[tuple[str, str, str, float]] = []
            if forgotten is None:
                edges = self._edges(tx, seq, str(mid), str(pid), str(wid), fact_key, derived_raw, fp, emb)
                now = utcnow()
                for src, dst, kind, score in edges:
                    tx.execute(
                        "INSERT INTO graph_relations (src_id, dst_id, kind, score, project_id, created_at) "
                        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                        (src, dst, kind, score, pid, now),
                    )
            tx.execute("UPDATE memories SET archived = 1 WHERE seq = ?", (seq,))
        return len(edges)

    def _edges(
        self,
        tx: Tx,
        seq: int,
        mid: str,
        pid: str,
        wid: str,
        fact_key: object,
        derived_raw: object,
        fp: object,
        emb: object,
    ) -> list[tuple[str, str, str, float]]:
        edges: list[tuple[str, str, str, float]] = []

        def pair(other: str, kind: str, score: float) -> None:
            a, b = sorted((mid, other))
            edges.append((a, b, kind, score))

        if fact_key is not None:
            for (other,) in tx.execute(
                "SELECT id FROM memories WHERE workspace_id = ? AND fact_key = ? AND forgotten_at IS NULL AND seq <> ? "
                "ORDER BY seq DESC LIMIT ?",
                (wid, fact_key, seq, MAX_SAME_FACT),
            ):
                pair(str(other), "same_fact", 1.0)
        derived = [str(d) for d in json.loads(str(derived_raw or "[]"))]
        if derived:
            live = tx.execute(
                "SELECT id FROM memories WHERE project_id = ? AND forgotten_at IS NULL "
                f"AND id IN ({placeholders(len(derived))})",
                (pid, *derived),
            )
            edges.extend((mid, str(d), "derived_from", 1.0) for (d,) in live)
        vec = tx.decode_vector(emb) if fp is not None and fp == self.fingerprint else None
        if vec is not None:
            near = [
                (s, c)
                for s, c in tx.nearest(vec, Filter(pid, wid), NEIGHBOURS + 1, str(fp))
                if s != seq and c >= self.threshold
            ]
            if near:
                ids: dict[int, str] = dict(
                    tx.execute(
                        f"SELECT seq, id FROM memories WHERE seq IN ({placeholders(len(near))})", [s for s, _ in near]
                    )
                )
                for s, c in near:
                    if s in ids:
                        pair(str(ids[s]), "similar", round(c, 4))
        return edges
