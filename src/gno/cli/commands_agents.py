"""CLI commands of the agents face: `gno agents …` (the protocol block) and `gno skill …`.

Thin like every other command: parse flags, one call into `gno.agents`, render. Neither group
touches the index; they read the environment through `Settings.env` (HOME, CLAUDE_CONFIG_DIR,
CODEX_HOME, …) so the same resolution runs in tests and in a user's shell.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from gno.cli.main import json_option, run

if TYPE_CHECKING:
    from gno.agents.install import AgentsResult, Operation
    from gno.agents.skill import SkillResult
    from gno.engine import Engine

AGENT_CHOICES = ["claude", "codex", "cursor", "opencode", "hermes", "openclaw", "all"]
SKILL_CHOICES = ["claude", "codex", "opencode", "openclaw", "hermes", "all"]


@click.group()
def agents() -> None:
    """Install the gno protocol block into agent instruction files (CLAUDE.md, AGENTS.md, …).

    \b
    The block (between <!-- gno:agents:begin --> and <!-- gno:agents:end -->) carries the
    retrieval ladder and the writing contract. Text outside the markers is never changed.
    Default targets: the harnesses whose config directory exists.
    """


F = TypeVar("F", bound=Callable[..., Any])
Op = TypeVar("Op", bound=str)


def _options(*options: Callable[[F], F]) -> Callable[[F], F]:
    """One decorator that applies `options` in the order they are listed (as `--help` shows them)."""

    def apply(f: F) -> F:
        for opt in reversed(options):
            f = opt(f)
        return f

    return apply


def _target_option(choices: list[str], help_: str) -> Callable[[F], F]:
    """`--target`, repeatable: the harnesses a command acts on (`all` = every one)."""
    return click.option("--target", "targets", multiple=True, type=click.Choice(choices), help=help_)


def _commands(
    group: click.Group,
    options: Callable[[Callable[..., None]], Callable[..., None]],
    operations: dict[Op, str],
    act: Callable[[click.Context, Op, bool, dict[str, Any]], None],
) -> None:
    """Declare `GROUP OP` for each of `operations` (OP: its help), all with the same `options`:
    each calls `act(ctx, OP, as_json, the other options by name)`."""

    def declare(op: Op) -> None:
        def command(ctx: click.Context, /, as_json: bool, **opts: Any) -> None:
            act(ctx, op, as_json, opts)

        group.command(op, help=operations[op])(options(click.pass_context(command)))

    for op in operations:
        declare(op)


_agent_options = _options(
    _target_option(AGENT_CHOICES, "Harness to act on (repeatable; `all` = every one). Default: detected harnesses."),
    click.option(
        "--extra-dir",
        "extra_dirs",
        multiple=True,
        type=click.Path(file_okay=False),
        metavar="DIR",
        help="Also act on DIR/AGENTS.md (repeatable).",
    ),
    click.option("--dry-run", is_flag=True, help="Show what would change; write nothing."),
    json_option,
)


def _render(r: AgentsResult) -> None:
    prefix = "would be " if r.dry_run else ""
    for f in r.files:
        word = f.state if r.operation == "verify" else prefix + (f.action or "")
        where = f.path if f.path == f.write_path else f"{f.path} → {f.write_path}"
        click.echo(f"{word:<12} {f.target:<9} {where}")
        if f.detail and (r.operation == "verify" or f.action in ("skipped", "absent")):
            click.echo(f"             {f.detail}")
        if f.backup:
            click.echo(f"             backup {f.backup}")
        if f.adapter:
            click.echo(f"             runtime adapter: {f.adapter}")
    if r.operation != "verify":
        done = "would change" if r.dry_run else "changed"
        click.echo(f"gno block v{r.version} sha256:{r.block_hash}: {done} {r.changed} file(s)")


#: the operations of `gno agents`: each is a command of the same options, with this help
AGENT_OPERATIONS: dict[Operation, str] = {
    "install": "Add (or refresh) the gno block; a second run changes no byte.",
    "update": "Refresh an existing gno block to the current version (files without one are skipped).",
    "verify": "Exit 0 when every block is current, 1 when one is missing, outdated or malformed, 2 unreadable.",
    "uninstall": "Remove the gno block (and the blank line it added); the rest stays byte-identical.",
}


def _run_agents(ctx: click.Context, op: Operation, as_json: bool, opts: dict[str, Any]) -> None:
    """`gno agents OP` on the targets: render, and exit with its exit code."""
    from gno.agents.install import run_agents

    box: list[AgentsResult] = []

    def call(e: Engine) -> AgentsResult:
        box.append(run_agents(op, env=e.settings.env, **opts))
        return box[0]

    run(ctx, as_json, call, _render)
    if box and box[0].exit_code:
        ctx.exit(box[0].exit_code)


_commands(agents, _agent_options, AGENT_OPERATIONS, _run_agents)


# -- skill ------------------------------------------------------------------------------------
@click.group()
def skill() -> None:
    """Install the `gno` skill (SKILL.md, CLI and MCP references, examples, memory recipes)."""


_skill_options = _options(
    click.option(
        "--scope",
        type=click.Choice(["project", "user"]),
        default="project",
        show_default=True,
        help="project: ./.claude/skills/gno …; user: ~/.claude/skills/gno …",
    ),
    _target_option(SKILL_CHOICES, "Harness (repeatable; `all` = every one). Default: claude."),
    click.option("--force", is_flag=True, help="Replace a skill directory that differs."),
    json_option,
)


def _render_skill(r: SkillResult) -> None:
    for d in r.dirs:
        click.echo(f"{d.action:<10} {d.target:<9} {d.path}")
        if d.detail:
            click.echo(f"           {d.detail}")
    if r.operation == "install":
        click.echo(f"skill files: {', '.join(r.files)}")


#: the operations of `gno skill` that write: each is a command of the same options, with this help
SKILL_OPERATIONS = {
    "install": "Write the skill; CLI and MCP references are generated from the real commands and tools.",
    "uninstall": "Remove the skill directory (only one gno installed, unless --force).",
}


def _run_skill(ctx: click.Context, op: str, as_json: bool, opts: dict[str, Any]) -> None:
    from gno.agents import skill as skills

    act = skills.install_skill if op == "install" else skills.uninstall_skill
    run(ctx, as_json, lambda e: act(env=e.settings.env, cwd=Path.cwd(), **opts), _render_skill)


_commands(skill, _skill_options, SKILL_OPERATIONS, _run_skill)


@skill.command("show")
@click.option("--file", "name", default="SKILL.md", show_default=True, help="Skill file, e.g. recipes/….md.")
@json_option
@click.pass_context
def skill_show(ctx: click.Context, name: str, as_json: bool) -> None:
    """Print a skill file as it would be installed (SKILL.md unless --file)."""
    from gno.agents.skill import SkillFile, show_skill

    def render(f: SkillFile) -> None:
        click.echo(f.content, nl=not f.content.endswith("\n"))

    run(ctx, as_json, lambda e: show_skill(name), render)


COMMANDS: list[click.Command] = [agents, skill]
