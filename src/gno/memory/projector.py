"""Keeps the memory projection (records, scopes) in step with ingestion.

Only memory-managed collections are projected, and only files that are fact records (under
`facts/` or carrying a `memory` front-matter block). Scopes are indexed only for valid
records, so invalid files drop out of recall while staying searchable documents.
"""

from __future__ import annotations

from typing import Any

from gno.ingest.markdown import ParsedDoc
from gno.ingest.walker import CollectionSpec
from gno.memory.limits import MEMORY_FRONTMATTER_KEY
from gno.memory.records import check_record
from gno.refs import parse_uri
from gno.store import memory as mstore


def is_fact_candidate(rel_path: str, parsed: ParsedDoc) -> bool:
    return rel_path.startswith("facts/") or bool(parsed.frontmatter and MEMORY_FRONTMATTER_KEY in parsed.frontmatter)


class MemoryProjector:
    def project(self, conn: Any, doc_id: int, coll: CollectionSpec, parsed: ParsedDoc, uri: str) -> None:
        _, rel = parse_uri(uri)
        if not coll.memory_managed or not is_fact_candidate(rel, parsed):
            mstore.drop_record(conn, doc_id)
            return
        chk = check_record(parsed.frontmatter if parsed.frontmatter_error is None else None, parsed.body)
        if parsed.frontmatter_error is not None:
            chk.diagnostics = ["MEMORY_FRONTMATTER_INVALID"]
        mstore.put_record(
            conn, doc_id, chk.record_id, chk.content_hash, chk.valid, chk.diagnostics, chk.meta, chk.scopes
        )

    def retract(self, conn: Any, doc_id: int) -> None:
        mstore.drop_record(conn, doc_id)


def projectors() -> list[MemoryProjector]:
    """What every sync projects besides the documents: the fact files of memory collections as records
    (the engine's syncs and a cold `gno update` alike)."""
    return [MemoryProjector()]
