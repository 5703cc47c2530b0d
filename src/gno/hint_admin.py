"""`gno context add | list | rm | check`: the context hints of `index.yml`, read and edited.

An edit reads the config, changes its `contexts` and writes the whole file atomically (as
`gno collection add` does), under the cross-process write lease so that two edits made at once
cannot lose one another. Adding a hint to a collection that is not configured is refused (a typo
would otherwise sit there unused); a prefix may name a folder that holds nothing yet, and `check`
reports it, as it reports hints whose collection was removed since.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from gno.config import load_config, save_config
from gno.errors import ErrorCode, NotFoundError, ValidationError, unknown_collection
from gno.hints import (
    ContextAddResult,
    ContextCheckResult,
    ContextList,
    ContextRemoved,
    ContextWarning,
    HintConfig,
    check_text,
    parse_scope,
    wire_hint,
)
from gno.store import documents as docs

if TYPE_CHECKING:
    from gno.settings import Settings
    from gno.store.db import Store


def add(settings: Settings, lease: AbstractContextManager[None], scope: str, text: str) -> ContextAddResult:
    kind, key = parse_scope(scope)
    body = check_text(text)
    with lease:
        cfg = load_config(settings)
        hint = HintConfig(scopeType=kind, scopeKey=key, text=body)
        coll = hint.collection
        if coll is not None and cfg.collection(coll) is None:
            err = unknown_collection(coll, [c.name for c in cfg.collections])
            raise ValidationError(
                f"context scope {key!r}: {err.message}",
                code=ErrorCode.CONTEXT_SCOPE_INVALID,
                details={"scope": key, **err.details},
            )
        if hint in cfg.contexts:
            return ContextAddResult(context=wire_hint(hint), added=False)
        cfg.contexts.append(hint)
        save_config(settings, cfg)
    return ContextAddResult(context=wire_hint(hint), added=True)


def listed(hints: list[HintConfig]) -> ContextList:
    return ContextList(contexts=[wire_hint(h) for h in hints])


def remove(settings: Settings, lease: AbstractContextManager[None], scope: str, text: str | None) -> ContextRemoved:
    """Remove the hints of `scope` (only the one saying `text` when given)."""
    _, key = parse_scope(scope)
    want = None if text is None else text.strip()
    with lease:
        cfg = load_config(settings)
        gone = [h for h in cfg.contexts if h.scope_key == key and (want is None or h.text == want)]
        if not gone:
            on_scope = [h.text for h in cfg.contexts if h.scope_key == key]
            what = "no context hint" if not on_scope else "no context hint with that text"
            raise NotFoundError(
                f"{what} on {key!r}; `gno context list` shows the configured ones",
                code=ErrorCode.CONTEXT_NOT_FOUND,
                details={"scope": key, "texts": on_scope},
            )
        cfg.contexts = [h for h in cfg.contexts if h not in gone]
        save_config(settings, cfg)
    return ContextRemoved(scope_key=key, removed=[wire_hint(h) for h in gone])


def check(hints: list[HintConfig], collections: list[str], store: Store | None) -> ContextCheckResult:
    """Warn about hints that apply to nothing: an unconfigured collection, a prefix with no document."""
    warnings: list[ContextWarning] = []
    for h in hints:
        coll = h.collection
        if coll is None:
            continue
        if coll not in collections:
            why = f"collection {coll!r} is not configured; remove the hint or add the collection"
            warnings.append(_warning(h, "unknown_collection", why))
        elif h.path and store is not None and not _has_documents(store, coll, h.path):
            why = f"no indexed document at or below {h.scope_key!r} (run `gno update`, or fix the path)"
            warnings.append(_warning(h, "no_documents", why))
    return ContextCheckResult(ok=not warnings, contexts=len(hints), warnings=warnings)


def _has_documents(store: Store, collection: str, path: str) -> bool:
    return docs.count_docs(store, collection, path + "/") > 0 or docs.doc_by_path(store, collection, path) is not None


def _warning(h: HintConfig, code: str, message: str) -> ContextWarning:
    return ContextWarning(context_id=h.context_id, scope_key=h.scope_key, code=code, message=message)
