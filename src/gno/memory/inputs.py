"""Input validation shared by remember and recall, and fact materialisation from the index.

Every surface validates in one order, so one bad request gets one answer: identity, text/query,
collection, scopes, decision/budget. Every failure is a `MEMORY_*` code from the one error table.
"""

from __future__ import annotations

from gno.memory.limits import MEMORY_MAX_FACT_BYTES
from gno.memory_records import Fact
from gno.store import documents as docs
from gno.store import memory as mstore

TYPE_CHECKING = False  # not typing's: a cold recall validates and materialises facts without typing or pydantic
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gno.config import CollectionConfig, GnoConfig
    from gno.models.memory_results import MemoryRecord
    from gno.store.db import Store


def require_identity(caller: str | None, session: str | None) -> tuple[str, str]:
    c = (caller or "").strip()
    s = (session or "").strip()
    if not c or not s:
        from gno.errors import ErrorCode, ValidationError

        raise ValidationError(
            "memory calls carry a caller and a session (CLI: --caller/--session or $GNO_MEMORY_CALLER/"
            "$GNO_MEMORY_SESSION; REST/SDK: the caller and session fields)",
            code=ErrorCode.MEMORY_IDENTITY_REQUIRED,
        )
    return c, s


def require_text(text: Any) -> str:
    if not isinstance(text, str) or not text.strip() or "\x00" in text:
        from gno.errors import ErrorCode, ValidationError

        raise ValidationError(
            "a fact needs non-empty text (and no NUL characters)", code=ErrorCode.MEMORY_TEXT_REQUIRED
        )
    size = len(text.encode("utf-8"))
    if size > MEMORY_MAX_FACT_BYTES:
        from gno.errors import ErrorCode, ValidationError

        raise ValidationError(
            f"a fact is at most {MEMORY_MAX_FACT_BYTES} bytes (got {size}): this is a document, store it "
            "with `gno capture` instead",
            code=ErrorCode.MEMORY_TEXT_TOO_LARGE,
            details={"bytes": size, "max": MEMORY_MAX_FACT_BYTES},
        )
    return text.strip()


def resolve_collection(cfg: GnoConfig, name: str | None) -> CollectionConfig:
    """The named managed collection, or the only managed one when none is named."""
    from gno.errors import ErrorCode, NotFoundError, ValidationError

    managed = [c for c in cfg.collections if c.memory_managed]
    if not name or not name.strip():
        if len(managed) == 1:
            return managed[0]
        raise ValidationError(
            "name the memory collection (`collection`)"
            + (
                ""
                if managed
                else " (none is configured: add one with `gno collection add <dir> --memory`, or turn an "
                "existing one into memory with `gno collection set <name> --memory`)"
            ),
            code=ErrorCode.MEMORY_COLLECTION_REQUIRED,
            details={"managed": [c.name for c in managed]},
        )
    coll = cfg.collection(name.strip())
    if coll is None:
        raise NotFoundError(
            f"no collection named {name!r}",
            code=ErrorCode.MEMORY_COLLECTION_NOT_FOUND,
            details={"collection": name},
        )
    if not coll.memory_managed:
        raise ValidationError(
            f"collection {coll.name!r} is not memory managed: run `gno collection set {coll.name} --memory` "
            "or name a memory collection",
            code=ErrorCode.MEMORY_COLLECTION_UNMANAGED,
            details={"collection": coll.name},
        )
    return coll


def positive_int(v: Any, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v > 2**53 - 1:
        from gno.errors import ErrorCode, ValidationError

        raise ValidationError(
            f"{name} must be a positive integer", code=ErrorCode.MEMORY_BUDGET_INVALID, details={name: v}
        )
    return v


def facts_of(store: Store, doc_ids: Sequence[int]) -> dict[int, Fact]:
    """Valid fact records for doc ids (invalid or non-fact documents are skipped)."""
    rows = docs.docs_by_ids(store, list(doc_ids))
    recs = mstore.records_for(store, list(doc_ids))
    contents = docs.contents_of(store, (r.mirror_hash for r in rows.values()))
    out: dict[int, Fact] = {}
    for i in doc_ids:
        row, rec = rows.get(i), recs.get(i)
        if row is None or rec is None or not rec["valid"] or not row.active:
            continue
        m = rec["meta"]
        body = "\n".join(contents.get(row.mirror_hash, "").split("\n")[row.body_start_line - 1 :]).strip()
        out[i] = Fact(
            uri=row.uri,
            docid=row.docid,
            record_id=m["recordId"],
            text=body,
            scopes=m["scopes"],
            caller=m["caller"],
            session=m["session"],
            created_at=m["createdAt"],
            content_hash=m["contentHash"],
            supersedes=m.get("supersedes") or [],
            source=m.get("source"),
            valid_from=m.get("validFrom"),
        )
    return out


def materialize(store: Store, doc_ids: Sequence[int]) -> dict[int, MemoryRecord]:
    """`facts_of` as the models remember and a fact's history hand out."""
    from gno.models.memory_results import MemoryRecord
    from gno.wire import fields

    return {i: MemoryRecord.model_validate(fields(f)) for i, f in facts_of(store, doc_ids).items()}
