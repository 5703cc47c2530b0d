"""Generate the command and error references in docs/ from the click tree and the error table.

The markdown files carry cog blocks (cogapp) that call these functions, so the references are
regenerated with `cog -r -I scripts docs/cli.md docs/errors.md` and a test checks them with
`cog --check` (a command or an error code added without regenerating fails the suite).
"""

from __future__ import annotations

import click
from click.testing import CliRunner

WIDTH = 100


def _walk(group: click.Group, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], click.Command]]:
    out: list[tuple[tuple[str, ...], click.Command]] = []
    ctx = click.Context(group)  # the root group loads its commands lazily: ask it, not `.commands`
    for name in sorted(group.list_commands(ctx)):
        cmd = group.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        out.append(((*path, name), cmd))
        if isinstance(cmd, click.Group):
            out.extend(_walk(cmd, (*path, name)))
    return out


def _help(path: tuple[str, ...]) -> str:
    from gno.cli.main import cli

    result = CliRunner().invoke(cli, [*path, "--help"], prog_name="gno", terminal_width=WIDTH)
    if result.exit_code != 0:
        raise RuntimeError(f"gno {' '.join(path)} --help exited {result.exit_code}: {result.output}")
    return result.output.rstrip() + "\n"


def commands_markdown() -> str:
    """A summary table, then one section per command: its `--help`, as click prints it at a fixed width."""
    from gno.cli.main import cli

    walked = _walk(cli, ())  # every visible command, sorted, groups before their subcommands
    lines = ["| Command | Summary |", "| --- | --- |"]
    for path, cmd in walked:
        anchor = "gno-" + "-".join(path)
        summary = (cmd.get_short_help_str(limit=90) or "").replace("|", "\\|")
        lines.append(f"| [`gno {' '.join(path)}`](#{anchor}) | {summary} |")
    parts = ["\n".join(lines) + "\n"]
    for path in [(), *(p for p, _ in walked)]:
        parts.append(f"\n## {' '.join(('gno', *path))}\n\n```text\n{_help(path)}```\n")
    return "".join(parts)


def errors_markdown() -> str:
    """The error table: code, CLI exit code, HTTP status, kind and what it means."""
    from gno.errors import ERROR_MEANINGS, ERROR_TABLE, ErrorCode

    rows = ["| Code | Exit | HTTP | Kind | Meaning |", "| --- | --- | --- | --- | --- |"]
    for code in ErrorCode:
        m = ERROR_TABLE[code]
        rows.append(f"| `{code.value}` | {m.exit_code} | {m.http_status} | {m.kind} | {ERROR_MEANINGS[code]} |")
    return "\n".join(rows) + "\n"
