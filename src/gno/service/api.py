"""The four operations of the team memory service: remember, search, forget, validate_memory.

`MemoryService` is the service's engine: HTTP routes and MCP tools authenticate, then make one call
here and dump the returned model. Every operation runs as a `Principal` (one project of one tenant)
and sees nothing outside that project. The order of checks is the contract: `validation.py` lists
it for `remember`; the other operations check, in order: parameters, the account's state for
reads (suspended), the per-minute limits, the workspace (deleted → 410, foreign → 403), the
account's state for writes (read-only), then the records.

Writes pass the Memory Guard first (`gno.guard`): a poisoned record is refused and nothing is
written; secrets in any text field are replaced by `[REDACTED:<rule>:<8 hex>]` and the record is
saved. Embeddings are computed outside the write transaction so writers hold the lock briefly.
"""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING

from gno.errors import ErrorCode
from gno.guard import MemoryGuard
from gno.guard.marker_key import install_key
from gno.service import error_texts as E
from gno.service import idempotency, record_sql, tenancy, validation
from gno.service.archivist import Archivist
from gno.service.backend import Backend, Filter, Tx, utcnow
from gno.service.error_texts import invalid, refuse
from gno.service.models import (
    ForgetParams,
    ForgetResult,
    GraphRelation,
    RememberParams,
    RememberResult,
    SearchHit,
    SearchParams,
    SearchResult,
    ValidateParams,
    ValidateResult,
    VersionRef,
)
from gno.service.ratelimit import Channel, RateLimiter
from gno.service.retrieval import embed_query, hybrid
from gno.service.service_settings import ServiceSettings
from gno.service.tenancy import Principal

if TYPE_CHECKING:
    from gno.embed import Embedder
    from gno.service.backend import Vector

log = logging.getLogger("gno.service")
GUARDED = ("content", "workspace", "scope", "source", "source_id", "source_hash", "source_revision", "fact_key")
#: the parameters a new record stores as they are (after the guard)
STORED = ("scope", "source", "source_id", "source_hash", "source_revision", "fact_key", "content")


class MemoryService:
    """One service instance: a backend, an optional embedder, the guard, limits and the archivist."""

    def __init__(
        self,
        backend: Backend,
        settings: ServiceSettings,
        *,
        embedder: Embedder | None,
        guard: MemoryGuard | None = None,
        rate: RateLimiter | None = None,
    ) -> None:
        self.backend = backend
        self.settings = settings
        self.embedder = embedder
        self.fingerprint = embedder.fingerprint if embedder is not None else None
        self.guard = guard or MemoryGuard(marker_key=install_key(settings.data_dir))
        self.rate = rate or RateLimiter(settings.limits)
        self.archivist = Archivist(
            backend, fingerprint=self.fingerprint, threshold=settings.similarity_threshold, mode=settings.archivist
        )

    def start(self) -> None:
        self.archivist.start()

    def close(self) -> None:
        self.archivist.stop()

    def authenticate(self, raw_key: str | None) -> Principal:
        return tenancy.authenticate(self.backend, raw_key)

    # -- remember ---------------------------------------------------------------------------------

    def remember(
        self, p: Principal, params: RememberParams, *, channel: Channel = "http", idempotency_key: str | None = None
    ) -> RememberResult:
        validation.check_content(params)  # 1-2: size caps before anything that reads the text
        self.rate.check(key_id=p.key_id, project_id=p.project_id, channel=channel)  # 13, moved before the guard
        req_hash = idempotency.request_hash("remember", params.model_dump())
        verdict = self.guard.check({f: getattr(params, f) for f in GUARDED})  # 3
        if verdict.rejected:
            raise refuse(ErrorCode.GUARD_REJECTED, str(verdict.message), verdict.details())
        clean = params.model_copy(update=verdict.fields)
        derived = validation.check_fields(clean)  # 4-7
        vector = self._embed(clean.content)
        with self.backend.write() as tx:
            tx.lock(f"project:{p.project_id}")
            if derived and record_sql.visible_ids(tx, p.project_id, derived) != set(derived):
                raise invalid(E.DERIVED_UNKNOWN)  # 8
            idem = idempotency.check_key(idempotency_key)  # 9
            if idem is not None:
                replay = idempotency.claim(tx, p, clean.workspace, idem, req_hash)  # 10
                if replay is not None:
                    return RememberResult.model_validate(replay)
            self._check_quota(tx, p, clean.workspace)  # 11-12
            ws = tenancy.ensure_workspace(tx, p, clean.workspace)  # 14-15, then created on first use
            tenancy.require_writable(p)  # 17
            rec = record_sql.NewRecord(
                id=str(uuid.uuid4()),
                tenant_id=p.tenant_id,
                project_id=p.project_id,
                workspace_id=ws.id,
                workspace=ws.name,
                **{f: getattr(clean, f) for f in STORED},
                confidence=float(clean.confidence),
                derived_from=derived,
                created_at=utcnow(),
                embed_fp=self.fingerprint if vector is not None else None,
                embedding=tx.encode_vector(vector) if vector is not None else None,
            )
            seq = record_sql.insert(tx, rec)
            result = RememberResult.take(rec)
            if idem is not None:
                idempotency.complete(tx, p, clean.workspace, idem, result.dump())
        self.archivist.submit(seq)
        return result

    def _embed(self, text: str) -> Vector | None:
        if self.embedder is None:
            return None
        try:
            vec: Vector = self.embedder.embed_documents([text])[0]
        except Exception:  # noqa: BLE001 - a broken model degrades the record to lexical search only
            log.exception("embedding failed; the record is stored without a vector")
            return None
        return vec

    def _check_quota(self, tx: Tx, p: Principal, workspace: str) -> None:
        limits = self.settings.limits
        if record_sql.count_active(tx, "project_id", p.project_id) >= limits.project_memories:
            raise refuse(ErrorCode.QUOTA_EXCEEDED, E.PROJECT_MEMORY_LIMIT)
        ws = tx.execute(
            "SELECT id FROM workspaces WHERE tenant_id = ? AND namespace = ?",
            (p.tenant_id, tenancy.namespace(p.project_id, workspace)),
        )
        if ws and record_sql.count_active(tx, "workspace_id", str(ws[0][0])) >= limits.workspace_memories:
            raise refuse(ErrorCode.QUOTA_EXCEEDED, E.WORKSPACE_MEMORY_LIMIT)
        if record_sql.count_active(tx, "tenant_id", p.tenant_id) >= limits.tenant_memories:
            raise refuse(ErrorCode.QUOTA_EXCEEDED, E.TENANT_MEMORY_LIMIT)

    # -- search -----------------------------------------------------------------------------------

    def search(self, p: Principal, params: SearchParams, *, channel: Channel = "http") -> SearchResult:
        validation.check_search(params)
        tenancy.require_readable(p)
        self.rate.check(key_id=p.key_id, project_id=p.project_id, channel=channel)
        qvec = embed_query(self.embedder, params.query)
        with self.backend.read() as tx:
            ws = tenancy.find_workspace(tx, p, params.workspace)
            if ws is None:
                return SearchResult(
                    workspace=params.workspace,
                    query=params.query,
                    mode="hybrid" if qvec is not None else "lexical",
                    count=0,
                    hits=[],
                )
            ranked = hybrid(
                tx,
                params.query,
                qvec,
                Filter(p.project_id, ws.id, params.scope),
                self.fingerprint,
                floor=self.settings.vector_floor,
            )
            rows = record_sql.by_seq(tx, p.project_id, [s for s, _ in ranked.seqs])
            chosen: list[tuple[record_sql.MemoryRow, float]] = []
            seen: set[str] = set()
            for seq, score in ranked.seqs:
                row = rows.get(seq)
                if row is None or (row.fact_key is not None and row.fact_key in seen):
                    continue
                if row.fact_key is not None:
                    seen.add(row.fact_key)
                chosen.append((row, score))
                if len(chosen) == params.limit:
                    break
            groups = record_sql.versions(tx, ws.id, seen, params.scope)
            heads = [(groups[r.fact_key] if r.fact_key is not None else [r], s) for r, s in chosen]
            rels = record_sql.relations(tx, [g[0].id for g, _ in heads])
        hits = [_hit(group, score, rels.get(group[0].id, [])) for group, score in heads]
        return SearchResult(workspace=ws.name, query=params.query, mode=ranked.mode, count=len(hits), hits=hits)

    # -- forget -----------------------------------------------------------------------------------

    def forget(self, p: Principal, params: ForgetParams, *, channel: Channel = "http") -> ForgetResult:
        validation.check_forget(params)
        tenancy.require_readable(p)
        self.rate.check(key_id=p.key_id, project_id=p.project_id, channel=channel)
        memory_id = params.memory_id.strip() if params.memory_id else None
        source_id = params.source_id if memory_id is None else None
        when = utcnow()
        with self.backend.write() as tx:
            tx.lock(f"project:{p.project_id}")
            ws = tenancy.find_workspace(tx, p, params.workspace) if params.workspace is not None else None
            tenancy.require_writable(p)
            found = (
                []
                if params.workspace is not None and ws is None
                else record_sql.find_active(
                    tx, p.project_id, memory_id=memory_id, source_id=source_id, workspace_id=ws.id if ws else None
                )
            )
            if memory_id is not None and not found and not record_sql.exists_in_project(tx, p.project_id, memory_id):
                raise refuse(ErrorCode.NOT_FOUND, E.MEMORY_NOT_FOUND)
            reason = "memory_id" if memory_id is not None else "source_id"
            record_sql.forget_rows(tx, [r.seq for r in found], key_id=p.key_id, reason=reason, when=when)
        ids = sorted(r.id for r in found)
        return ForgetResult(forgotten=ids, count=len(ids), forgotten_at=when)

    # -- validate_memory --------------------------------------------------------------------------

    def validate_memory(self, p: Principal, params: ValidateParams, *, channel: Channel = "http") -> ValidateResult:
        validation.check_validate(params)
        tenancy.require_readable(p)
        self.rate.check(key_id=p.key_id, project_id=p.project_id, channel=channel)
        with self.backend.write() as tx:
            tx.lock(f"project:{p.project_id}")
            ws = tenancy.find_workspace(tx, p, params.workspace) if params.workspace is not None else None
            tenancy.require_writable(p)
            rows: list[record_sql.MemoryRow] = []
            if params.workspace is not None and ws is None:
                checked, fresh = 0, 0
            else:
                checked, fresh, rows = record_sql.validate_source(
                    tx, p.project_id, params.source_id, params.current_source_hash, ws.id if ws else None
                )
        return ValidateResult(
            source_id=params.source_id,
            current_source_hash=params.current_source_hash,
            checked=checked,
            fresh=fresh,
            stale=[r.ref() for r in rows if r.stale],
            conflicts=[r.ref() for r in rows if r.conflict],
        )


def _hit(group: list[record_sql.MemoryRow], score: float, rels: list[GraphRelation]) -> SearchHit:
    versions = [VersionRef.take(v) for v in group[1:]]
    return SearchHit.take(group[0], score=score, versions=versions, graph_relations=rels)
