"""`gno status` as plain data: the collections' counts, ingest problems, memory and vectors.

The engine (`gno.index_status`) and a cold CLI process (`gno.cli.cold_status`) compose the same
function, `read_status`: it takes the store, the configured collections (name, folder, whether
memory-managed) and what the configured models resolve to (`Models`), and returns records that
declare the fields of the result models (`gno.models.StatusResult` and its parts, which derive
from them), so `gno.wire.wire` dumps them as the models dump themselves and the CLI's renderer
reads either.

Resolving the models is what costs: naming the embedding model's fingerprint loads the model
packages (and the static first pass imports numpy). So the engine records what they resolved to
(`gno.model_snapshot`), and the cold path trusts that record only while the config and the
installed packages are those it was made with.
"""

from __future__ import annotations

from gno.tuples import NamedTuple, Record

TYPE_CHECKING = False  # not typing's: a cold status does not import typing
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gno.store.db import Store

#: ingest codes that are errors (`gno.ingest.problems.ERRORS`); any other known code is a warning
ERROR_CODES = frozenset({"READ_FAILED", "PARSE_FAILED", "COLLECTION_PATH_MISSING"})


class Models(NamedTuple):
    """What the configured models resolve to: the embedder's fingerprint (None: it cannot load, and
    `reason` says why), the static first pass's (None: none), and the chunking key."""

    fingerprint: str | None
    reason: str | None
    first_pass: str | None
    chunk_key: str


class Collection(NamedTuple):
    """A configured collection as status reads it."""

    name: str
    path: str
    memory_managed: bool


class IngestErrorInfo(Record):
    collection: str
    rel_path: str
    code: str
    message: str
    occurred_at: str
    severity: str = "error"  # error | warning


class CollectionStatus(Record):
    name: str
    path: str
    path_exists: bool
    memory_managed: bool
    active: int
    inactive: int
    chunks: int
    errors: int
    warnings: int = 0


class MemoryDiagnostic(Record):
    uri: str
    codes: list[str]


class MemoryStatus(Record):
    collections: list[str]
    facts: int
    current: int
    superseded: int
    invalid: int
    diagnostics: Sequence[MemoryDiagnostic]


class VectorStatus(Record):
    model: str | None = None
    embedded_chunks: int = 0
    total_chunks: int = 0
    stale_chunks: int = 0
    pending_documents: int = 0  # active documents not yet chunked and embedded (`gno embed` does it)
    available: bool = False
    reason: str | None = None
    #: the static first pass of a transformer model (`models.firstPass`) and its chunks with vectors
    first_pass_model: str | None = None
    first_pass_chunks: int = 0
    #: whose vectors rank `query` now: `model`, or `first_pass_model` while it covers more chunks
    ranked_by: str | None = None


class StatusResult(Record):
    """`gno status` (the fields of `gno.models.StatusResult`, which derives from it)."""

    index_name: str
    config_path: str
    db_path: str
    db_exists: bool
    size_bytes: int
    collections: Sequence[CollectionStatus]
    documents: int
    chunks: int
    ingest_errors: Sequence[IngestErrorInfo]
    #: true when `next_steps` is empty: every folder present, every chunk embedded for the model
    healthy: bool
    memory: MemoryStatus | None
    vectors: VectorStatus | None
    #: what to run or fix, one line each (e.g. "8 of 328 chunks unembedded — run `gno embed`")
    next_steps: list[str]


def severity(code: str, known: frozenset[str] | None = None) -> str:
    """An ingest code's severity; an unknown code (from an older index) is an error: never hide a problem."""
    if known is None:
        from gno.ingest.problems import IngestCode

        known = frozenset(c.value for c in IngestCode)
    return "error" if code in ERROR_CODES or code not in known else "warning"


def memory_status(store: Store, managed: Sequence[str]) -> MemoryStatus | None:
    """The `Memory:` section: facts of the memory-managed collections, current, superseded, invalid."""
    if not managed:
        return None
    from gno.store import memory as mstore

    counts = mstore.memory_counts(store, list(managed))
    diagnostics = [MemoryDiagnostic(uri=d["uri"], codes=list(d["codes"])) for d in counts["diagnostics"]]
    return MemoryStatus(
        collections=list(managed),
        facts=counts["facts"],
        current=counts["current"],
        superseded=counts["superseded"],
        invalid=counts["invalid"],
        diagnostics=diagnostics,
    )


def vector_status(store: Store, models: Models) -> VectorStatus:
    """Counts of chunks and vectors, and how many documents still wait for `gno embed`."""
    from gno.store import chunks as cstore
    from gno.store import vectors as vstore

    total = vstore.count_chunks(store)
    fp, first_fp = models.fingerprint, models.first_pass
    if fp is None:
        pending = cstore.count_unchunked_documents(store, models.chunk_key)
        return VectorStatus(total_chunks=total, pending_documents=pending, reason=models.reason)
    done = vstore.count_embedded(store, fp)
    first_done = vstore.count_embedded(store, first_fp) if first_fp is not None else 0
    counts = vstore.fingerprints(store)
    stale = sum(n for f, n in counts.items() if f not in (fp, first_fp))
    pending = vstore.count_pending_documents(store, fp, models.chunk_key)
    first_ranks = first_fp is not None and counts.get(first_fp, 0) > counts.get(fp, 0)  # first_pass.ranks
    ranking = first_fp if first_ranks else fp
    reason = None
    if done < total:
        reason = f"{total - done} of {total} chunks unembedded — run `gno embed`"
        if first_ranks:
            reason = (
                f"{done} of {total} chunks have {fp.split(':')[0]} vectors; until they all do, `query` ranks "
                f"with the {str(first_fp).split(':')[0]} first pass re-scored by {fp.split(':')[0]} — `gno embed` "
                "(or a running `gno daemon`) adds the rest"
            )
    elif pending:
        noun = "document" if pending == 1 else "documents"
        reason = f"{pending} {noun} not yet chunked and embedded — run `gno embed`"
    if stale and not done and not first_ranks:
        reason = "stored vectors belong to another model; run `gno embed`"
    available = done > 0 or (first_ranks and first_done > 0)
    ranked_by = ranking if done or first_ranks else None
    return VectorStatus(
        model=fp,
        embedded_chunks=done,
        total_chunks=total,
        stale_chunks=stale,
        pending_documents=pending,
        available=available,
        reason=reason,
        first_pass_model=first_fp,
        first_pass_chunks=first_done,
        ranked_by=ranked_by,
    )


def read_status(
    store: Store,
    *,
    index_name: str,
    config_path: str,
    db_path: str,
    db_exists: bool,
    collections: Sequence[Collection],
    models: Models,
    known_codes: frozenset[str] | None = None,
) -> StatusResult:
    """`gno status`: `db_exists` is whether the index file was there before the store opened it."""
    import os

    from gno.store import documents as docs

    counts = docs.collection_counts(store)
    errs = [(e, severity(e["code"], known_codes)) for e in docs.ingest_errors(store)]
    per_coll: dict[tuple[str, str], int] = {}
    for e, sev in errs:
        key = (e["collection"], sev)
        per_coll[key] = per_coll.get(key, 0) + 1
    colls = []
    for c in collections:
        cnt = counts.get(c.name, {})
        colls.append(
            CollectionStatus(
                name=c.name,
                path=c.path,
                path_exists=os.path.isdir(c.path),
                memory_managed=c.memory_managed,
                active=cnt.get("active", 0),
                inactive=cnt.get("inactive", 0),
                chunks=cnt.get("chunks", 0),
                errors=per_coll.get((c.name, "error"), 0),
                warnings=per_coll.get((c.name, "warning"), 0),
            )
        )
    vectors = vector_status(store, models)
    steps = [
        f"folder {c.path} of collection {c.name} is missing: restore it or run `gno collection remove {c.name}`"
        for c in colls
        if not c.path_exists
    ]
    if vectors.model is not None and vectors.reason:  # a loadable model with chunks left to embed
        steps.append(vectors.reason)
    infos = [
        IngestErrorInfo(
            collection=e["collection"],
            rel_path=e["rel_path"],
            code=e["code"],
            message=e["message"],
            occurred_at=e["occurred_at"],
            severity=sev,
        )
        for e, sev in errs[:200]
    ]
    return StatusResult(
        index_name=index_name,
        config_path=config_path,
        db_path=db_path,
        db_exists=db_exists,
        size_bytes=store.size_bytes(),
        collections=colls,
        documents=sum(c.active for c in colls),
        chunks=sum(c.chunks for c in colls),
        ingest_errors=infos,
        healthy=not steps,
        memory=memory_status(store, [c.name for c in collections if c.memory_managed]),
        vectors=vectors,
        next_steps=steps,
    )
