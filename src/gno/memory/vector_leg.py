"""Whether remember and recall rank by meaning too, and, when not, the reason they report.

The vector leg joins only when the memory collection holds vectors of the configured model; a
memory without any vectors loads no model (nor numpy) at all. A surface that loads no model per
call (`semantic=False`) stays lexical and says so. A request whose collection does not resolve
gets no leg here: remember and recall report that validation error themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gno.embed.base import Embedder
    from gno.index import SemanticIndex
    from gno.memory.recall import VectorLeg
    from gno.store.fts import DocFilter

LEXICAL_SURFACE = "lexical only on this surface (no model is loaded per call)"
NO_MODEL = "no embedding model available"


def remember_embedder(index: SemanticIndex, collection: str | None, enabled: bool) -> tuple[Embedder | None, str]:
    """The embedder that ranks a proposal's candidates by cosine, or None and why."""
    from gno.memory.inputs import resolve_collection
    from gno.store import vectors as vstore

    if not enabled:
        return None, LEXICAL_SURFACE
    try:
        coll = resolve_collection(index.config, collection)
        if index.semantic.collection_embedded(coll.name):
            return index.semantic.embedder(), NO_MODEL
        return None, vstore.unembedded(coll.name)
    except Exception:  # noqa: BLE001 - validation errors surface from remember itself
        return None, NO_MODEL


def recall_leg(index: SemanticIndex, collection: str | None, enabled: bool) -> tuple[VectorLeg | None, str | None]:
    """The vector leg of a recall, or None and why recall stays lexical."""
    from gno.memory.inputs import resolve_collection
    from gno.store import vectors as vstore

    if not enabled:
        return None, LEXICAL_SURFACE
    try:
        coll = resolve_collection(index.config, collection)
    except Exception:  # noqa: BLE001 - let recall report the validation error
        return None, NO_MODEL
    semantic = index.semantic
    if not semantic.collection_embedded(coll.name):  # no model's vectors: no model (nor numpy) loaded
        return None, vstore.no_vectors_reason(index.store, coll.name)
    reason = semantic.unavailable_reason()
    if reason is None and not semantic.collection_embedded(coll.name):  # now: the configured model's
        reason = vstore.unembedded(coll.name)
    if reason is not None:
        return None, reason

    def leg(query: str, f: DocFilter, k: int) -> list[int]:
        return [d for d, _, _ in semantic.search_docs(query, f, k)]

    return leg, None
