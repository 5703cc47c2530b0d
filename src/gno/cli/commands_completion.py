"""`gno completion bash|zsh|fish`: the shell completion script, from click's own mechanism.

The script calls `gno` back with `_GNO_COMPLETE=<shell>_complete` set; click answers with the
commands, subcommands, options and choices of the command line being typed (commands are looked
up lazily, as for any other call). Install: `eval "$(gno completion bash)"` in `~/.bashrc`,
`eval "$(gno completion zsh)"` in `~/.zshrc`, `gno completion fish > ~/.config/fish/completions/gno.fish`.
"""

from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    \b
      eval "$(gno completion bash)"        # in ~/.bashrc
      eval "$(gno completion zsh)"         # in ~/.zshrc
      gno completion fish > ~/.config/fish/completions/gno.fish
    """
    from click.shell_completion import get_completion_class

    from gno.cli.main import cli

    cls = get_completion_class(shell)
    assert cls is not None  # every name of SHELLS is one of click's
    click.echo(cls(cli, {}, "gno", "_GNO_COMPLETE").source())


COMMANDS = [completion]
