"""Reading indexed documents as plain data: one document (`get`), several (`multi-get`), a listing (`ls`).

The engine and a cold CLI process (`gno.cli.cold_read`) compose the same functions: they take
the store and the collections' folders (`roots`: a name's configured path, or an error) and
return records that declare the fields of the result models (`gno.models`), which derive from
them, so `gno.wire.wire` dumps them as the models dump themselves and the CLI's renderers read either.
No pydantic, YAML or typing on this path: a cold `gno get` costs little more than the query.
"""

from __future__ import annotations

from gno.tuples import Record

TYPE_CHECKING = False  # not typing's: a cold read does not import typing
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from gno.store.db import Store

    #: a collection's configured folder by name (raises when the collection is not configured)
    Roots = Callable[[str], str]


class ReturnedLines(Record):
    start: int
    end: int


class Document(Record):
    """One document read (the fields of `gno.models.DocumentResult`)."""

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


class RefFailure(Record):
    ref: str
    code: str
    message: str


class Documents(Record):
    """Several documents read (the fields of `gno.models.MultiGetResult`)."""

    documents: Sequence[Document]
    errors: Sequence[RefFailure]
    truncated: bool = False


class ListEntry(Record):
    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str


class Listing(Record):
    """A page of indexed documents (the fields of `gno.models.LsResult`)."""

    scope: str | None
    entries: Sequence[ListEntry]
    total: int  # documents in scope; `entries` is the page [offset, offset + limit)
    offset: int = 0
    limit: int | None = None


def folder_path(root: str, rel_path: str) -> str:
    """`str(Path(root) / rel_path)` for a configured folder (already normalised by the config) and an
    indexed relative path (clean, posix), without importing pathlib."""
    if root in ("", "."):
        return rel_path
    return root.rstrip("/") + "/" + rel_path if root != "/" else "/" + rel_path


def _invalid(message: str, **details: object) -> Exception:
    from gno.errors import ValidationError

    return ValidationError(message, details=details or None)


def read_document(
    store: Store,
    roots: Roots,
    ref: str,
    *,
    from_line: int | None = None,
    line_count: int | None = None,
    source: bool = False,
) -> Document:
    """A document's markdown (for a converted file, its mirror), or a line range of it; with
    `source`, also the original file's bytes (base64)."""
    from gno.confine import confined_real
    from gno.refs import parse_ref, resolve_ref
    from gno.store import documents as docs

    row = resolve_ref(store, ref)
    root = roots(row.collection)
    confined_real(root, row.rel_path, action="read")
    parsed = parse_ref(ref)
    text = docs.content_of(store, row.mirror_hash) or ""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    if from_line is not None and from_line < 1:
        raise _invalid("`fromLine` must be at least 1")
    start = from_line or parsed.line or 1
    if start < 1:
        raise _invalid("`fromLine` must be at least 1")
    if line_count is not None and line_count < 1:
        raise _invalid("`lineCount` must be at least 1")
    if start > max(len(lines), 1):
        raise _invalid(
            f"line {start} is past the end of {row.uri} ({len(lines)} lines)",
            uri=row.uri,
            line=start,
            totalLines=len(lines),
        )
    end = len(lines) if line_count is None else min(len(lines), start + line_count - 1)
    chunk = lines[start - 1 : end] if start <= len(lines) else []
    path = folder_path(root, row.rel_path)
    raw = None
    if source:
        import base64

        try:
            with open(path, "rb") as fh:
                raw = base64.b64encode(fh.read()).decode("ascii")
        except OSError as exc:
            from gno.errors import NotFoundError

            raise NotFoundError(f"{row.uri}: the file cannot be read ({exc.strerror})") from None
    return Document(
        docid=row.docid,
        uri=row.uri,
        title=row.title,
        collection=row.collection,
        rel_path=row.rel_path,
        abs_path=path,
        source_hash=row.source_hash,
        active=row.active,
        tags=docs.tags_of(store, [row.id])[row.id],
        total_lines=len(lines),
        returned_lines=ReturnedLines(start=start, end=max(start - 1, start - 1 + len(chunk))),
        content="\n".join(chunk),
        source_base64=raw,
        converter=converter_tag(row.rel_path),
    )


def converter_tag(rel_path: str) -> str | None:
    """The tag of the converter a file's mirror came from, or None for markdown and text (whose
    reads never load the converter registry)."""
    from gno.ingest.extensions import NATIVE_EXTENSIONS, extension

    if extension(rel_path) in NATIVE_EXTENSIONS:
        return None
    from gno.ingest.converters import registry

    conv = registry().for_name(rel_path)
    return conv.tag() if conv is not None else None


def read_documents(store: Store, roots: Roots, refs: Sequence[str], *, max_bytes: int = 10240) -> Documents:
    """Several documents, each cut after whole lines at `max_bytes`; a ref that fails is reported beside them."""
    out: list[Document] = []
    errors: list[RefFailure] = []
    truncated = False
    expanded: list[str] = []
    for r in refs:
        expanded.extend(x.strip() for x in r.split(",") if x.strip())
    for ref in expanded:
        try:
            d = read_document(store, roots, ref)
        except Exception as exc:
            from gno.errors import NotFoundError, ValidationError

            if not isinstance(exc, NotFoundError | ValidationError):
                raise
            errors.append(RefFailure(ref=ref, code=str(exc.code), message=exc.message))
            continue
        raw = d.content.encode("utf-8")
        if max_bytes and len(raw) > max_bytes:
            # whole lines when at least one fits, so `returnedLines` says exactly what came back
            cut = raw.rfind(b"\n", 0, max_bytes + 1)
            content = raw[: cut if cut > 0 else max_bytes].decode("utf-8", errors="ignore")
            lines = d.returned_lines._replace(end=d.returned_lines.start + content.count("\n"))
            d = d._replace(content=content, returned_lines=lines)
            truncated = True
        out.append(d)
    return Documents(documents=out, errors=errors, truncated=truncated)


def list_documents(
    store: Store, collection_of: Callable[[str], str], scope: str | None, *, limit: int = 10000, offset: int = 0
) -> Listing:
    """A page of indexed documents: all, a collection (`collection_of` gives its configured name), or
    `gno://collection/prefix`."""
    from gno.store import documents as docs

    coll: str | None = None
    prefix = ""
    if scope:
        from gno.refs import URI_SCHEME, parse_uri

        if scope.startswith(URI_SCHEME):
            coll, prefix = parse_uri(scope)
        else:
            coll, _, prefix = scope.partition("/")
        coll = collection_of(coll)
    if limit < 1:
        raise _invalid("`limit` must be at least 1")
    if offset < 0:
        raise _invalid("`offset` must be 0 or more")
    rows = docs.list_docs(store, coll, prefix, limit, offset)
    entries = [
        ListEntry(docid=r.docid, uri=r.uri, title=r.title, collection=r.collection, rel_path=r.rel_path) for r in rows
    ]
    total = docs.count_docs(store, coll, prefix) if rows or offset else 0
    return Listing(scope=scope, entries=entries, total=total, offset=offset, limit=limit)


class LinkItem(Record):
    uri: str
    docid: str
    title: str
    edge_type: str
    confidence: str
    line: int | None = None
    target_ref: str


class Links(Record):
    """A document's links one way (the fields of `gno.models.LinksResult`)."""

    uri: str
    direction: str  # out | in
    links: Sequence[LinkItem]


def read_links(store: Store, ref: str, *, backlinks: bool = False) -> Links:
    """A document's outgoing links and typed relations, or (`backlinks`) the documents that link to it."""
    from gno.refs import resolve_ref
    from gno.store import documents as docs
    from gno.store import graph as gstore

    row = resolve_ref(store, ref)
    edges = gstore.incoming(store, row.id) if backlinks else gstore.outgoing(store, row.id)
    rows = docs.docs_by_ids(store, [e.source if backlinks else e.target for e in edges])
    items = []
    for e in edges:
        other = rows.get(e.source if backlinks else e.target)
        if other is not None:
            edge = {"edge_type": e.edge_type, "confidence": e.confidence, "target_ref": e.target_ref}
            items.append(LinkItem(uri=other.uri, docid=other.docid, title=other.title, line=e.line, **edge))
    return Links(uri=row.uri, direction="in" if backlinks else "out", links=items)
