"""The demo: the quick start's main job on the sample notes shipped inside the package.

It runs in a gno home of its own (never the caller's config or index): a collection of the
sample notes and a memory collection, one sync, one search, one fact remembered and the recall
that finds it. Lexical only (no model is loaded), so the first run is fast and offline. Without a
`home` the scratch folder is removed once the result is built.
"""

from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gno.models import DemoResult

FACT = "The demo's sample notes ship inside the gno package"
SCOPE = "demo"
RECALL = "where do the sample notes live"
IDENTITY = ("cli:demo", "demo")


def sample_notes() -> Path:
    """The folder of sample notes inside the installed package."""
    return Path(str(resources.files("gno").joinpath("sample")))


def run_demo(home: str | None, query: str) -> DemoResult:
    """The demo in `home`, kept; without one in a scratch folder that is removed afterwards."""
    if home:
        return _demo(Path(home), query, kept=True)
    with tempfile.TemporaryDirectory(prefix="gno-demo-") as scratch:
        return _demo(Path(scratch), query, kept=False)


def _demo(root: Path, query: str, *, kept: bool) -> DemoResult:
    from gno.config import build_settings
    from gno.engine import Engine
    from gno.memory.recall import RecallRequest
    from gno.memory.remember import RememberRequest
    from gno.models import DemoResult

    env = {
        "GNO_CONFIG_DIR": str(root / "config"),
        "GNO_DATA_DIR": str(root / "data"),
        "GNO_CACHE_DIR": str(root / "cache"),
        "HOME": str(root),
    }
    engine = Engine(build_settings(env=env))
    memory = root / "memory"
    caller, session = IDENTITY
    try:
        engine.init()
        if engine.config.collection("sample") is None:
            engine.collection_add(str(sample_notes()), name="sample")
        if engine.config.collection("memory") is None:
            memory.mkdir(parents=True, exist_ok=True)
            engine.collection_add(str(memory), name="memory", memory_managed=True)
        sync = engine.update()
        result = engine.search(query, limit=5)
        scopes = [SCOPE]
        remembered = engine.remember(
            RememberRequest(text=FACT, scopes=scopes, caller=caller, session=session, decision="add"), semantic=False
        )
        recalled = engine.recall(
            RecallRequest(query=RECALL, scopes=scopes, caller=caller, session=session), semantic=False
        )
    finally:
        engine.close()
    return DemoResult(
        home=str(root), home_kept=kept, sync=sync, search=result, remember=remembered, recall=recalled
    )
