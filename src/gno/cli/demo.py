"""`gno demo`: the quick start's main job on an embedded default.

Indexes the sample notes shipped inside the package into a scratch gno home (never the user's
own config) and runs one search, so a new user sees the whole path work in one command.
"""

from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path

import click

from gno.cli.commands_read import render_hits
from gno.cli.main import emit_error, emit_json


def run_demo(ctx: click.Context, home: str | None, query: str, as_json: bool) -> None:
    from gno.config import build_settings
    from gno.engine import Engine
    from gno.errors import GnoError

    root = Path(home) if home else Path(tempfile.mkdtemp(prefix="gno-demo-"))
    env = {
        "GNO_CONFIG_DIR": str(root / "config"),
        "GNO_DATA_DIR": str(root / "data"),
        "GNO_CACHE_DIR": str(root / "cache"),
        "HOME": str(root),
    }
    engine = Engine(build_settings(env=env))
    sample = Path(str(resources.files("gno").joinpath("sample")))
    try:
        engine.init()
        if engine.config.collection("sample") is None:
            engine.collection_add(str(sample), name="sample")
        sync = engine.update()
        result = engine.search(query, limit=5)
    except GnoError as err:
        emit_error(err, as_json)
        ctx.exit(err.exit_code)
    finally:
        engine.close()
    if as_json:
        emit_json({"home": str(root), "sync": sync.dump(), "search": result.dump()})
        return
    c = sync.collections[0]
    click.echo(f"gno demo home: {root}")
    click.echo(f"Indexed {c.scanned} sample notes from {sample} in {sync.duration_ms / 1000:.2f}s\n")
    click.echo(f"$ gno search {query!r}\n")
    render_hits(result, files=False, line_numbers=False, full=False)
    click.echo(
        "Try it on your own notes:\n  gno init\n  gno collection add ~/notes --name notes\n"
        '  gno update\n  gno search "your words"'
    )
