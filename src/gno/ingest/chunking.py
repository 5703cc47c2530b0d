"""Chunks for the embedder, cut from the stored content when embedding, never when indexing.

Only the embedder reads chunks (full-text search is per document), and cutting them with its
WordPiece tokenizer costs more than the rest of indexing a note. So `gno update` stores content
alone, and every path that embeds first calls `ensure_chunks`: content of active documents with
no chunks for the current *chunk key* (chunker version and settings, and the tokenizer) is cut
and stored as spans of its body, then embedding proceeds as before (vectors keyed by content,
chunk and model). Re-chunking after the key changed keeps the vectors of every chunk whose span
is unchanged and drops the others, which are then embedded again.

The caller holds the write lease; each batch is its own transaction, so an interrupted run keeps
what it finished.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from gno.config import ChunkingConfig
from gno.ingest.chunker import CHUNKER_VERSION, chunk_text
from gno.store import chunks as cstore
from gno.store.db import Store

BATCH = 500  # contents per transaction


@functools.lru_cache(maxsize=1)
def tokenizer_id() -> str:
    """Which tokenizer counts chunk tokens: the WordPiece file's hash, or `chars` without it."""
    from gno.embed.base import module_available
    from gno.embed.tokens import TOKENIZER_JSON

    if not module_available("tokenizers") or not TOKENIZER_JSON.is_file():
        return "chars"
    return "wordpiece:" + hashlib.sha256(TOKENIZER_JSON.read_bytes()).hexdigest()[:12]


def chunk_key(cfg: ChunkingConfig) -> str:
    """Everything that decides where chunks are cut; stored chunks made under another key are redone."""
    return f"v{CHUNKER_VERSION}/{tokenizer_id()}/{cfg.max_tokens}/{cfg.overlap_percent:g}"


def body_pos(canonical: str, body_start_line: int) -> int:
    """Character offset of line `body_start_line` (1-based) in `canonical`: where the body starts."""
    pos = 0
    for _ in range(body_start_line - 1):
        nl = canonical.find("\n", pos)
        if nl < 0:
            return len(canonical)
        pos = nl + 1
    return pos


def cut(canonical: str, body_start_line: int, cfg: ChunkingConfig) -> tuple[int, list[cstore.ChunkRow]]:
    """(body offset, chunk rows) of one content, exactly as the chunker cuts its body."""
    start = body_pos(canonical, body_start_line)
    rows = [
        cstore.ChunkRow(c.seq, c.pos, len(c.text), c.start_line, c.end_line, c.token_count)
        for c in chunk_text(
            canonical[start:],
            line_offset=body_start_line - 1,
            max_tokens=cfg.max_tokens,
            overlap_percent=cfg.overlap_percent,
        )
    ]
    return start, rows


@dataclass
class ChunkPass:
    """What one chunking pass did (or, without writing, would do)."""

    contents: list[str] = field(default_factory=list)  # content (re)chunked
    chunks: list[tuple[str, int]] = field(default_factory=list)  # its chunks now
    replaced: int = 0  # chunks it had before
    changed: set[tuple[str, int]] = field(default_factory=set)  # chunks new or cut differently: no valid vector
    remaining: int = 0  # content still to cut (a bounded pass stopped early)


def ensure_chunks(
    store: Store,
    cfg: ChunkingConfig,
    collections: Sequence[str] = (),
    *,
    write: bool = True,
    enough: int | None = None,
) -> ChunkPass:
    """Chunk the content of active documents (in `collections`) that lacks chunks for the key.

    With `enough`, stop once that many chunks were cut that need a vector (a bounded embedding
    round cuts only what it can embed); with `write=False` nothing is stored and the pass says
    what it would change (a dry run).
    """
    key = chunk_key(cfg)
    todo = cstore.unchunked(store, key, collections)
    out = ChunkPass()
    step = BATCH if enough is None else max(1, min(BATCH, enough))
    done = 0
    while done < len(todo) and (enough is None or len(out.changed) < enough):
        part = todo[done : done + step]
        done += len(part)
        before = cstore.spans(store, part)
        items: list[cstore.ChunkedContent] = []
        for mirror, canonical, start_line in cstore.sources(store, part):
            start, rows = cut(canonical, start_line, cfg)
            old = before.get(mirror, {})
            changed = [r.seq for r in rows if old.get(r.seq) != (r.pos, r.length)]
            items.append(cstore.ChunkedContent(mirror, start, rows, changed + [s for s in old if s >= len(rows)]))
            out.contents.append(mirror)
            out.chunks += [(mirror, r.seq) for r in rows]
            out.changed.update((mirror, s) for s in changed)
            out.replaced += len(old)
        if write and items:
            from gno.store.vectors import count_write

            with store.write() as conn:
                cstore.replace(conn, key, items)
                if any(it.changed for it in items):
                    count_write(conn)
    out.remaining = len(todo) - done
    return out
