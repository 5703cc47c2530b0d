"""Help that a new user can trust: every option explained, `gno query --help` complete, and the
defaults docs/commands.md states equal to the ones the CLI applies (drift tests over the click tree)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import yaml
from click.testing import CliRunner

from gno.cli.main import cli
from gno.config import ChunkingConfig

DOCS = Path(__file__).resolve().parents[1] / "docs"
COMMANDS = (DOCS / "commands.md").read_text(encoding="utf-8")
CONFIGURATION = (DOCS / "configuration.md").read_text(encoding="utf-8")


def _tree(cmd: click.Command, path: str = "gno") -> Iterator[tuple[str, click.Command]]:
    """Every command of the tree, hidden ones included (they still parse options)."""
    yield path, cmd
    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None:
                yield from _tree(sub, f"{path} {name}")


def test_every_option_of_every_command_has_help_text() -> None:
    missing = [
        f"{path} {'/'.join(p.opts)}"
        for path, cmd in _tree(cli)
        for p in cmd.params
        if isinstance(p, click.Option) and not (p.help or "").strip()
    ]
    assert len(list(_tree(cli))) > 40  # the walk really reaches the subcommands
    assert not missing, f"options without help text: {missing}"


def test_query_help_documents_the_query_options_at_its_own_level() -> None:
    out = CliRunner().invoke(cli, ["query", "--help"], prog_name="gno")
    assert out.exit_code == 0, out.output
    assert out.output.startswith("Usage: gno query [OPTIONS] QUERY")
    for flag in ("--fast", "--thorough", "--no-graph", "--candidate-limit", "--explain", "--limit", "--json"):
        assert flag in out.output, flag
    assert "diagnose" in out.output  # the subcommand stays listed and reachable
    assert " run " not in out.output  # the internal default command is not a second way to say it
    diag = CliRunner().invoke(cli, ["query", "diagnose", "--help"])
    assert diag.exit_code == 0 and "--target" in diag.output
    bare = CliRunner().invoke(cli, ["query"])
    assert "--candidate-limit" in bare.output  # no arguments: the same complete help


# -- documented defaults (docs/commands.md) --------------------------------------------------------------------------


def _resolve(words: list[str]) -> tuple[str, click.Command]:
    cmd: click.Command = cli
    path = ["gno"]
    for w in words:
        # get_command, not .commands: the root group loads its commands lazily
        sub = cmd.get_command(click.Context(cmd), w) if isinstance(cmd, click.Group) else None
        if sub is None:
            break
        cmd, path = sub, [*path, w]
    if isinstance(cmd, click.Group) and "run" in cmd.commands:  # `gno query QUERY`
        cmd = cmd.commands["run"]
    return " ".join(path), cmd


def _documented_defaults() -> list[tuple[str, click.Option, str]]:
    """(command, option, value) for every `--flag NUMBER` docs/commands.md shows."""
    found = []
    for row in COMMANDS.splitlines():
        if not row.startswith("| `gno "):
            continue
        first_cell = re.split(r"(?<!\\)\|", row)[1]
        for usage in re.findall(r"`(gno [^`]+)`", first_cell):
            path, cmd = _resolve(usage.split()[1:])
            for flag, value in re.findall(r"(?<![\w-])(-{1,2}[A-Za-z][\w-]*) ([0-9][0-9.]*[a-z]*)\b", usage):
                opt = next(
                    (p for p in cmd.params if isinstance(p, click.Option) and flag in (*p.opts, *p.secondary_opts)),
                    None,
                )
                assert opt is not None, f"docs/commands.md shows {path} {flag}, which the CLI does not have"
                found.append((path, opt, value))
    return found


def test_documented_command_defaults_equal_the_cli_defaults() -> None:
    found = _documented_defaults()
    assert len(found) >= 15, found  # the parser still reads the table
    wrong = []
    for path, opt, value in found:
        if opt.default is None:  # computed default: the option's help must state the same value
            ok = re.search(rf"\b{re.escape(value)}\b", opt.help or "") is not None
        else:
            ok = str(opt.default) == value
        if not ok:
            wrong.append(f"{path} {opt.opts[-1]}: docs {value}, CLI {opt.default!r} ({opt.help})")
    assert not wrong, wrong


def test_config_example_shows_the_default_chunking() -> None:
    block = CONFIGURATION.split("### Config file", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    chunking = yaml.safe_load(block)["chunking"]
    defaults = ChunkingConfig()
    assert chunking == {"maxTokens": defaults.max_tokens, "overlapPercent": defaults.overlap_percent}
