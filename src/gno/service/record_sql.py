"""Memory records in SQL: insert (versions, conflicts), read, forget (journal), staleness.

Every function takes the `Tx` of the operation and filters by project (or by a workspace that
`tenancy` already proved belongs to the caller's project): this module is where tenant isolation
is enforced for records. Nothing here deletes or overwrites a record: a new version is a new row,
forgetting sets `forgotten_at` and writes the journal, statuses are flags.

Status: `stale` (the source changed since, see `validate_source`) wins over `conflict` (another
active record with the same `fact_key` says something else), else `unverified`.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gno.service.backend import Row, Tx, chunked, placeholders, utcnow
from gno.service.models import GraphRelation, RecordRef, Status

COLUMNS = (
    "seq, id, tenant_id, project_id, workspace_id, workspace, scope, source, source_id, source_hash, "
    "source_revision, fact_key, version, confidence, content, derived_from, stale, conflict, created_at"
)
_COLUMN_NAMES = tuple(name.strip() for name in COLUMNS.split(","))
_INVERSE = {"derived_from": "summarized_by", "same_fact": "same_fact", "similar": "similar"}


@dataclass(frozen=True)
class RecordFields:
    """What a record says and where it comes from: the fields a new record and a stored row share."""

    id: str
    tenant_id: str
    project_id: str
    workspace_id: str
    workspace: str
    scope: str
    source: str
    source_id: str | None
    source_hash: str | None
    source_revision: str | None
    fact_key: str | None
    confidence: float
    content: str
    derived_from: list[str]
    created_at: str


@dataclass(frozen=True)
class MemoryRow(RecordFields):
    """A stored record, as `SELECT {COLUMNS}` reads it."""

    seq: int
    version: int
    stale: bool
    conflict: bool

    @classmethod
    def from_row(cls, r: Row) -> MemoryRow:
        vals: dict[str, Any] = dict(zip(_COLUMN_NAMES, r, strict=True))
        vals["seq"], vals["version"], vals["confidence"] = (
            int(vals["seq"]),
            int(vals["version"]),
            float(vals["confidence"]),
        )
        vals["derived_from"] = json.loads(vals["derived_from"] or "[]")
        vals["stale"], vals["conflict"] = bool(vals["stale"]), bool(vals["conflict"])
        return cls(**vals)

    @property
    def status(self) -> Status:
        return "stale" if self.stale else "conflict" if self.conflict else "unverified"

    def ref(self) -> RecordRef:
        return RecordRef.take(self)


@dataclass(frozen=True)
class NewRecord(RecordFields):
    """A record to insert, with its vector (if any) in the backend's encoding."""

    embed_fp: str | None
    embedding: object | None


def content_hash(content: str) -> str:
    return hashlib.sha256(content.strip().encode("utf-8")).hexdigest()


def visible_ids(tx: Tx, project_id: str, ids: Sequence[str]) -> set[str]:
    """Which of `ids` are active records of `project_id` (another project's ids are invisible)."""
    found: set[str] = set()
    for part in chunked(list(ids)):
        found.update(
            str(r[0])
            for r in tx.execute(
                "SELECT id FROM memories WHERE project_id = ? AND forgotten_at IS NULL "
                f"AND id IN ({placeholders(len(part))})",
                (project_id, *part),
            )
        )
    return found


def count_active(tx: Tx, column: str, value: str) -> int:
    assert column in ("project_id", "workspace_id", "tenant_id")
    return int(tx.execute(f"SELECT COUNT(*) FROM memories WHERE {column} = ? AND forgotten_at IS NULL", (value,))[0][0])


def insert(tx: Tx, rec: NewRecord) -> int:
    """Insert one record as the next version of its fact; mark disagreeing versions `conflict`."""
    chash = content_hash(rec.content)
    version, conflict = 1, False
    if rec.fact_key is not None:
        group = tx.execute(
            "SELECT version, content_hash FROM memories WHERE workspace_id = ? AND fact_key = ?",
            (rec.workspace_id, rec.fact_key),
        )
        version = max((int(v) for v, _ in group), default=0) + 1
        active = set(_active_hashes(tx, rec.workspace_id, rec.fact_key))
        conflict = bool(active - {chash})
    rows = tx.execute(
        "INSERT INTO memories (id, tenant_id, project_id, workspace_id, workspace, scope, source, source_id, "
        "source_hash, source_revision, fact_key, version, confidence, content, content_hash, derived_from, "
        f"conflict, created_at, embed_fp, embedding) VALUES ({placeholders(20)}) RETURNING seq",
        (
            rec.id,
            rec.tenant_id,
            rec.project_id,
            rec.workspace_id,
            rec.workspace,
            rec.scope,
            rec.source,
            rec.source_id,
            rec.source_hash,
            rec.source_revision,
            rec.fact_key,
            version,
            rec.confidence,
            rec.content,
            chash,
            json.dumps(rec.derived_from),
            int(conflict),
            rec.created_at,
            rec.embed_fp,
            rec.embedding,
        ),
    )
    seq = int(rows[0][0])
    tx.index_text(seq, rec.content if rec.fact_key is None else f"{rec.fact_key}\n{rec.content}")
    if conflict:
        tx.execute(
            "UPDATE memories SET conflict = 1 WHERE workspace_id = ? AND fact_key = ? AND forgotten_at IS NULL",
            (rec.workspace_id, rec.fact_key),
        )
    return seq


def _active_hashes(tx: Tx, workspace_id: str, fact_key: str) -> list[str]:
    return [
        str(r[0])
        for r in tx.execute(
            "SELECT content_hash FROM memories WHERE workspace_id = ? AND fact_key = ? AND forgotten_at IS NULL",
            (workspace_id, fact_key),
        )
    ]


def by_seq(tx: Tx, project_id: str, seqs: Sequence[int]) -> dict[int, MemoryRow]:
    out: dict[int, MemoryRow] = {}
    for part in chunked(list(seqs)):
        sql = (
            f"SELECT {COLUMNS} FROM memories WHERE project_id = ? AND forgotten_at IS NULL "
            f"AND seq IN ({placeholders(len(part))})"
        )
        out.update((row.seq, row) for row in map(MemoryRow.from_row, tx.execute(sql, (project_id, *part))))
    return out


def versions(tx: Tx, workspace_id: str, fact_keys: Iterable[str], scope: str | None) -> dict[str, list[MemoryRow]]:
    """Active versions of each fact, newest first."""
    keys = sorted(set(fact_keys))
    out: dict[str, list[MemoryRow]] = defaultdict(list)
    for part in chunked(keys):
        sql = (
            f"SELECT {COLUMNS} FROM memories WHERE workspace_id = ? AND forgotten_at IS NULL "
            f"AND fact_key IN ({placeholders(len(part))})"
        )
        params: list[object] = [workspace_id, *part]
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        for row in map(MemoryRow.from_row, tx.execute(sql + " ORDER BY seq DESC", params)):
            out[str(row.fact_key)].append(row)
    return out


def relations(tx: Tx, ids: Sequence[str]) -> dict[str, list[GraphRelation]]:
    """Archivist edges touching `ids`, seen from each of them (both ends are active records)."""
    out: dict[str, list[GraphRelation]] = defaultdict(list)
    wanted = set(ids)
    for part in chunked(list(ids)):
        ph = placeholders(len(part))
        rows = tx.execute(
            f"SELECT src_id, dst_id, kind, score FROM graph_relations WHERE src_id IN ({ph}) OR dst_id IN ({ph})",
            (*part, *part),
        )
        for src, dst, kind, score in rows:
            if src in wanted:
                out[str(src)].append(GraphRelation(id=str(dst), relation=kind, score=round(float(score), 4)))
            if dst in wanted:
                out[str(dst)].append(
                    GraphRelation(id=str(src), relation=_INVERSE[str(kind)], score=round(float(score), 4))  # type: ignore[arg-type]
                )
    for rels in out.values():
        rels.sort(key=lambda g: (g.relation, -g.score, g.id))
    return out


def find_active(
    tx: Tx, project_id: str, *, memory_id: str | None, source_id: str | None, workspace_id: str | None
) -> list[MemoryRow]:
    sql = f"SELECT {COLUMNS} FROM memories WHERE project_id = ? AND forgotten_at IS NULL"
    params: list[object] = [project_id]
    if memory_id is not None:
        sql += " AND id = ?"
        params.append(memory_id)
    if source_id is not None:
        sql += " AND source_id = ?"
        params.append(source_id)
    if workspace_id is not None:
        sql += " AND workspace_id = ?"
        params.append(workspace_id)
    return [MemoryRow.from_row(r) for r in tx.execute(sql + " ORDER BY seq", params)]


def exists_in_project(tx: Tx, project_id: str, memory_id: str) -> bool:
    return bool(tx.execute("SELECT 1 FROM memories WHERE project_id = ? AND id = ?", (project_id, memory_id)))


def forget_rows(tx: Tx, seqs: Sequence[int], *, key_id: str | None, reason: str, when: str | None = None) -> int:
    """Soft-delete records: journal each, leave search, drop their graph edges, re-check conflicts."""
    when = when or utcnow()
    done = 0
    for part in chunked(list(seqs)):
        ph = placeholders(len(part))
        rows = tx.execute(
            f"SELECT seq, id, tenant_id, project_id, workspace_id, workspace, source_id, fact_key FROM memories "
            f"WHERE forgotten_at IS NULL AND seq IN ({ph})",
            tuple(part),
        )
        if not rows:
            continue
        live = [int(r[0]) for r in rows]
        lp = placeholders(len(live))
        tx.execute(f"UPDATE memories SET forgotten_at = ? WHERE seq IN ({lp})", (when, *live))
        for _, mid, tid, pid, _, ws, sid, _ in rows:
            tx.execute(
                "INSERT INTO forget_journal (tenant_id, project_id, key_id, memory_id, workspace, source_id, reason, "
                "forgotten_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (tid, pid, key_id, mid, ws, sid, reason, when),
            )
        ids = [str(r[1]) for r in rows]
        ip = placeholders(len(ids))
        tx.execute(f"DELETE FROM graph_relations WHERE src_id IN ({ip}) OR dst_id IN ({ip})", (*ids, *ids))
        tx.unindex(live)
        for wid, fk in {(str(r[4]), str(r[7])) for r in rows if r[7] is not None}:
            if len(set(_active_hashes(tx, wid, fk))) <= 1:
                tx.execute(
                    "UPDATE memories SET conflict = 0 WHERE workspace_id = ? AND fact_key = ? AND forgotten_at IS NULL",
                    (wid, fk),
                )
        done += len(live)
    return done


def validate_source(
    tx: Tx, project_id: str, source_id: str, current_hash: str, workspace_id: str | None
) -> tuple[int, int, list[MemoryRow]]:
    """Mark records of `source_id` whose hash differs `stale` (and matching ones fresh again).

    Returns (records with a hash checked, records fresh, every active record of the source).
    """
    where = "project_id = ? AND source_id = ? AND source_hash IS NOT NULL AND forgotten_at IS NULL"
    params: list[object] = [project_id, source_id]
    if workspace_id is not None:
        where += " AND workspace_id = ?"
        params.append(workspace_id)
    tx.execute(
        f"UPDATE memories SET stale = 1 WHERE {where} AND source_hash <> ? AND stale = 0", (*params, current_hash)
    )
    tx.execute(
        f"UPDATE memories SET stale = 0 WHERE {where} AND source_hash = ? AND stale = 1", (*params, current_hash)
    )
    checked, fresh = tx.execute(
        f"SELECT COUNT(*), COALESCE(SUM(CASE WHEN source_hash = ? THEN 1 ELSE 0 END), 0) FROM memories WHERE {where}",
        (current_hash, *params),
    )[0]
    rows = find_active(tx, project_id, memory_id=None, source_id=source_id, workspace_id=workspace_id)
    return int(checked), int(fresh), rows
