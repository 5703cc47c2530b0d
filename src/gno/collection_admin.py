"""`gno init` and `gno collection add | set | list | remove`: the collections of `index.yml`, edited.

Each edit reads the config, changes its `collections` and writes the whole file atomically. A
new collection is checked before anything is written (its folder, its name, its pattern, that it
does not index another collection's files a second time), so a refused `gno init PATH` leaves no
config and no index behind. Removing a collection deactivates its documents under the write
lease; their rows and vectors stay until `gno update --prune`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

from gno.errors import ConflictError, ErrorCode, ValidationError, from_exception

if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from pathlib import Path

    from gno.config import CollectionConfig, GnoConfig
    from gno.models import CollectionInfo, CollectionList, CollectionRemoved, InitResult
    from gno.settings import Settings
    from gno.store.db import Store

    class NewCollectionOptions(TypedDict, total=False):
        """`NewCollection`'s fields as keyword options (its defaults), for a caller that passes them on."""

        name: str | None
        pattern: str | None
        include: Sequence[str]
        exclude: Sequence[str]
        memory_managed: bool


class NewCollection(NamedTuple):
    """What `gno collection add` (and `gno init PATH`) take besides the folder."""

    name: str | None = None
    pattern: str | None = None
    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    memory_managed: bool = False


def collection_info(c: CollectionConfig, count: int | None = None) -> CollectionInfo:
    from gno.models import CollectionInfo

    shown = CollectionInfo.model_fields.keys() - {"documents"}  # the rest is the configured collection's
    return CollectionInfo(**c.model_dump(include=shown), documents=count)


def nested_memory_exclude(folder: Path, memory_folder: Path) -> str | None:
    """The `exclude` glob by which a collection in `folder` leaves the memory collection in
    `memory_folder` (below it) its files, or None when the path cannot be spelled as a glob."""
    rel = memory_folder.relative_to(folder).as_posix()
    return None if any(ch in rel for ch in "*?[]{}") else f"{rel}/**"


def _check_overlap(cfg: GnoConfig, root: Path, *, memory: bool) -> list[tuple[str, str]]:
    """A folder inside (or holding) another collection's folder would index its files twice;
    the one nesting allowed is a memory collection inside an ordinary one (memory kept in the
    vault, so the facts show in the user's editor): the outer collection then excludes the
    memory folder. Returns the (collection, glob) exclusions that make the nesting disjoint."""
    from pathlib import Path

    exclusions: list[tuple[str, str]] = []
    for c in cfg.collections:
        other = Path(c.path).expanduser().resolve()
        inner_memory = (memory and not c.memory_managed and other in root.parents) or (
            c.memory_managed and not memory and root in other.parents
        )
        outer, inner = (other, root) if memory else (root, other)
        glob = nested_memory_exclude(outer, inner) if inner_memory else None
        if glob is not None:
            exclusions.append((c.name if memory else "", glob))
            continue
        if root == other or other in root.parents or root in other.parents:
            how = "is" if root == other else "is inside" if other in root.parents else "contains"
            raise ConflictError(
                f"folder {root} {how} the folder of collection {c.name!r} ({other}): its files would be "
                f"indexed twice. Narrow {c.name!r} with --pattern/--exclude, or pick a folder outside it",
                code=ErrorCode.COLLECTION_OVERLAP,
                details={"path": str(root), "collection": c.name, "collectionPath": str(other)},
            )
    return exclusions


def _slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    return (s or "notes")[:64]


def _checked_name(name: str) -> str:
    """A `--name` as given (trimmed, lowercased), or VALIDATION naming a valid spelling of it."""
    from gno.config import COLLECTION_NAME_RE

    cname = name.strip().lower()
    if not COLLECTION_NAME_RE.match(cname):
        raise ValidationError(
            f"invalid collection name {name!r}: use lowercase letters, digits, '_' and '-' (at most 64, "
            f"starting with a letter or digit), e.g. --name {_slug(name)}",
            details={"collection": name, "suggestion": _slug(name)},
        )
    return cname


def init(settings: Settings, path: str | None, new: NewCollection, open_index: Callable[[], Store]) -> InitResult:
    """Create the config (with a first collection when `path` is given), then the index."""
    from gno.config import GnoConfig, save_config
    from gno.models import InitResult

    cfg_path = settings.config_path
    created = not cfg_path.exists()
    coll = None
    if path:
        # first, so that a bad folder, name or pattern leaves no config and no index behind
        coll = add(settings, path, new)
    elif created:
        save_config(settings, GnoConfig())
    open_index()
    return InitResult(config_path=str(cfg_path), db_path=str(settings.db_path), created=created, collection=coll)


def add(settings: Settings, path: str, new: NewCollection) -> CollectionInfo:
    from pathlib import Path

    from gno.config import DEFAULT_EXCLUDES, CollectionConfig, load_config, save_config

    root = Path(path).expanduser().resolve()
    if new.memory_managed and not root.exists() and root.parent.is_dir():
        root.mkdir()  # gno writes the facts there itself: an empty memory folder is a fine start
    if not root.is_dir():
        raise ValidationError(
            f"folder {path!r} does not exist or is not a folder",
            code=ErrorCode.PATH_NOT_FOUND,
            details={"path": str(root)},
        )
    cfg = load_config(settings, must_exist=False)
    cname = _checked_name(new.name) if new.name is not None else _slug(root.name)
    if cfg.collection(cname) is not None:
        raise ConflictError(
            f"a collection named {cname!r} already exists; pick another --name",
            code=ErrorCode.COLLECTION_EXISTS,
            details={"collection": cname},
        )
    exclusions = _check_overlap(cfg, root, memory=new.memory_managed)
    fields: dict[str, Any] = {"name": cname, "path": str(root), "memoryManaged": new.memory_managed}
    own = [glob for outer, glob in exclusions if not outer]  # a new outer collection leaves memory folders out
    for outer, glob in exclusions:
        c = cfg.collection(outer) if outer else None
        if c is not None and glob not in c.exclude:
            c.exclude.append(glob)
    if new.pattern:
        fields["pattern"] = new.pattern
    if new.include:
        fields["include"] = list(new.include)
    if new.exclude or own:
        fields["exclude"] = [*(new.exclude or DEFAULT_EXCLUDES), *own]
    try:
        coll = CollectionConfig.model_validate(fields)
    except Exception as exc:  # noqa: BLE001 - pydantic's first error, as one line
        problem = from_exception(exc).message.removeprefix("invalid input: ")
        raise ValidationError(f"invalid collection {cname!r}: {problem}", details={"collection": cname}) from exc
    cfg.collections.append(coll)
    save_config(settings, cfg)
    return collection_info(coll)


def set_memory(
    settings: Settings, cfg: GnoConfig, coll: CollectionConfig, memory_managed: bool | None
) -> CollectionInfo:
    """Turn a collection memory managed or back (no YAML editing for a memory collection).

    The next `gno update` re-reads the collection's files under the new projection (a
    collection turned memory managed gets its fact files as records, and loses them when
    turned back), without re-embedding anything.
    """
    from gno.config import save_config

    if memory_managed is None:
        raise ValidationError(
            f"nothing to change for collection {coll.name!r}: pass --memory or --no-memory",
            details={"collection": coll.name},
        )
    updated = coll.model_copy(update={"memory_managed": memory_managed})
    cfg.collections = [updated if c.name == coll.name else c for c in cfg.collections]
    save_config(settings, cfg)
    return collection_info(updated)


def listed(cfg: GnoConfig, store: Store | None) -> CollectionList:
    """The configured collections with their active documents (none counted before the index exists)."""
    from gno.models import CollectionList
    from gno.store import documents as docs

    counts = docs.collection_counts(store) if store is not None else {}
    return CollectionList(
        collections=[collection_info(c, counts.get(c.name, {}).get("active", 0)) for c in cfg.collections]
    )


def remove(
    settings: Settings, cfg: GnoConfig, store: Callable[[], Store], lease: AbstractContextManager[None], name: str
) -> CollectionRemoved:
    """Drop the collection from the config and deactivate its documents (rows and vectors stay
    until `update --prune`); an outer collection that left a memory folder to it takes it back."""
    from pathlib import Path

    from gno.clock import now_iso
    from gno.config import save_config
    from gno.models import CollectionRemoved
    from gno.store import documents as docs

    coll = cfg.require(name)
    cfg.collections = [c for c in cfg.collections if c.name != coll.name]
    if coll.memory_managed:
        for c in cfg.collections:
            outer, inner = Path(c.path).expanduser().resolve(), Path(coll.path).expanduser().resolve()
            if outer in inner.parents and (glob := nested_memory_exclude(outer, inner)) in c.exclude:
                c.exclude.remove(glob)
    with lease:
        save_config(settings, cfg)
        with store().write() as conn:
            n = docs.deactivate_collection(conn, coll.name, now_iso())
    return CollectionRemoved(name=coll.name, removed_documents=n)
