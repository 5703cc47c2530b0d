"""How a CLI command reaches a capability: it builds the capability's request model.

A command maps its options onto the request model's fields (an option's name *is* the field
name), `invoke` validates them into the model and makes the one engine call, so defaults,
limits and error codes are those of every other surface. `EXEMPT` states each request field
that has no option of its own, and why; a test fails for any other field without an option.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from gno.engine import Engine

T = TypeVar("T")
Fields = dict[str, Any] | Callable[["Engine"], dict[str, Any]]

#: commands that do not build their request model, and why (their options still carry the field names)
DIRECT = {
    "search": "the cold-start path: `gno search` asks the engine for a page of hits without building "
    "pydantic models (the engine applies the same limits)",
}

#: command groups that are not capabilities of an index, and why (every other command is a row of the
#: capability table: a test holds them to it)
OUTSIDE = {
    "agents": "edits agent instruction files on this machine (CLAUDE.md, AGENTS.md, ...), not the index",
    "skill": "installs or shows the gno skill files of agent harnesses on this machine",
    "completion": "prints the shell completion script",
    "daemon": "runs, stops and installs the resident owner process",
    "serve": "runs the REST, MCP and Web UI server process",
    "mcp": "runs the MCP stdio server process (`mcp config` writes an MCP client's config file)",
    "service": "the team memory service: its own server and administration, over its own database",
}

#: (capability, request field) → why the CLI has no option for it
EXEMPT: dict[tuple[str, str], str] = {
    ("capture", "source"): "one option per field: --source-kind, --source-url, --source-title, --source-author, "
    "--source-date",
    ("capture", "caller"): "the CLI's own identity ($GNO_MEMORY_CALLER, else cli:<user>)",
    ("context_verify", "capsule"): "read from the CAPSULE file argument (or stdin)",
}


def depth_options(f: Any) -> Any:
    """`--depth fast|balanced|thorough`, with `--fast` and `--thorough` as shorthands."""
    f = click.option("--thorough", is_flag=True, help="Same as --depth thorough (40 candidates, feedback terms).")(f)
    f = click.option("--fast", is_flag=True, help="Same as --depth fast (no graph expansion, no re-scoring).")(f)
    return click.option(
        "--depth", type=click.Choice(["fast", "balanced", "thorough"]), default=None, help="Default balanced."
    )(f)


def depth_value(depth: str | None, fast: bool, thorough: bool) -> str | None:
    """The one depth the flags name (None: the request's default); two different ones are VALIDATION."""
    from gno.errors import ValidationError

    picked = {d for d, on in (("fast", fast), ("thorough", thorough), (depth, depth is not None)) if on}
    if len(picked) > 1:
        raise ValidationError("--fast, --thorough and --depth exclude each other")
    return picked.pop() if picked else None


def invoke(
    ctx: click.Context,
    as_json: bool,
    name: str,
    fields: Fields,
    render: Callable[[Any], None],
    *,
    lock_wait: str | None = None,
    no_wait: bool = False,
    progress: Any = None,
    on_result: Callable[[Any], None] | None = None,
) -> None:
    """Build capability `name`'s request from `fields` (None = the model's default) and run it.

    `fields` may be a function of the engine (identity defaults from the settings); it runs
    inside the error translation, so a ValidationError it raises gets the usual exit code.
    """
    from gno.cli.main import run

    def call(engine: Engine) -> Any:
        from gno.cli.main import lock_wait_seconds
        from gno.contract import capability
        from gno.contract.request import CallContext, parse

        data = fields(engine) if callable(fields) else fields
        plain = {k: list(v) if isinstance(v, tuple) else v for k, v in data.items() if v is not None}
        req = parse(capability(name).request_model, plain)
        wait = lock_wait_seconds(lock_wait, no_wait)
        result = req.run(engine, CallContext(surface="cli", lock_wait=wait, progress=progress))
        if on_result is not None:
            on_result(result)
        return result

    run(ctx, as_json, call, render, canonical=_canonical(name))


def _canonical(name: str) -> bool:
    from gno.contract import capability

    return capability(name).canonical
