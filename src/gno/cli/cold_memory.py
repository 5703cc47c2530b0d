"""`gno recall` (lexical) and a `gno remember` proposal from a cold process, without click or pydantic.

A plain recall on a memory collection that has no vectors (of any model: with vectors, the
click command loads the model and recalls hybrid) parses its `Spec`, takes the caller's
identity defaults from the settings as the click command does, and calls the core function the
engine calls (`gno.memory.recall.recall_facts`) on the collections the config snapshot
recorded, with the engine's reason for the missing vector leg. It renders through the click
command's renderer (`gno.cli.render_memory`) or, with `--json`, the same wire shape. Anything
else -- an ambiguous, unknown or unmanaged collection, any validation error -- is click's.
"""

from __future__ import annotations

from gno.cli.cold import JSON, ColdIndex, Spec, json_body, parse
from gno.cli.entry import Unhandled

TYPE_CHECKING = False  # not typing's: a cold recall does not import typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gno.cli.render_docs import Text

_IDENTITY = {"--caller": "caller", "--session": "session"}
_MEMORY = {"-s": "scopes", "--scope": "scopes", "-c": "collection", "--collection": "collection"}

SPECS = {
    "recall": Spec(
        values={**_MEMORY, "--max-facts": "max_facts", "--max-tokens": "max_tokens", "--as-of": "as_of", **_IDENTITY},
        flags=JSON,
        ints={"max_facts": (None, None), "max_tokens": (None, None)},
        defaults={"max_facts": 8, "max_tokens": 512, "collection": None, "as_of": None},
        words=(1, 1),
        multi=frozenset({"scopes"}),
    ),
    "remember": Spec(
        values={**_MEMORY, "--derived-from": "derived_from", "--source": "source", **_IDENTITY}
        | {"--valid-from": "valid_from"},
        flags=JSON,
        ints={},
        defaults={"collection": None, "source": None, "valid_from": None},
        words=(1, 1),
        multi=frozenset({"scopes", "derived_from"}),
    ),
}


def memory_collection(index: ColdIndex, name: str | None) -> str:
    """The memory collection a request names, or the only one; whatever the engine would refuse is click's."""
    managed = [n for n, row in index.collections.items() if row["memory_managed"]]
    if not name or not name.strip():
        if len(managed) != 1:
            raise Unhandled("no memory collection, or several")
        return managed[0]
    want = name.strip().lower()
    if want not in managed:
        raise Unhandled("an unknown or unmanaged collection")
    return want


def identity(index: ColdIndex, opts: dict[str, Any]) -> tuple[str, str]:
    """`--caller` / `--session`, else the settings' defaults (`$GNO_MEMORY_CALLER`, the parent process)."""
    settings = index.settings
    return opts.get("caller") or settings.default_caller(), opts.get("session") or settings.default_session()


def cold_recall(command: str, glob: dict[str, Any], rest: Sequence[str]) -> Text:
    """The complete output of `gno GLOBAL recall REST` when plain and lexical, or `Unhandled`."""
    from gno.memory.recall import RecallRequest, recall_facts
    from gno.store import vectors as vstore

    opts, words = parse(SPECS[command], rest)
    index = ColdIndex(glob)
    try:
        name = memory_collection(index, opts["collection"])
        if vstore.collection_has_vectors(index.store, name, None):
            raise Unhandled("embedded: the click command loads the model and recalls hybrid")
        row = index.collections[name]

        def resolve(_requested: str | None) -> tuple[str, tuple[str, str, bool]]:
            return name, (name, str(row["egress_policy"]), bool(row["egress_explicit"]))

        caller, session = identity(index, opts)
        req = RecallRequest(
            query=words[0],
            scopes=opts.get("scopes", []),
            caller=caller,
            session=session,
            collection=opts["collection"],
            max_facts=opts["max_facts"],
            max_tokens=opts["max_tokens"],
            as_of=opts["as_of"],
        )
        recalled = recall_facts(index, resolve, req, None, vstore.no_vectors_reason(index.store, name))
    finally:
        index.close()
    if opts.get("as_json"):
        return json_body(recalled), ""
    from gno.cli.render_memory import recall_text

    return recall_text(recalled)


def cold_remember(command: str, glob: dict[str, Any], rest: Sequence[str]) -> Text:
    """The complete output of a plain `gno GLOBAL remember TEXT -s SCOPE` proposal, or `Unhandled`.

    A proposal writes nothing: it validates in the engine's order (identity, text, collection,
    scopes, valid-from, the declared origins' fence) and lists the candidates (`propose`). A
    decision (`--add`, `--supersede`), a receipt or a request ID is not in its spec, so every
    write goes through click and the engine, under the write lease; so does a config with the
    Memory Guard on, and a memory collection with vectors (its candidates are ranked by cosine).
    """
    from gno.memory.inputs import require_identity, require_text
    from gno.memory.instants import require_instant
    from gno.memory.limits import content_hash, validate_scopes
    from gno.memory.propose import candidates, propose
    from gno.memory.receipts import check_fence
    from gno.store import vectors as vstore

    opts, words = parse(SPECS[command], rest)
    index = ColdIndex(glob)
    try:
        if index.memory_guard:
            raise Unhandled("the Memory Guard checks the text first")
        require_identity(*identity(index, opts))
        text = require_text(words[0])
        name = memory_collection(index, opts["collection"])
        scopes = validate_scopes(opts.get("scopes", []))
        chash = content_hash(text)
        if opts["valid_from"] is not None:
            require_instant(opts["valid_from"], "validFrom")
        check_fence(chash, None, [str(x) for x in opts.get("derived_from", [])])
        if vstore.collection_has_vectors(index.store, name, None):
            raise Unhandled("embedded: the click command ranks the candidates by cosine")
        proposal = propose(candidates(index.store, name, scopes, text, chash, None, vstore.unembedded(name)))
    finally:
        index.close()
    if opts.get("as_json"):
        return json_body(proposal), ""
    from gno.cli.render_memory import remember_text

    return remember_text(proposal)
