"""CLI memory commands: remember, recall, audit (the memory contract)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gno.cli.contract import invoke
from gno.cli.main import echo_text, json_option, lock_wait_option, no_wait_option, request_id_option
from gno.cli.render_hits import shown
from gno.cli.render_memory import recall_text, remember_text

if TYPE_CHECKING:
    from gno.config import Settings
    from gno.engine import Engine
    from gno.models.memory_results import AuditResult, MemoryHistoryResult, RecallResult, RememberResult

identity_options = [
    click.option("--caller", default=None, help="Caller identity (default $GNO_MEMORY_CALLER or cli:<user>)."),
    click.option("--session", default=None, help="Session identity (default $GNO_MEMORY_SESSION or ppid:<pid>)."),
]


def _identity(settings: Settings, caller: str | None, session: str | None) -> tuple[str, str]:
    return caller or settings.default_caller(), session or settings.default_session()


def _receipt(path: str | None) -> Any:
    from gno.errors import ValidationError

    if not path:
        return None
    try:
        raw = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        return json.loads(raw)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValidationError(f"cannot read receipt {path}: {exc}", details={"receipt": path}) from exc


@click.command()
@click.argument("text")
@click.option("-s", "--scope", "scopes", multiple=True, help="Scope (repeatable, 1–8; required).")
@click.option("-c", "--collection", default=None, help="Memory-managed collection (default: the only one).")
@click.option("--add", "add", is_flag=True, help="Store the fact beside any candidates.")
@click.option("--supersede", "supersede", default=None, metavar="URI", help="Replace this current fact.")
@click.option("--predecessor-hash", default=None, metavar="HASH", help="contentHash of the fact to replace.")
@click.option("--decision", type=click.Choice(["add", "supersede"]), default=None, help="Same as --add/--supersede.")
@click.option(
    "--predecessor",
    "predecessor_uri",
    default=None,
    metavar="URI",
    help="With --decision supersede: the URI to replace.",
)
@click.option("--receipt", default=None, metavar="FILE", help="A saved `gno recall --json` output (or its receipt).")
@click.option("--derived-from", "derived_from", multiple=True, help="Declared origin of the text (repeatable).")
@click.option("--source", default=None, help="Free-text evidence for the fact (recorded).")
@click.option("--valid-from", default=None, metavar="DATE", help="When the fact became true (ISO date or date-time).")
@identity_options[0]
@identity_options[1]
@request_id_option
@lock_wait_option
@no_wait_option
@json_option
@click.pass_context
def remember(
    ctx: click.Context,
    text: str,
    scopes: tuple[str, ...],
    collection: str | None,
    add: bool,
    supersede: str | None,
    predecessor_hash: str | None,
    decision: str | None,
    predecessor_uri: str | None,
    receipt: str | None,
    derived_from: tuple[str, ...],
    source: str | None,
    valid_from: str | None,
    caller: str | None,
    session: str | None,
    request_id: str | None,
    lock_wait: str | None,
    no_wait: bool,
    as_json: bool,
) -> None:
    """Propose one fact; store it with --add, or replace one with --supersede.

    \b
    Without a decision it writes nothing and lists likely matches from the scope.
      gno remember "Prod deploys from main only" --scope project:gno
      gno remember "Prod deploys from main only" --scope project:gno --add
      gno remember "Prod deploys from release branches" --scope project:gno \\
          --supersede gno://memory/facts/…/mem-….md --predecessor-hash <contentHash>
    """
    picked = (("add", add), ("supersede", bool(supersede or predecessor_uri)), (decision, True))
    asked = {d for d, on in picked if on and d}
    dec = decision or ("supersede" if supersede else "add" if add else None)

    def fields(e: Engine) -> dict[str, Any]:
        from gno.errors import ErrorCode, ValidationError

        if len(asked) > 1:  # `--add --supersede U` is two decisions: running either one would guess
            raise ValidationError(
                "pick one decision: --add stores a new fact beside the others, --supersede URI "
                "--predecessor-hash H replaces one",
                code=ErrorCode.MEMORY_DECISION_INVALID,
                details={"decisions": sorted(asked)},
            )
        c, s = _identity(e.settings, caller, session)
        opts: dict[str, Any] = {
            "collection": collection,
            "decision": dec,
            "predecessor_uri": supersede or predecessor_uri,
        }
        opts.update(predecessor_hash=predecessor_hash, derived_from=derived_from, source=source, request_id=request_id)
        opts["valid_from"] = valid_from
        return {"text": text, "scopes": scopes, "caller": c, "session": s, **opts, "receipt": _receipt(receipt)}

    invoke(ctx, as_json, "remember", fields, render_remember, lock_wait=lock_wait, no_wait=no_wait)


def render_remember(r: RememberResult) -> None:
    echo_text(remember_text(r))


@click.command()
@click.argument("query")
@click.option("-s", "--scope", "scopes", multiple=True, help="Scope (repeatable, 1–8; required).")
@click.option("-c", "--collection", default=None, help="Memory-managed collection (default: the only one).")
@click.option("--max-facts", default=8, show_default=True, type=int, help="At most this many facts.")
@click.option("--max-tokens", default=512, show_default=True, type=int, help="Token budget (UTF-8 bytes / 4).")
@click.option(
    "--as-of", default=None, metavar="DATE", help="The facts current at this ISO date (its end, UTC) or date-time."
)
@identity_options[0]
@identity_options[1]
@json_option
@click.pass_context
def recall(
    ctx: click.Context,
    query: str,
    scopes: tuple[str, ...],
    collection: str | None,
    max_facts: int,
    max_tokens: int,
    as_of: str | None,
    caller: str | None,
    session: str | None,
    as_json: bool,
) -> None:
    """Current facts matching QUERY in the given scopes, cited, under a budget, with a receipt."""

    def fields(e: Engine) -> dict[str, Any]:
        c, s = _identity(e.settings, caller, session)
        opts: dict[str, Any] = {"collection": collection, "max_facts": max_facts, "max_tokens": max_tokens}
        opts["as_of"] = as_of
        return {"query": query, "scopes": scopes, "caller": c, "session": s, **opts}

    invoke(ctx, as_json, "recall", fields, render_recall)


def render_recall(r: RecallResult) -> None:
    echo_text(recall_text(r))


@click.command()
@click.option("-c", "--collection", default=None, help="Only this collection.")
@click.option(
    "--max-findings", default=100, show_default=True, type=click.IntRange(1, 1000), help="Most findings listed."
)
@json_option
@click.pass_context
def audit(ctx: click.Context, collection: str | None, max_findings: int, as_json: bool) -> None:
    """Report fact files that break the memory contract. Exit 0 clean, 4 with findings."""

    def render(r: AuditResult) -> None:
        click.echo(f"Checked {r.checked} fact files: {len(r.findings)} findings")
        for f in r.findings:
            click.echo(f"  {shown(f.uri)}: {', '.join(f.codes)}")

    result: list[AuditResult] = []
    fields = {"collection": collection, "max_findings": max_findings}
    invoke(ctx, as_json, "audit", fields, render, on_result=result.append)
    if result and result[0].findings:
        ctx.exit(4)


@click.group()
def memory() -> None:
    """Facts over time: a fact's supersession chain (`gno recall --as-of DATE` recalls the past)."""


@memory.command()
@click.argument("uri")
@json_option
@click.pass_context
def history(ctx: click.Context, uri: str, as_json: bool) -> None:
    """The supersession chain through the fact at URI, oldest first, with when each was current."""

    def render(r: MemoryHistoryResult) -> None:
        for e in r.chain:
            mark = "*" if e.record.uri == r.uri else " "
            until = f" until {e.superseded_at}" if e.superseded_at else " (current)"
            click.echo(f"{mark} {e.current_from}{until}: {e.record.text}")
            click.echo(f"    {e.record.uri}  recorded {e.record.created_at}")

    invoke(ctx, as_json, "memory_history", {"uri": uri}, render)


COMMANDS = [remember, recall, audit, memory]
