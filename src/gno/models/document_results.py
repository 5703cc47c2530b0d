"""Results of reading and writing documents: get, multi-get, ls, capture and edit."""

from __future__ import annotations

from gno.models.common import GnoModel, RequestInfo


class ReturnedLines(GnoModel):
    start: int
    end: int


class DocumentResult(GnoModel):
    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str
    abs_path: str
    source_hash: str
    active: bool
    tags: list[str]
    total_lines: int
    returned_lines: ReturnedLines
    content: str
    #: the original file, base64 (only when asked with `source`): the PDF behind a converted mirror
    source_base64: str | None = None
    #: set when the content is a markdown mirror converted from another format (`id@version+libraries`)
    converter: str | None = None

    def source_bytes(self) -> bytes:
        """The original file's bytes (a `get` with `source=True`)."""
        import base64

        return base64.b64decode(self.source_base64 or "")


class RefError(GnoModel):
    ref: str
    code: str
    message: str


class MultiGetResult(GnoModel):
    documents: list[DocumentResult]
    errors: list[RefError]
    truncated: bool = False


class LsEntry(GnoModel):
    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str


class LsResult(GnoModel):
    scope: str | None
    entries: list[LsEntry]
    total: int  # documents in scope; `entries` is the page [offset, offset + limit)
    offset: int = 0
    limit: int | None = None


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
