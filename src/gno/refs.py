"""Document identity: `docid`, `gno://` URIs and the refs users type.

`docid` = `#` + first 8 hex of the source hash. `uri` = `gno://<collection>/<path>` with each
segment percent-encoded for ASCII characters that are unsafe in a URI (spaces, `#`, `?`, `%`,
…); non-ASCII letters stay readable (an IRI), and readers accept either form. Refs accepted
everywhere: `#docid`, `gno://coll/path[:line]`, `coll/path[:line]`.
"""

from __future__ import annotations

import re

from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold read resolves refs without typing, dataclasses or the error table
if TYPE_CHECKING:
    from gno.store.db import Store
    from gno.store.documents import DocRow

URI_SCHEME = "gno://"
DOCID_RE = re.compile(r"^#([0-9a-fA-F]{6,64})$")
_SAFE_SEGMENT_RE = re.compile(r"[A-Za-z0-9\-_.!~*'()@+,;=&$:]*")
_SAFE_ASCII = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()@+,;=&$:")


def docid_for(source_hash: str) -> str:
    return "#" + source_hash[:8]


def _encode_segment(seg: str) -> str:
    if _SAFE_SEGMENT_RE.fullmatch(seg):
        return seg
    out = []
    for ch in seg:
        if ord(ch) > 127 and ch.isprintable():
            out.append(ch)
        elif ch in _SAFE_ASCII:
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
    return "".join(out)


def make_uri(collection: str, rel_path: str) -> str:
    return URI_SCHEME + collection + "/" + "/".join(_encode_segment(s) for s in rel_path.split("/"))


class Ref(NamedTuple):
    """A parsed reference: by docid, or by collection + relative path (+ optional line)."""

    docid: str | None = None
    collection: str | None = None
    rel_path: str | None = None
    line: int | None = None


def _invalid_ref(message: str) -> Exception:
    from gno.errors import ErrorCode, ValidationError

    return ValidationError(message, code=ErrorCode.INVALID_REF)


def unquote(path: str) -> str:
    """Percent-decoding (`urllib.parse.unquote`), imported only for a path that has any."""
    if "%" not in path:
        return path
    from urllib.parse import unquote as decode

    return decode(path)


def _split_line(s: str) -> tuple[str, int | None]:
    m = re.match(r"^(.*):(\d+)$", s)
    if m and m.group(1):
        return m.group(1), int(m.group(2))
    return s, None


def parse_uri(uri: str) -> tuple[str, str]:
    """`gno://coll/path` → (collection, decoded rel path). The path may be empty."""
    if not uri.startswith(URI_SCHEME):
        raise _invalid_ref(f"not a gno:// URI: {uri!r}")
    rest = uri[len(URI_SCHEME) :].split("?", 1)[0]
    coll, _, path = rest.partition("/")
    if not coll:
        raise _invalid_ref(f"URI has no collection: {uri!r}")
    return coll.lower(), unquote(path)


def parse_ref(ref: str) -> Ref:
    """Parse `#docid`, `gno://coll/path[:N]` or `coll/path[:N]`; raise INVALID_REF otherwise."""
    s = ref.strip()
    if not s:
        raise _invalid_ref("empty document reference")
    m = DOCID_RE.match(s)
    if m:
        return Ref(docid="#" + m.group(1).lower())
    if s.startswith("#"):
        raise _invalid_ref(f"invalid docid {s!r}: expected # followed by at least 6 hex characters")
    s, line = _split_line(s)
    if s.startswith(URI_SCHEME):
        coll, path = parse_uri(s)
    else:
        coll, sep, path = s.partition("/")
        if not sep:
            raise _invalid_ref(f"cannot read ref {ref!r}: use #docid, gno://collection/path or collection/path")
        coll = coll.lower()
    if not path:
        raise _invalid_ref(f"ref {ref!r} names no document path")
    if line is not None and line < 1:
        raise _invalid_ref("line numbers start at 1")
    return Ref(collection=coll, rel_path=path.strip("/"), line=line)


def resolve_ref(store: Store, ref: str, *, allow_inactive: bool = False) -> DocRow:
    """The indexed document a ref names (active first); `allow_inactive` also finds deleted ones (history)."""
    from gno.store import documents as docs

    r = parse_ref(ref)
    if r.docid:
        rows = docs.docs_by_docid(store, r.docid)
    else:
        assert r.collection is not None and r.rel_path is not None
        row = docs.doc_by_path(store, r.collection, r.rel_path)
        rows = [row] if row else []
    rows = [x for x in rows if x.active] or rows
    if not rows or not (rows[0].active or allow_inactive):
        from gno.errors import NotFoundError

        raise NotFoundError(
            f"no indexed document for {ref!r}; check the ref or run `gno update`",
            details={"ref": ref},
        )
    return rows[0]
