"""The engine: one facade, one method per capability, shared by every surface.

Surfaces (CLI, MCP, REST, SDK) parse input, make one call here and render the pydantic result.
The engine owns the settings, the config, the index store and the write lease (`Lifecycle`);
capability logic lives in the core packages (ingest, retrieve, memory, evidence, writes) and each
method composes one of them, grouped by area: `Admin` (collections, hints, sync, embedding,
status), `Reading` (the retrieval ladder, documents, links), `Answering` (capsules, delta, ask),
`Remembering` (the memory contract) and `Writing` (capture, edit, tags). Core never imports this
package: each core function states what it uses (the protocols of `gno.index`, `CapsuleSource`,
`SemanticHost`, `Searcher`, or plain values), and the engine hands itself or those values in
(`lint-imports` holds the layering).
"""

from __future__ import annotations

from gno.engine.admin import Admin
from gno.engine.answering import Answering
from gno.engine.remembering import Remembering
from gno.engine.writing import Writing


class Engine(Admin, Answering, Remembering, Writing):
    """Facade over one index, shared by the threads of a server.

    Reads run in parallel (one SQLite connection per thread, WAL snapshots); writes serialise on
    the cross-process write lease they take. No engine-wide lock is held around a call.
    """


__all__ = ["Engine"]
