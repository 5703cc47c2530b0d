"""`gno status`: the index at a glance, per collection, with the next steps that make it healthy.

Counts come from the index (documents, chunks, ingest problems by severity), the memory
collections' facts from `gno.memory.status`, the vectors from the semantic side. A collection
whose folder is gone, or chunks the configured model has not embedded yet, each add a step; with
no step left the index is healthy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gno.index import SemanticIndex
    from gno.models import StatusResult


def index_status(index: SemanticIndex) -> StatusResult:
    from gno.ingest.problems import severity
    from gno.memory.status import memory_status
    from gno.models import CollectionStatus, IngestErrorInfo, StatusResult
    from gno.store import documents as docs

    settings, cfg = index.settings, index.config
    exists = settings.db_path.exists()  # before the store: opening it creates the file
    counts = docs.collection_counts(index.store)
    errs = [{**e, "severity": severity(e["code"])} for e in docs.ingest_errors(index.store)]
    per_coll: dict[tuple[str, str], int] = {}
    for e in errs:
        key = (e["collection"], e["severity"])
        per_coll[key] = per_coll.get(key, 0) + 1
    colls = []
    for c in cfg.collections:
        cnt = counts.get(c.name, {})
        colls.append(
            CollectionStatus(
                name=c.name,
                path=c.path,
                path_exists=c.root.is_dir(),
                memory_managed=c.memory_managed,
                active=cnt.get("active", 0),
                inactive=cnt.get("inactive", 0),
                chunks=cnt.get("chunks", 0),
                errors=per_coll.get((c.name, "error"), 0),
                warnings=per_coll.get((c.name, "warning"), 0),
            )
        )
    vectors = index.semantic.status()
    steps = [
        f"folder {c.path} of collection {c.name} is missing: restore it or run `gno collection remove {c.name}`"
        for c in colls
        if not c.path_exists
    ]
    if vectors.model is not None and vectors.reason:  # a loadable model with chunks left to embed
        steps.append(vectors.reason)
    return StatusResult(
        index_name=settings.index_name,
        config_path=str(settings.config_path),
        db_path=str(settings.db_path),
        db_exists=exists,
        size_bytes=index.store.size_bytes(),
        collections=colls,
        documents=sum(c.active for c in colls),
        chunks=sum(c.chunks for c in colls),
        ingest_errors=[IngestErrorInfo.model_validate(e) for e in errs[:200]],
        healthy=not steps,
        memory=memory_status(index.store, [c for c in cfg.collections if c.memory_managed]),
        vectors=vectors,
        next_steps=steps,
    )
