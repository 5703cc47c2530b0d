"""`gno demo`: the quick start's main job on an embedded default.

Indexes the sample notes shipped inside the package into a scratch gno home (never the user's
own config), runs one search, then shows the memory face: a memory collection in the scratch
home, one `remember` and the `recall` that finds it. Lexical only (no model is loaded), so the
first run is fast and offline.
"""

from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path

import click

from gno.cli.commands_memory import render_recall, render_remember
from gno.cli.commands_read import render_hits
from gno.cli.main import emit_error, emit_json

DEMO_FACT = "The demo's sample notes ship inside the gno package"
DEMO_SCOPE = "demo"
DEMO_RECALL = "where do the sample notes live"
DEMO_IDENTITY = ("cli:demo", "demo")


def run_demo(ctx: click.Context, home: str | None, query: str, as_json: bool) -> None:
    """The demo in `home`, kept; without one in a scratch folder that is removed afterwards."""
    if home:
        _demo(ctx, Path(home), query, as_json, kept=True)
        return
    with tempfile.TemporaryDirectory(prefix="gno-demo-") as scratch:
        _demo(ctx, Path(scratch), query, as_json, kept=False)


def _demo(ctx: click.Context, root: Path, query: str, as_json: bool, *, kept: bool) -> None:
    from gno.config import build_settings
    from gno.engine import Engine
    from gno.errors import GnoError
    from gno.memory.recall import RecallRequest
    from gno.memory.remember import RememberRequest

    env = {
        "GNO_CONFIG_DIR": str(root / "config"),
        "GNO_DATA_DIR": str(root / "data"),
        "GNO_CACHE_DIR": str(root / "cache"),
        "HOME": str(root),
    }
    engine = Engine(build_settings(env=env))
    sample = Path(str(resources.files("gno").joinpath("sample")))
    memory = root / "memory"
    caller, session = DEMO_IDENTITY
    try:
        engine.init()
        if engine.config.collection("sample") is None:
            engine.collection_add(str(sample), name="sample")
        if engine.config.collection("memory") is None:
            memory.mkdir(parents=True, exist_ok=True)
            engine.collection_add(str(memory), name="memory", memory_managed=True)
        sync = engine.update()
        result = engine.search(query, limit=5)
        scopes = [DEMO_SCOPE]
        remembered = engine.remember(
            RememberRequest(text=DEMO_FACT, scopes=scopes, caller=caller, session=session, decision="add"),
            semantic=False,
        )
        recalled = engine.recall(
            RecallRequest(query=DEMO_RECALL, scopes=scopes, caller=caller, session=session), semantic=False
        )
    except GnoError as err:
        emit_error(err, as_json)
        ctx.exit(err.exit_code)
    finally:
        engine.close()
    if as_json:
        emit_json(
            {
                "home": str(root),
                "homeKept": kept,
                "sync": sync.dump(),
                "search": result.dump(),
                "remember": remembered.dump(),
                "recall": recalled.dump(),
            }
        )
        return
    c = next(x for x in sync.collections if x.name == "sample")
    scratch = "a scratch folder, removed at the end (keep one: --home DIR)"
    click.echo(f"gno demo home: {root if kept else scratch}")
    click.echo(f"Indexed {c.scanned} sample notes from {sample} in {sync.duration_ms / 1000:.2f}s\n")
    click.echo(f"$ gno search {query!r}\n")
    render_hits(result, files=False, line_numbers=False, full=False)
    click.echo(f'$ gno remember "{DEMO_FACT}" --scope {DEMO_SCOPE} --add\n')
    render_remember(remembered)
    click.echo(f'\n$ gno recall "{DEMO_RECALL}" --scope {DEMO_SCOPE}\n')
    render_recall(recalled)
    click.echo(
        "\nTry it on your own notes:\n  gno init\n  gno collection add ~/notes --name notes\n"
        '  gno update\n  gno search "your words"\n'
        "and give your agents a memory:\n  gno collection add ~/notes/memory --name memory --memory\n"
        '  gno remember "Prod deploys from main only" --scope project:x --add\n'
        '  gno recall "deploy branch" --scope project:x'
    )
