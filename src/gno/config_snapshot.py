"""What the fastest commands need from a validated `index.yml`, without YAML or pydantic.

`gno search` answers in a few milliseconds, but parsing YAML and building the pydantic config
would cost several times the whole search. So after every successful validation the engine
records the configured collection names, keyed by the file's identity (device, inode, size and
modification time in nanoseconds), and how many context hints it holds (a search whose hits
would carry hints takes the validated path). A reader trusts the record only while the file still has that
identity: an edit, an atomic replace or a deletion sends it back to the full validation, which
reports a missing or broken config exactly as before and records the new state.

The record lives in the cache folder and is derived: deleting it only costs one validation. It
holds the last config validated with that cache folder; alternating `--config` files only
means each command validates again. It is plain lines (a header, the config's path, its
identity, the hint count, one collection name per line), not JSON: a cold text search imports no `json` at all.
Collection names never hold a line break; a config path that does is simply never recorded.

A second record, kept the same way, holds each collection's folder, matching rules and egress
policy (JSON, `config-collections.json`): what a cold `gno update` needs to walk and sync, and a
cold read or recall to find a folder or a memory collection, without pydantic.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: a cold `gno search` does not import typing
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gno.settings import Settings

Identity = list[int]


def identity(path: str) -> Identity | None:
    """(device, inode, size, mtime_ns) of the config file, or None when it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


#: first line of a record; a record in any other format is ignored (and replaced on the next validation)
HEADER = "gno config snapshot 2"


def _record_path(settings: Settings) -> str:
    return os.path.join(settings.cache_root, "config-snapshot.txt")


def _body(config: str, ident: Identity, names: list[str], hints: int) -> str:
    return "\n".join([HEADER, config, " ".join(map(str, ident)), f"contexts {hints}", *names]) + "\n"


def read_state(settings: Settings) -> tuple[list[str], int] | None:
    """(collection names, number of context hints) of the validated config, or None when the record
    is missing or stale."""
    try:
        with open(_record_path(settings), encoding="utf-8", newline="") as fh:
            lines = fh.read().split("\n")
    except (OSError, ValueError):
        return None
    if len(lines) < 5 or lines[0] != HEADER or lines[-1] != "" or lines[1] != settings.config_location:
        return None
    ident = identity(settings.config_location)
    if ident is None or lines[2] != " ".join(map(str, ident)):
        return None
    count = lines[3].removeprefix("contexts ")
    if not count.isdigit():
        return None
    return lines[4:-1], int(count)


def read(settings: Settings) -> list[str] | None:
    """The collection names of the validated config, or None when the record is missing or stale."""
    state = read_state(settings)
    return None if state is None else state[0]


def record(settings: Settings, ident: Identity, names: list[str], hints: int = 0) -> None:
    """Record the names of a config that just validated; `ident` was taken before reading it.

    Best effort: a read-only or full cache folder only means the next command validates again.
    """
    config = settings.config_location
    if "\n" in config or any("\n" in n for n in names):
        return
    _write_if_changed(_record_path(settings), _body(config, ident, names, hints))


def _write_if_changed(path: str, body: str) -> None:
    """Replace the record at `path` atomically unless it already says `body`; errors only cost a validation."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            if fh.read() == body:
                return
    except (OSError, ValueError):
        pass
    from pathlib import Path

    from gno.fsio import atomic_write_text

    try:
        atomic_write_text(Path(path), body)
    except OSError:
        pass


#: the record of whole collections (what a sync reads of each), for the cold `gno update`
COLLECTIONS_HEADER = "gno config collections 3"
#: the fields of a collection a walk and a sync read, as recorded (the config's own names)
COLLECTION_FIELDS = (
    *("name", "path", "pattern", "include", "exclude", "memory_managed", "file_cap"),
    *("egress_policy", "egress_explicit"),
)


def _collections_path(settings: Settings) -> str:
    return os.path.join(settings.cache_root, "config-collections.json")


def record_collections(
    settings: Settings, ident: Identity, collections: Sequence[object], *, memory_guard: bool = False
) -> None:
    """Record the validated collections (`COLLECTION_FIELDS` of each) and whether the Memory Guard is on,
    keyed like `record`; best effort."""
    import json

    rows = [{f: getattr(c, f) for f in COLLECTION_FIELDS} for c in collections]
    config = settings.config_location
    record = {"header": COLLECTIONS_HEADER, "config": config, "identity": ident, "collections": rows}
    body = json.dumps({**record, "memoryGuard": memory_guard})
    _write_if_changed(_collections_path(settings), body)


def read_collections(settings: Settings) -> list[dict[str, object]] | None:
    """The recorded collections of the validated config, or None when missing, stale or malformed."""
    record = read_record(settings)
    return None if record is None else record[0]


def read_record(settings: Settings) -> tuple[list[dict[str, object]], bool] | None:
    """The recorded collections and whether the Memory Guard is on, or None when missing, stale or malformed."""
    import json

    try:
        with open(_collections_path(settings), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("header") != COLLECTIONS_HEADER:
        return None
    if data.get("config") != settings.config_location or data.get("identity") != identity(settings.config_location):
        return None
    rows, guard = data.get("collections"), data.get("memoryGuard")
    if not isinstance(rows, list) or not all(_well_formed(r) for r in rows) or not isinstance(guard, bool):
        return None
    return rows, guard


def _well_formed(row: object) -> bool:
    """Exactly the recorded fields, each of the config's type (a hand-edited record is not trusted)."""
    if not isinstance(row, dict) or set(row) != set(COLLECTION_FIELDS):
        return False
    texts = all(isinstance(row[k], str) for k in ("name", "path", "pattern", "egress_policy"))
    lists = all(isinstance(row[k], list) and all(isinstance(x, str) for x in row[k]) for k in ("include", "exclude"))
    cap = row["file_cap"]
    sized = isinstance(cap, int) and not isinstance(cap, bool) and cap >= 1
    flags = isinstance(row["memory_managed"], bool) and isinstance(row["egress_explicit"], bool)
    return texts and lists and sized and flags


#: the record of what the configured models resolved to, for the cold `gno status`
MODELS_HEADER = "gno config models 1"


def _models_path(settings: Settings) -> str:
    return os.path.join(settings.cache_root, "config-models.json")


def environment() -> list[list[object]]:
    """The import path's folders and their modification times: installing, upgrading or removing
    a package (a model, onnxruntime, an embedder plugin) changes the folder it goes into. The first
    entry is where the command was started from (the `gno` script's folder, or the working
    directory of `python -m gno`), no package folder: left out."""
    import sys

    out: list[list[object]] = []
    for folder in sys.path[1:]:
        try:
            out.append([folder, os.stat(folder or ".").st_mtime_ns])
        except OSError:
            continue
    return out


def record_models(settings: Settings, ident: Identity | None, version: str, models: Sequence[object]) -> None:
    """Record what the models of a validated config resolved to (`gno.status_reads.Models` as a list),
    keyed by the config's identity, gno's version and the installed packages; best effort."""
    import json

    if ident is None:
        return
    config = settings.config_location
    record = {"header": MODELS_HEADER, "config": config, "identity": ident, "version": version}
    body = json.dumps({**record, "environment": environment(), "models": list(models)})
    _write_if_changed(_models_path(settings), body)


def read_models(settings: Settings, version: str) -> list[object] | None:
    """The recorded models, or None when missing, malformed, or made with another config, gno or packages."""
    import json

    try:
        with open(_models_path(settings), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("header") != MODELS_HEADER or data.get("version") != version:
        return None
    if data.get("config") != settings.config_location or data.get("identity") != identity(settings.config_location):
        return None
    models = data.get("models")
    if data.get("environment") != environment() or not isinstance(models, list) or len(models) != 4:
        return None
    fp, reason, first, key = models
    ok = isinstance(key, str) and all(v is None or isinstance(v, str) for v in (fp, reason, first))
    return models if ok and (fp is None) != (reason is None) else None
