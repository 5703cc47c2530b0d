"""`collection rename OLD NEW`: a new name for a collection without re-reading its files.

Under the write lease, in one index transaction: every row of OLD moves to NEW (`gno://OLD/…`
URIs become `gno://NEW/…`, docids stay: they follow the bytes), the journal's events follow and
one `rename` event per document records the move (`gno.store.collection_rename`); `index.yml` is rewritten
atomically with the collection's entry renamed (its folder, patterns and `memoryManaged` flag
unchanged) and its context hints' scopes (`old:`, `gno://old/…`) following, before the transaction
commits, so a failed write leaves both as they were.

References follow where gno owns the file: a memory fact whose front matter names a
`gno://OLD/…` URI (`relations.supersedes`) gets the new URI in its front matter (body, and so
its contentHash, untouched) and is re-indexed, so supersession chains hold and a rebuild from
the files gives the same index. Notes of ordinary collections are the user's: one whose
front matter still names `gno://OLD/…` is listed in `staleReferences`, never rewritten. The
request ledger's kept outcomes follow too, so a retried request ID replays URIs that resolve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pydantic import Field

from gno.config import COLLECTION_NAME_RE, load_config, save_config
from gno.confine import confined
from gno.errors import ConflictError, ErrorCode, GnoError, ValidationError
from gno.fsio import atomic_write_bytes
from gno.index import IndexWriter, sync_written
from gno.ingest.markdown import FRONT_MATTER_MAX_LINES, front_matter_close
from gno.models import GnoModel
from gno.store import collection_rename as rstore
from gno.store.requests import LedgerDb

if TYPE_CHECKING:
    from gno.config import GnoConfig
    from gno.settings import Settings


class CollectionRenamed(GnoModel):
    old_name: str
    new_name: str
    documents: int = Field(description="Index rows moved to the new name (no file was read).")
    journal_events: int = Field(description="Past journal events rewritten to the new URIs.")
    rewritten_facts: list[str] = Field(
        default_factory=list, description="Memory facts whose front matter now names the new URIs."
    )
    stale_references: list[str] = Field(
        default_factory=list, description="Notes whose front matter `relations:` still name gno://OLD/… URIs."
    )
    memory_managed: bool
    contexts: int = Field(0, description="Context hints of the collection whose scope now names the new name.")
    request_outcomes: int = Field(
        0, description="Kept outcomes of request IDs whose URIs now name the new name (a retry replays those)."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="What the rename could not carry along (it is done all the same), each with its fix.",
    )


class RenameHost(IndexWriter, Protocol):
    @property
    def settings(self) -> Settings: ...


def checked_new_name(name: str) -> str:
    cname = name.strip().lower()
    if not COLLECTION_NAME_RE.match(cname):
        raise ValidationError(
            f"invalid collection name {name!r}: use lowercase letters, digits, '_' and '-' (at most 64, "
            "starting with a letter or digit)",
            details={"collection": name, "field": "newName"},
        )
    return cname


def rename_collection(host: RenameHost, old: str, new: str, lock_wait: float | None = None) -> CollectionRenamed:
    from gno.ingest.sync import now_iso

    target = checked_new_name(new)
    host.config.require(old)  # COLLECTION_NOT_FOUND before waiting for the lease
    with host.lease(lock_wait):
        cfg = load_config(host.settings)  # the file as it is now, under the lease
        coll = cfg.require(old)
        if target == coll.name:
            raise ValidationError(f"collection {coll.name!r} already has that name", details={"collection": old})
        if cfg.collection(target) is not None:
            raise ConflictError(
                f"a collection named {target!r} already exists; pick another name",
                code=ErrorCode.COLLECTION_EXISTS,
                details={"collection": target},
            )
        store = host.store
        if rstore.leftover_rows(store, target):
            raise ConflictError(
                f"the index still holds documents of a removed collection {target!r}; run `gno update --prune` "
                "first, or pick another name",
                code=ErrorCode.COLLECTION_EXISTS,
                details={"collection": target},
            )
        renamed = coll.model_copy(update={"name": target})
        cfg.collections = [renamed if c.name == coll.name else c for c in cfg.collections]
        hints = _renamed_hints(cfg, coll.name, target)
        with store.write() as conn:
            moved, events = rstore.rename_rows(conn, coll.name, target, now_iso())
            save_config(host.settings, cfg)  # inside the transaction: a failed save rolls the rows back
        facts, stale = _follow_references(host, coll.name, target)
        outcomes, warnings = _follow_ledger(host, coll.name, target, now_iso())
    return CollectionRenamed(
        old_name=coll.name,
        new_name=target,
        documents=moved,
        journal_events=events,
        rewritten_facts=facts,
        stale_references=stale,
        memory_managed=renamed.memory_managed,
        contexts=hints,
        request_outcomes=outcomes,
        warnings=warnings,
    )


def _follow_ledger(host: RenameHost, old: str, new: str, at: str) -> tuple[int, list[str]]:
    """Point the request ledger's kept outcomes at `new`: (how many moved, warnings).

    The index and the config are renamed by then, so an unusable ledger file must not report the
    rename as failed: it becomes a warning that names the fix, and only replays of requests made
    before the rename (which would name gno://OLD/ URIs) are affected."""
    try:
        return LedgerDb(host.settings.requests_path).rename_collection(old, new, at), []
    except GnoError as err:
        if err.code != ErrorCode.REQUEST_LEDGER_UNAVAILABLE:
            raise
        path = err.details.get("path", host.settings.requests_path)
        return 0, [
            f"request ledger {path} cannot be used ({err.code}): the rename is done, but a retry of a "
            f"request made before it may replay gno://{old}/ URIs; move the ledger aside to start a new one"
        ]


def _renamed_hints(cfg: GnoConfig, old: str, new: str) -> int:
    """Point the context hints scoped to `old` (`old:`, `gno://old/…`) at `new`; how many moved."""
    moved = 0
    out = []
    for h in cfg.contexts:
        if h.collection == old:
            key = f"{new}:" if h.scope_type == "collection" else f"gno://{new}" + h.scope_key[len(f"gno://{old}") :]
            h = h.model_copy(update={"scope_key": key})
            moved += 1
        out.append(h)
    cfg.contexts = out
    return moved


def _follow_references(host: RenameHost, old: str, new: str) -> tuple[list[str], list[str]]:
    """Rewrite `gno://OLD/` in the front matter of memory facts (the caller holds the lease) and
    re-index them; list the ordinary notes that still name it."""
    cfg = load_config(host.settings)
    before, after = f"gno://{old}/".encode(), f"gno://{new}/".encode()
    facts: list[str] = []
    stale: list[str] = []
    for row in rstore.referencing(host.store, old):
        coll = cfg.collection(row.collection)
        if coll is None or not coll.memory_managed:
            stale.append(row.uri)
            continue
        path = confined(coll.root, row.rel_path, action="edit")
        raw = path.read_bytes()
        end = _front_matter_end(raw)
        if end is None or before not in raw[:end]:
            stale.append(row.uri)
            continue
        atomic_write_bytes(path, raw[:end].replace(before, after) + raw[end:])
        sync_written(host, coll, row.rel_path, "rewrote", ErrorCode.RUNTIME)
        facts.append(row.uri)
    return facts, stale


def _front_matter_end(raw: bytes) -> int | None:
    """Byte offset just past the line that closes the opening `---` block (None: no front matter),
    by the indexer's rule (`front_matter_close`)."""
    lines = raw.splitlines(keepends=True)[:FRONT_MATTER_MAX_LINES]
    close = front_matter_close([line.decode("utf-8", "replace") for line in lines])
    return None if close is None else sum(len(line) for line in lines[: close + 1])
