"""The fast first pass: static vectors for every chunk at once, transformer vectors after them.

A transformer (MiniLM) embeds a few dozen chunks a second on a laptop CPU, so a new vault of
2,000 notes waits the better part of an hour for its vector leg. A static model (wordllama:
averaged token vectors, no attention) embeds the same chunks 30-50x faster. So when the configured
model is a transformer and many chunks lack its vectors, `embed` first gives every chunk a static
vector (`models.firstPass`, default `wordllama`; `none` turns it off), then embeds with the
transformer as before; when the transformer has covered every chunk, the static vectors are
dropped.

Which vectors rank: the transformer's as soon as they cover at least as many chunks as the first
pass's; before that the first pass's, and `query`'s re-scoring stage re-scores their top candidates
with the transformer (its stored vectors where it has them, embedded at query time where not) —
the "wordllama re-scored by MiniLM" ladder of the retrieval suite, which stays above the BM25 leg
on every corpus of it. So at every moment `query` is either that ladder or plain MiniLM.

The first pass runs only when it pays: when the transformer's backlog, at `SPEEDUP` times the
static model's cost per chunk, is larger than the static chunks still to embed (a new or largely
unembedded index), never for the few chunks of an edited note.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gno.store import vectors as vstore

if TYPE_CHECKING:
    from gno.embed.base import Embedder
    from gno.store.db import Store

#: what `models.firstPass` defaults to
FIRST_PASS_DEFAULT = "wordllama"
#: models slow enough on a CPU that a static first pass pays (model id prefixes)
TRANSFORMERS = ("minilm", "mpnet")
#: how many static chunks one transformer chunk costs, rounded down: wordllama embeds long chunks
#: ~1,350/s against MiniLM's ~28/s on 2 idle cores (48x), 840 against 22 under load (38x)
SPEEDUP = 30
#: static chunks per model call and per write transaction
BATCH = 256

Texts = Callable[[list[tuple[str, str]]], list[str]]


def wanted(configured: Embedder, setting: str | None) -> bool:
    """Whether the configured model gets a first pass (a transformer, and `firstPass` not `none`)."""
    return (setting or FIRST_PASS_DEFAULT) != "none" and configured.model_id.startswith(TRANSFORMERS)


def worth_it(store: Store, configured_fp: str, first_fp: str) -> bool:
    """A first pass pays when the transformer's backlog outweighs the static chunks still to embed."""
    total = vstore.count_chunks(store)
    missing_static = total - vstore.count_embedded(store, first_fp)
    backlog = total - vstore.count_embedded(store, configured_fp)
    return missing_static > 0 and backlog * SPEEDUP > missing_static


def run(store: Store, first: Embedder, texts: Texts, *, budget: int | None = None) -> int:
    """Embed static vectors for chunks that lack them (at most `budget`); returns how many."""
    fp = first.fingerprint
    done = 0
    while budget is None or done < budget:
        want = BATCH if budget is None else min(BATCH, budget - done)
        part = vstore.pending_chunks(store, fp, want)
        if not part:
            break
        vecs = first.embed_documents(texts([(c.title, c.text) for c in part]))
        with store.write() as conn:
            vstore.put_vectors(conn, fp, [(c.mirror_hash, c.seq, vecs[j]) for j, c in enumerate(part)])
        done += len(part)
    return done


def retire(store: Store, configured_fp: str, first_fp: str, *, uncut: int) -> bool:
    """Drop the first pass's vectors once the transformer's cover every chunk; True when dropped."""
    if uncut or first_fp not in vstore.fingerprints(store):
        return False
    if vstore.count_embedded(store, configured_fp) < vstore.count_chunks(store):
        return False
    with store.write() as conn:
        vstore.delete_vectors(conn, first_fp)
    return True


def ranks(counts: dict[str, int], configured_fp: str, first_fp: str | None) -> bool:
    """Whether the first pass's vectors rank: they cover more chunks than the configured model's."""
    return first_fp is not None and counts.get(first_fp, 0) > counts.get(configured_fp, 0)
