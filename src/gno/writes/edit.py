"""`edit`: replace an existing note's content, refusing lost updates.

The caller presents the `sourceHash` it read; under the write lease the file's current bytes
are hashed, and a mismatch is a CONFLICT (409) carrying the current hash, so a concurrent change
is shown instead of overwritten. The write is atomic (temp file, fsync, rename) and re-indexed
before the response. It goes to the file's real path (an in-root symlink stays a link and its
target gets the bytes), keeps the file's permission bits, and is refused when that real path
leaves the collection. With a request ID a retried edit is applied at most once (`gno.ledger`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar

from gno.confine import confined
from gno.errors import ErrorCode, NotFoundError, RuntimeFailure, ValidationError, make_error
from gno.fsio import atomic_write_bytes
from gno.index import sync_written
from gno.ingest.converters import NATIVE_EXTENSIONS, extension
from gno.ledger import RequestPointer, file_state, maybe_lease
from gno.models import DocUpdateResult, GnoModel
from gno.refs import resolve_ref
from gno.store import documents as docs

if TYPE_CHECKING:
    from gno.config import CollectionConfig
    from gno.index import IndexWriter
    from gno.ledger import Operation, Tracked
    from gno.store.db import Store

    class WriteOptions(TypedDict, total=False):
        """How `update_doc` waits for the write lease and the request ID it runs under."""

        lock_wait: float | None
        request_id: str | None


R = TypeVar("R", bound=GnoModel)


def update_doc(
    index: IndexWriter,
    ref: str,
    content: Any,
    expected_source_hash: Any,
    lock_wait: float | None = None,
    request_id: str | None = None,
) -> DocUpdateResult:
    if not isinstance(content, str):
        raise ValidationError("content must be a string")
    if "\x00" in content:
        # the indexer treats a NUL byte as a binary file: the saved note would drop out of the index
        raise ValidationError("content contains a NUL byte (U+0000); notes are text", details={"field": "content"})
    if not isinstance(expected_source_hash, str) or len(expected_source_hash.strip()) != 64:
        raise ValidationError(
            "expectedSourceHash (the sourceHash you read, 64 hex) is required",
            details={"field": "expectedSourceHash"},
        )
    expected = expected_source_hash.strip().lower()
    data = content.encode("utf-8")
    intent = {"ref": ref.strip(), "expectedSourceHash": expected, "contentSha256": hashlib.sha256(data).hexdigest()}
    return write_edit(
        index, ref, data, expected, EditIntent("document.update", intent, DocUpdateResult, _same), lock_wait, request_id
    )


def _same(r: DocUpdateResult) -> DocUpdateResult:
    return r


@dataclass(frozen=True)
class EditIntent(Generic[R]):
    """What an edit is, for the request ledger (`operation`, `intent`: a retry with the same ID must
    state the same), and the result it answers with: `describe` turns the re-indexed document into
    it, `model` reads it back from the ledger on a replay."""

    operation: Operation
    intent: dict[str, Any]
    model: type[R]
    describe: Callable[[DocUpdateResult], R]


def write_edit(
    index: IndexWriter,
    ref: str,
    data: bytes,
    expected: str,
    what: EditIntent[R],
    lock_wait: float | None = None,
    request_id: str | None = None,
) -> R:
    """Replace the note `ref` names with `data` if its file still hashes to `expected` (else CONFLICT):
    under the write lease, atomically, then re-indexed; at most once per request ID."""
    new_hash = hashlib.sha256(data).hexdigest()
    tracked = None
    if request_id is not None:
        tracked = index.requests.track(request_id, what.operation, what.intent)
        if (done := tracked.replay()) is not None:
            return what.model.model_validate(done)
    row = _resolve_for_edit(index.store, ref)
    refuse_converted(row.uri, row.rel_path)
    coll = index.config.require(row.collection)
    with maybe_lease(tracked, index.lease(lock_wait)):
        path = confined(coll.root, row.rel_path, action="edit")
        if tracked is not None:
            if (done := tracked.replay()) is not None:
                return what.model.model_validate(done)
            if tracked.interrupted_plan() is not None:
                if file_state(path, new_hash, before=expected) == "landed":
                    result = what.describe(_indexed(index, coll, row.rel_path, expected))
                    return _committed(tracked, what, result, replayed=True)
                tracked.forget()
        try:
            current = path.read_bytes()
        except OSError as exc:
            raise make_error(ErrorCode.NOT_FOUND, f"{path} cannot be read: {exc}", {"uri": row.uri}) from exc
        current_hash = hashlib.sha256(current).hexdigest()
        if current_hash != expected:
            raise make_error(
                ErrorCode.CONFLICT,
                f"{row.uri} changed since it was read; reload it and apply your edit again",
                {
                    "uri": row.uri,
                    "expectedSourceHash": expected,
                    "currentSourceHash": current_hash,
                },
            )
        if tracked is not None:
            tracked.plan({"relPath": row.rel_path, "sha256": new_hash, "before": expected})
        try:
            atomic_write_bytes(path, data)
        except OSError as exc:
            raise RuntimeFailure(f"cannot write {path}: {exc}") from exc
        result = what.describe(_indexed(index, coll, row.rel_path, current_hash))
        return result if tracked is None else _committed(tracked, what, result)


def refuse_converted(uri: str, rel_path: str) -> None:
    """An edit writes markdown to the file itself, so a document converted from another format
    (a PDF, a deck, source code) is refused: its mirror is not the file, and saving it would
    overwrite the original bytes with markdown."""
    suffix = extension(rel_path)
    if suffix and suffix not in NATIVE_EXTENSIONS:
        raise ValidationError(
            f"{uri} is converted from a {suffix} file and cannot be edited here (gno edits markdown and text "
            "notes); change the original in its own application and run `gno update`",
            details={"uri": uri, "field": "ref"},
        )


def _indexed(index: IndexWriter, coll: CollectionConfig, rel_path: str, previous: str) -> DocUpdateResult:
    """Index the note just saved (the caller holds the lease) and describe it."""
    sync_written(index, coll, rel_path, "saved", ErrorCode.RUNTIME)
    new = docs.doc_by_path(index.store, coll.name, rel_path)
    assert new is not None
    return edit_result(new, previous, "completed")


def edit_result(row: docs.DocRow, previous: str, status: str) -> DocUpdateResult:
    """What an edit reports of the document `row` now is (`status`: completed, or unchanged)."""
    return DocUpdateResult(
        uri=row.uri,
        docid=row.docid,
        source_hash=row.source_hash,
        previous_source_hash=previous,
        title=row.title,
        sync={"status": status},
    )


def _committed(tracked: Tracked, what: EditIntent[R], result: R, *, replayed: bool = False) -> R:
    uri, docid, source_hash = (getattr(result, k) for k in ("uri", "docid", "source_hash"))
    pointer = RequestPointer(uri=uri, docid=docid, source_hash=source_hash)
    return what.model.model_validate(tracked.commit(result, pointer, replayed=replayed))


def _resolve_for_edit(store: Store, ref: str) -> docs.DocRow:
    """The document to edit; a docid the document had before its last change still names it.

    A docid follows the content, so a writer holding an old docid raced another writer: that
    is a CONFLICT to report with the current hash, not a missing document.
    """
    try:
        return resolve_ref(store, ref)
    except NotFoundError:
        if not ref.strip().startswith("#"):
            raise
        doc_id = docs.doc_id_by_past_docid(store, ref.strip().lower())
        row = docs.doc_by_id(store, doc_id) if doc_id is not None else None
        if row is None or not row.active:
            raise
        return row
