"""Tags: the counts over the index, and `tags add` / `tags rm` as edits of a note's front matter.

A tag edit is an edit (`gno.writes.edit.write_edit`): the file is read, its new bytes are
computed, and they replace the file only if it still has the hash that was read (else
CONFLICT), under the write lease, atomically, then re-indexed; a request ID makes a retry
replay. Only the `tags:` entry of the front matter changes: the entry is rewritten in place as
one flow list (`tags: ["a", "b"]`, the spelling `gno capture` writes), or added at the end of
the front matter, or a front matter block is put before the first line when the note has none.
Every byte from the closing `---` on (the body) is kept as it was, and so is every other
front-matter line. Inline `#tags` live in the body, so `tags rm` cannot remove them: the result
names them (`keptInline`). A converted document (PDF, DOCX, …) is refused, as every edit is.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import TYPE_CHECKING, Any

from pydantic import Field

from gno.confine import confined
from gno.errors import ErrorCode, ValidationError
from gno.ingest.markdown import TAG_VALID_RE, front_matter_close, frontmatter_tags
from gno.models import DocUpdateResult, GnoModel
from gno.refs import resolve_ref
from gno.store import documents as docs
from gno.store.tag_counts import tag_counts
from gno.writes.edit import EditIntent, edit_result, refuse_converted, write_edit

if TYPE_CHECKING:
    from gno.index import IndexWriter
    from gno.store.db import Store

MAX_TAG_CHARS = 100
_KEY_RE = re.compile(r"^tags?\s*:")


class TagCount(GnoModel):
    tag: str
    count: int = Field(description="Active documents with the tag.")
    frontmatter: int = Field(description="Of them, tagged in the front matter (`tags:`).")
    inline: int = Field(description="Of them, tagged only in the body (`#tag`).")


class TagsResult(GnoModel):
    collection: str | None = None
    tags: list[TagCount]


class TagsEditResult(DocUpdateResult):
    """The edit (as `update_doc` reports it) and what happened to the tags."""

    changed: bool
    tags: list[str] = Field(description="The document's tags after the edit (front matter and inline).")
    added: list[str]
    removed: list[str]
    kept_inline: list[str] = Field(
        default_factory=list, description="Tags asked to be removed that stay: they are `#tags` in the body."
    )


def list_tags(store: Store, collection: str | None) -> TagsResult:
    rows = tag_counts(store, collection)
    return TagsResult(
        collection=collection,
        tags=[TagCount(tag=t, count=n, frontmatter=fm, inline=n - fm) for t, n, fm, _ in rows],
    )


def check_tag(raw: str) -> str:
    """The tag as stored (lowercase, NFC, no leading `#`), or TAG_INVALID naming the grammar."""
    t = unicodedata.normalize("NFC", str(raw).strip().lstrip("#")).lower()
    if not t or len(t) > MAX_TAG_CHARS or not TAG_VALID_RE.match(t):
        raise ValidationError(
            f"invalid tag {raw!r}: a tag is lowercase letters, digits, '-', '.', '/' and '_', starting with a "
            f"letter or digit, at most {MAX_TAG_CHARS} characters (e.g. project/alpha)",
            code=ErrorCode.TAG_INVALID,
            details={"tag": raw},
        )
    return t


def edit_tags(
    index: IndexWriter,
    ref: str,
    add: list[str],
    remove: list[str],
    lock_wait: float | None = None,
    request_id: str | None = None,
) -> TagsEditResult:
    adding = list(dict.fromkeys(check_tag(t) for t in add))
    removing = list(dict.fromkeys(check_tag(t) for t in remove))
    if not adding and not removing:
        raise ValidationError("name at least one tag to add or remove", details={"field": "tags"})
    row = resolve_ref(index.store, ref)
    refuse_converted(row.uri, row.rel_path)
    path = confined(index.config.require(row.collection).root, row.rel_path, action="edit")
    try:
        current = path.read_bytes()
    except OSError as exc:
        raise ValidationError(f"{row.uri}: the file cannot be read ({exc.strerror})", details={"uri": row.uri}) from exc
    new, before, after = retag(current, adding, removing, row.uri)
    added = [t for t in after if t not in before]
    removed = [t for t in before if t not in after]
    indexed = docs.tags_of(index.store, [row.id])[row.id]
    kept_inline = [t for t in removing if t in indexed and t not in before]

    def describe(r: DocUpdateResult, changed: bool = True) -> TagsEditResult:
        doc = docs.doc_by_path(index.store, row.collection, row.rel_path)
        tags = docs.tags_of(index.store, [doc.id])[doc.id] if doc is not None else after
        return TagsEditResult(
            **r.model_dump(exclude={"request"}),
            changed=changed,
            tags=tags,
            added=added,
            removed=removed,
            kept_inline=kept_inline,
        )

    expected = hashlib.sha256(current).hexdigest()
    if new == current and request_id is None:
        return describe(edit_result(row, expected, "unchanged"), changed=False)
    intent = {"ref": row.uri, "add": adding, "remove": removing}
    what = EditIntent("document.tags", intent, TagsEditResult, describe)
    return write_edit(index, row.uri, new, expected, what, lock_wait, request_id)


def retag(raw: bytes, add: list[str], remove: list[str], uri: str) -> tuple[bytes, list[str], list[str]]:
    """(new file bytes, front-matter tags before, after): only the `tags:` entry changes."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{uri} is not UTF-8 text; its tags cannot be edited", details={"uri": uri}) from exc
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    lines = text[len(bom) :].splitlines(keepends=True)
    nl = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    close = front_matter_close(lines)
    fm = _load(lines[1:close], uri) if close is not None else {}
    before = frontmatter_tags(fm)
    after = [t for t in before if t not in remove] + [t for t in add if t not in before and t not in remove]
    if after == before:
        return raw, before, after
    entry = [f"tags: [{', '.join(json.dumps(t, ensure_ascii=False) for t in after)}]{nl}"] if after else []
    if close is None:
        new_lines = [f"---{nl}", *entry, f"---{nl}", *lines]
    else:
        head = lines[1:close]
        start, end = _entry_span(head)
        if start is None:
            last = head[-1] if head else ""
            sep = nl if last and not last.endswith(("\n", "\r")) else ""
            head = [*head[:-1], last + sep, *entry] if head else entry
        else:
            head = [*head[:start], *entry, *head[end:]]
        new_lines = [lines[0], *head, *lines[close:]]
        check = _load(head, uri)
        if frontmatter_tags(check) != after or _without_tags(check) != _without_tags(fm):
            raise ValidationError(
                f"{uri}: its front matter's tags entry cannot be rewritten safely (edit it by hand)",
                details={"uri": uri},
            )
    return (bom + "".join(new_lines)).encode("utf-8"), before, after


def _load(lines: list[str], uri: str) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load("".join(lines)) if "".join(lines).strip() else {}
    except yaml.YAMLError as exc:
        raise ValidationError(
            f"{uri}: its front matter is not valid YAML ({exc}); fix it before editing tags", details={"uri": uri}
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValidationError(f"{uri}: its front matter is not a mapping; fix it before editing tags")
    return {str(k): v for k, v in data.items()}


def _entry_span(head: list[str]) -> tuple[int | None, int]:
    """[start, end) of the top-level `tags:` (else `tag:`) entry: its key line and its indented or
    `- item` lines (a trailing blank line is left where it is)."""
    for key in ("tags", "tag"):
        for i, line in enumerate(head):
            if _KEY_RE.match(line) and line.split(":", 1)[0].strip() == key:
                end = i + 1
                while end < len(head) and (head[end][:1] in (" ", "\t", "-") or not head[end].strip()):
                    end += 1
                while end > i + 1 and not head[end - 1].strip():
                    end -= 1
                return i, end
    return None, 0


def _without_tags(fm: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fm.items() if k not in ("tags", "tag")}
