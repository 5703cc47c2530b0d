"""Results of reading and writing documents: get, multi-get, ls, capture and edit."""

from __future__ import annotations

from gno import doc_reads
from gno.models.common import GnoModel, RequestInfo


class ReturnedLines(GnoModel, doc_reads.ReturnedLines):
    pass


class DocumentResult(GnoModel, doc_reads.Document):
    returned_lines: ReturnedLines

    def source_bytes(self) -> bytes:
        """The original file's bytes (a `get` with `source=True`)."""
        import base64

        return base64.b64decode(self.source_base64 or "")


class RefError(GnoModel, doc_reads.RefFailure):
    pass


class MultiGetResult(GnoModel, doc_reads.Documents):
    documents: list[DocumentResult]
    errors: list[RefError]


class LsEntry(GnoModel, doc_reads.ListEntry):
    pass


class LsResult(GnoModel, doc_reads.Listing):
    entries: list[LsEntry]


class CaptureSource(GnoModel):
    kind: str = "direct"
    url: str | None = None
    title: str | None = None
    author: str | None = None
    date: str | None = None


class CaptureResult(GnoModel):
    outcome: str  # created | opened_existing
    uri: str
    docid: str
    collection: str
    rel_path: str
    abs_path: str
    title: str
    source_hash: str
    sync: dict[str, str]
    request: RequestInfo | None = None


class DocUpdateResult(GnoModel):
    uri: str
    docid: str
    source_hash: str
    previous_source_hash: str
    title: str
    sync: dict[str, str]
    request: RequestInfo | None = None
