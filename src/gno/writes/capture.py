"""`capture`: create a genuinely new note with provenance (never an update API).

Default path `inbox/<YYYY-MM-DD>/capture-<first 12 hex of the body hash>.md` (UTC), or
`<folder>/<slug of title>.md` when a title is given. The note is created exclusively (two
writers can never both create it), under the write lease, and synced before returning, so the
receipt's URI is retrievable at once. Collision policies: `error` (DUPLICATE), `open_existing`
(return the note already there), `create_with_suffix` (`-2`, `-3`, …). A target whose real
path leaves the collection (through a symlinked folder) is refused before anything is made.
With a request ID the capture happens at most once however often it is retried (`gno.ledger`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gno.confine import confined
from gno.errors import ErrorCode, RuntimeFailure, ValidationError, make_error
from gno.fsio import exclusive_create
from gno.index import sync_written
from gno.ingest.walker import Matcher
from gno.ledger import RequestPointer, file_state, maybe_lease
from gno.models import CaptureResult, CaptureSource
from gno.store import documents as docs

if TYPE_CHECKING:
    from gno.config import CollectionConfig, GnoConfig
    from gno.index import IndexWriter
    from gno.ledger import Tracked

SOURCE_KINDS = ("direct", "web", "email", "meeting", "chat", "file", "api", "unknown")
COLLISION_POLICIES = ("error", "open_existing", "create_with_suffix")
MAX_CAPTURE_BYTES = 5 * 1024 * 1024


@dataclass
class CaptureRequest:
    content: Any
    collection: str | None = None
    title: str | None = None
    path: str | None = None
    folder: str | None = None
    tags: list[str] = field(default_factory=list)
    source: CaptureSource | None = None
    collision_policy: str = "error"
    caller: str | None = None
    lock_wait: float | None = None
    request_id: str | None = None


def slugify(text: str) -> str:
    s = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s[:80] or "note"


def _safe_rel(path: str) -> str:
    p = path.strip().replace("\\", "/").strip("/")
    parts = [x for x in p.split("/") if x not in ("", ".")]
    if not parts or any(x == ".." or x.startswith(".") or "\x00" in x for x in parts):
        raise ValidationError(
            f"invalid note path {path!r}: a relative path inside the collection, no '..' (nor a NUL byte)",
            details={"path": path},
        )
    rel = "/".join(parts)
    return rel if rel.lower().endswith((".md", ".markdown")) else rel + ".md"


def _pick_collection(config: GnoConfig, name: str | None) -> CollectionConfig:
    if name:
        return config.require(name)
    plain = [c for c in config.collections if not c.memory_managed]
    if len(plain) == 1:
        return plain[0]
    raise ValidationError(
        "name the collection to capture into (`collection`)",
        details={"collections": [c.name for c in config.collections]},
    )


def _frontmatter(req: CaptureRequest, title: str | None, at: str) -> str:
    lines = ["---"]
    if title:
        lines.append(f"title: {json.dumps(title, ensure_ascii=False)}")
    if req.tags:
        lines.append("tags: [" + ", ".join(json.dumps(t, ensure_ascii=False) for t in req.tags) + "]")
    src = req.source or CaptureSource(kind="direct")
    lines.append("source:")
    for key, val in src.dump().items():
        lines.append(f"  {key}: {json.dumps(val, ensure_ascii=False)}")
    lines.append("captured:")
    lines.append(f"  at: {json.dumps(at)}")
    if req.caller:
        lines.append(f"  by: {json.dumps(req.caller, ensure_ascii=False)}")
    lines.append("---")
    return "\n".join(lines) + "\n\n"


def capture(index: IndexWriter, req: CaptureRequest) -> CaptureResult:
    if not isinstance(req.content, str) or not req.content.strip():
        raise ValidationError("capture needs `content`: the note's text")
    if len(req.content.encode("utf-8")) > MAX_CAPTURE_BYTES:
        raise ValidationError(f"capture content is over {MAX_CAPTURE_BYTES} bytes")
    if "\x00" in req.content:
        # the indexer treats a NUL byte as a binary file and would skip the new note
        raise ValidationError(
            "capture content contains a NUL byte (U+0000); notes are text", details={"field": "content"}
        )
    if req.collision_policy not in COLLISION_POLICIES:
        raise ValidationError(f"collision policy must be one of {', '.join(COLLISION_POLICIES)}")
    if req.source is not None and req.source.kind not in SOURCE_KINDS:
        raise ValidationError(f"source kind must be one of {', '.join(SOURCE_KINDS)}")
    coll = _pick_collection(index.config, req.collection)
    title = req.title.strip() if req.title and req.title.strip() else None
    now = datetime.now(UTC)
    at = now.isoformat(timespec="seconds").replace("+00:00", "Z")
    body = req.content.strip() + "\n"
    if req.path:
        rel = _safe_rel(req.path)
    else:
        folder = _safe_rel(req.folder).removesuffix(".md") if req.folder else f"inbox/{now:%Y-%m-%d}"
        name = slugify(title) if title else "capture-" + hashlib.sha256(body.encode()).hexdigest()[:12]
        rel = f"{folder}/{name}.md"
    if not Matcher(coll).matches(rel):
        # written there, the note would never be indexed (nor found by a later `gno update`)
        raise ValidationError(
            f"{coll.name}/{rel} is not a file of collection {coll.name}: its pattern {coll.pattern!r}, "
            f"include or exclude ({', '.join(coll.exclude) or 'none'}) leave it out; choose another "
            "--path or --folder",
            details={"field": "path", "collection": coll.name, "path": rel},
        )
    data = (_frontmatter(req, title, at) + body).encode("utf-8")
    tracked = None
    if req.request_id is not None:
        intent = {
            "collection": coll.name,
            "path": req.path,
            "folder": req.folder,
            "title": title,
            "tags": list(req.tags),
            "source": (req.source or CaptureSource(kind="direct")).dump(),
            "collisionPolicy": req.collision_policy,
            "contentSha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
        }
        tracked = index.requests.track(req.request_id, "capture", intent)
        if (done := tracked.replay()) is not None:
            return CaptureResult.model_validate(done)
    with maybe_lease(tracked, index.lease(req.lock_wait)):
        if tracked is not None:
            if (done := tracked.replay()) is not None:
                return CaptureResult.model_validate(done)
            plan = tracked.interrupted_plan()
            if plan is not None:
                if file_state(confined(coll.root, plan["relPath"], action="capture into"), plan["sha256"]) == "landed":
                    return _committed(tracked, _indexed(index, coll, plan["relPath"], "created"), replayed=True)
                tracked.forget()
        target, outcome = rel, "created"
        n = 1
        while True:
            path = coll.root / target
            try:
                # a folder symlink on the way must not carry the note out of the collection
                dest = confined(coll.root, target, action="capture into")
                if tracked is not None and not os.path.lexists(dest):
                    tracked.plan({"relPath": target, "sha256": hashlib.sha256(data).hexdigest()})
                exclusive_create(dest, data)
                break
            except FileExistsError:
                if req.collision_policy == "error":
                    raise make_error(
                        ErrorCode.DUPLICATE,
                        f"{coll.name}/{target} already exists; choose another --path or "
                        "--collision-policy open_existing|create_with_suffix",
                        {"uri": f"gno://{coll.name}/{target}"},
                    ) from None
                if req.collision_policy == "open_existing":
                    outcome = "opened_existing"
                    break
                n += 1
                stem = rel[: -len(".md")] if rel.endswith(".md") else rel
                target = f"{stem}-{n}.md"
            except OSError as exc:
                raise RuntimeFailure(f"cannot write {path}: {exc}") from exc
        result = _indexed(index, coll, target, outcome)
        return result if tracked is None else _committed(tracked, result)


def _indexed(index: IndexWriter, coll: CollectionConfig, target: str, outcome: str) -> CaptureResult:
    """Index the note just written (the caller holds the lease) and describe it."""
    path = coll.root / target
    sync_written(index, coll, target, "note written to", ErrorCode.CAPTURE_SYNC_FAILED)
    row = docs.doc_by_path(index.store, coll.name, target)
    if row is None or not row.active:
        raise RuntimeFailure(
            f"note written to {path} but it is not indexed; run `gno update`",
            code=ErrorCode.CAPTURE_SYNC_FAILED,
            details={"absPath": str(path)},
        )
    return CaptureResult(
        outcome=outcome,
        uri=row.uri,
        docid=row.docid,
        collection=coll.name,
        rel_path=target,
        abs_path=str(path),
        title=row.title,
        source_hash=row.source_hash,
        sync={"status": "completed"},
    )


def _committed(tracked: Tracked, result: CaptureResult, *, replayed: bool = False) -> CaptureResult:
    pointer = RequestPointer(uri=result.uri, docid=result.docid, source_hash=result.source_hash)
    return CaptureResult.model_validate(tracked.commit(result, pointer, replayed=replayed))
