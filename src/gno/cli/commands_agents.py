"""CLI commands of the agents face: `gno agents …` (the protocol block) and `gno skill …`.

Thin like every other command: parse flags, one call into `gno.agents`, render. Neither group
touches the index; they read the environment through `Settings.env` (HOME, CLAUDE_CONFIG_DIR,
CODEX_HOME, …) so the same resolution runs in tests and in a user's shell.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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


def _agent_options(f: click.decorators.FC) -> click.decorators.FC:
    for opt in reversed(
        [
            click.option(
                "--target",
                "targets",
                multiple=True,
                type=click.Choice(AGENT_CHOICES),
                help="Harness to act on (repeatable; `all` = every one). Default: detected harnesses.",
            ),
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
        ]
    ):
        f = opt(f)
    return f


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


def _agents_cmd(
    ctx: click.Context,
    op: Operation,
    targets: tuple[str, ...],
    extra_dirs: tuple[str, ...],
    dry_run: bool,
    as_json: bool,
) -> None:
    from gno.agents.install import run_agents

    box: list[AgentsResult] = []

    def call(e: Engine) -> AgentsResult:
        box.append(run_agents(op, targets=targets, extra_dirs=extra_dirs, env=e.settings.env, dry_run=dry_run))
        return box[0]

    run(ctx, as_json, call, _render)
    if box and box[0].exit_code:
        ctx.exit(box[0].exit_code)


@agents.command("install")
@_agent_options
@click.pass_context
def agents_install(
    ctx: click.Context, targets: tuple[str, ...], extra_dirs: tuple[str, ...], dry_run: bool, as_json: bool
) -> None:
    """Add (or refresh) the gno block; a second run changes no byte."""
    _agents_cmd(ctx, "install", targets, extra_dirs, dry_run, as_json)


@agents.command("update")
@_agent_options
@click.pass_context
def agents_update(
    ctx: click.Context, targets: tuple[str, ...], extra_dirs: tuple[str, ...], dry_run: bool, as_json: bool
) -> None:
    """Refresh an existing gno block to the current version (files without one are skipped)."""
    _agents_cmd(ctx, "update", targets, extra_dirs, dry_run, as_json)


@agents.command("verify")
@_agent_options
@click.pass_context
def agents_verify(
    ctx: click.Context, targets: tuple[str, ...], extra_dirs: tuple[str, ...], dry_run: bool, as_json: bool
) -> None:
    """Exit 0 when every block is current, 1 when one is missing, outdated or malformed, 2 unreadable."""
    _agents_cmd(ctx, "verify", targets, extra_dirs, dry_run, as_json)


@agents.command("uninstall")
@_agent_options
@click.pass_context
def agents_uninstall(
    ctx: click.Context, targets: tuple[str, ...], extra_dirs: tuple[str, ...], dry_run: bool, as_json: bool
) -> None:
    """Remove the gno block (and the blank line it added); the rest stays byte-identical."""
    _agents_cmd(ctx, "uninstall", targets, extra_dirs, dry_run, as_json)


# -- skill ------------------------------------------------------------------------------------
@click.group()
def skill() -> None:
    """Install the `gno` skill (SKILL.md, CLI and MCP references, examples, memory recipes)."""


def _skill_options(f: click.decorators.FC) -> click.decorators.FC:
    for opt in reversed(
        [
            click.option(
                "--scope",
                type=click.Choice(["project", "user"]),
                default="project",
                show_default=True,
                help="project: ./.claude/skills/gno …; user: ~/.claude/skills/gno …",
            ),
            click.option(
                "--target",
                "targets",
                multiple=True,
                type=click.Choice(SKILL_CHOICES),
                help="Harness (repeatable; `all` = every one). Default: claude.",
            ),
            click.option("--force", is_flag=True, help="Replace a skill directory that differs."),
            json_option,
        ]
    ):
        f = opt(f)
    return f


def _render_skill(r: SkillResult) -> None:
    for d in r.dirs:
        click.echo(f"{d.action:<10} {d.target:<9} {d.path}")
        if d.detail:
            click.echo(f"           {d.detail}")
    if r.operation == "install":
        click.echo(f"skill files: {', '.join(r.files)}")


@skill.command("install")
@_skill_options
@click.pass_context
def skill_install(ctx: click.Context, scope: str, targets: tuple[str, ...], force: bool, as_json: bool) -> None:
    """Write the skill; CLI and MCP references are generated from the real commands and tools."""
    from gno.agents.skill import install_skill

    run(
        ctx,
        as_json,
        lambda e: install_skill(scope=scope, targets=targets, force=force, env=e.settings.env, cwd=Path.cwd()),
        _render_skill,
    )


@skill.command("uninstall")
@_skill_options
@click.pass_context
def skill_uninstall(ctx: click.Context, scope: str, targets: tuple[str, ...], force: bool, as_json: bool) -> None:
    """Remove the skill directory (only one gno installed, unless --force)."""
    from gno.agents.skill import uninstall_skill

    run(
        ctx,
        as_json,
        lambda e: uninstall_skill(scope=scope, targets=targets, force=force, env=e.settings.env, cwd=Path.cwd()),
        _render_skill,
    )


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
