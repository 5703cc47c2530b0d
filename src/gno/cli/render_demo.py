"""`gno demo`'s text: what each step ran, as the commands a user would type, and what came back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gno.cli.commands_memory import render_recall, render_remember
from gno.cli.commands_read import render_hits

if TYPE_CHECKING:
    from gno.models import DemoResult


def render_demo(r: DemoResult) -> None:
    from gno.engine.demo import FACT, RECALL, SCOPE, sample_notes

    c = next(x for x in r.sync.collections if x.name == "sample")
    scratch = "a scratch folder, removed at the end (keep one: --home DIR)"
    click.echo(f"gno demo home: {r.home if r.home_kept else scratch}")
    click.echo(f"Indexed {c.scanned} sample notes from {sample_notes()} in {r.sync.duration_ms / 1000:.2f}s\n")
    click.echo(f"$ gno search {r.search.query!r}\n")
    render_hits(r.search, files=False, line_numbers=False, full=False)
    click.echo(f'$ gno remember "{FACT}" --scope {SCOPE} --add\n')
    render_remember(r.remember)
    click.echo(f'\n$ gno recall "{RECALL}" --scope {SCOPE}\n')
    render_recall(r.recall)
    click.echo(
        "\nTry it on your own notes:\n  gno init\n  gno collection add ~/notes --name notes\n"
        '  gno update\n  gno search "your words"\n'
        "and give your agents a memory:\n  gno collection add ~/notes/memory --name memory --memory\n"
        '  gno remember "Prod deploys from main only" --scope project:x --add\n'
        '  gno recall "deploy branch" --scope project:x'
    )
