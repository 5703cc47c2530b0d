"""The console script's entry point: the resident owner, then a cold handler, then click.

`gno ARGS` is answered by the first of:

1. `gno --version`, here;
2. the resident owner of the data directory (`gno daemon`, `gno serve`), when one answers on its
   command socket (`gno.cli.forward`): it runs the same click command in a warm process with this
   process's stdin/stdout/stderr, cwd and environment, so nothing here imports click, pydantic or
   a model. `GNO_NO_DAEMON=1` or the global `--no-daemon` skips it; the owner's own lifecycle
   commands (`daemon`, `serve`) always run here;
3. a cold handler (`COLD_HANDLERS`): importing click, pydantic and YAML costs several times a
   whole BM25 search, so the commands people and agents run most often in a fresh process have
   a path that composes the same core calls as the engine without them and renders through the
   same renderers. A handler raises `Unhandled` for anything it does not know exactly -- help, an
   option, a value that does not parse, a config to validate again, any error -- and prints
   nothing before its result is complete, so handing over never duplicates output;
4. the click CLI (`gno.cli.main`), which parses the arguments again and answers or reports as usual.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: `gno --version` imports nothing beyond this module
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

#: `gno` options before the command that take a value / are flags (as in `gno.cli.main.cli`)
GLOBAL_VALUES = {"--index": "index", "--config": "config"}
GLOBAL_FLAGS = {"--verbose": "verbose", "--no-daemon": "no_daemon"}

#: command → (module, function) answering it without click when no resident owner does; the function
#: takes (command, global options, the rest of the arguments) and returns stdout, or (stdout, stderr)
COLD_HANDLERS: dict[str, tuple[str, str]] = {
    "search": ("gno.cli.cold_search", "cold_search"),
    "update": ("gno.cli.cold_update", "cold_update"),
    **dict.fromkeys(("get", "multi-get", "ls", "links", "backlinks", "changes"), ("gno.cli.cold_read", "cold_read")),
    "recall": ("gno.cli.cold_memory", "cold_recall"),
    "remember": ("gno.cli.cold_memory", "cold_remember"),
    "status": ("gno.cli.cold_status", "cold_status"),
}


class Unhandled(Exception):
    """The arguments are not plain enough for a cold handler: let click parse them."""


def options(
    args: Sequence[str],
    values: dict[str, str],
    flags: dict[str, str],
    *,
    stop_at_word: bool,
    multi: set[str] | frozenset[str] = frozenset(),
) -> tuple[dict[str, Any], list[str], int]:
    """Options (by destination; a repeatable one as a list), positional words and where parsing stopped."""
    opts: dict[str, Any] = {}
    words: list[str] = []
    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "--" and not stop_at_word:
            words.extend(args[i + 1 :])
            return opts, words, len(args)
        name, eq, inline = tok.partition("=")
        if (name in values and tok.startswith("--") and eq) or tok in values:
            if not eq and (i + 1 >= len(args) or args[i + 1].startswith("-")):
                raise Unhandled(tok)
            dest, value = (values[name], inline) if eq else (values[tok], args[i + 1])
            i += 0 if eq else 1
            if dest in multi:
                opts.setdefault(dest, []).append(value)
            else:
                opts[dest] = value
        elif tok in flags:
            opts[flags[tok]] = True
        elif tok.startswith("-") and tok != "-":
            raise Unhandled(tok)  # -h, unknown options, `-legacy` negations: click decides
        elif stop_at_word:
            return opts, words, i
        else:
            words.append(tok)
        i += 1
    return opts, words, i


def fast_output(args: Sequence[str]) -> tuple[str, str] | None:
    """What this path prints for `args` (stdout, stderr), or None when the click CLI must handle them."""
    if list(args) == ["--version"]:
        from gno import __version__

        return f"gno, version {__version__}\n", ""
    try:
        glob, _, at = options(args, GLOBAL_VALUES, GLOBAL_FLAGS, stop_at_word=True)
        handler = COLD_HANDLERS.get(args[at]) if at < len(args) else None
        if handler is None:
            return None
        module, function = handler
        answer = getattr(__import__(module, fromlist=[function]), function)(args[at], glob, args[at + 1 :])
        return (answer, "") if isinstance(answer, str) else (str(answer[0]), str(answer[1]))
    except Exception:  # noqa: BLE001 - any error is the click CLI's to report, the same way as always
        return None


def owner_exit_code(args: Sequence[str]) -> int | None:
    """The exit code of `gno ARGS` run by the data directory's resident owner, or None (run it here)."""
    try:
        glob, _, at = options(args, GLOBAL_VALUES, GLOBAL_FLAGS, stop_at_word=True)
    except Unhandled:  # `gno -h`, an option before the command that only click knows
        glob, at = {}, len(args)
    from gno.cli.forward import LOCAL_COMMANDS, run_on_owner

    if glob.get("no_daemon") or (at < len(args) and args[at] in LOCAL_COMMANDS):
        return None
    if os.environ.get("GNO_NO_DAEMON", "").strip().lower() in {"1", "true", "yes", "on"}:
        return None
    from gno import __version__
    from gno.settings import build_settings

    try:  # `gno mcp` fills in the GNO_* locations a stdio client stripped, as the command itself does
        data_root = build_settings(inherit_parent_env=at < len(args) and args[at] == "mcp").data_root
    except Exception:  # noqa: BLE001 - an invalid $GNO_INDEX: click reports it, in-process
        return None
    return run_on_owner(args, data_root, __version__)


def main() -> None:
    args = sys.argv[1:]
    if args != ["--version"]:
        code = owner_exit_code(args)
        if code is not None:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    try:
        out = fast_output(args)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    if out is None:
        from gno.cli.main import main as click_main

        click_main(args)
        return
    try:
        sys.stdout.write(out[0])
        sys.stdout.flush()
        if out[1]:
            sys.stderr.write(out[1])
    except BrokenPipeError:  # `gno search x | head`: the reader left, which is no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    # Everything is written and the index is closed: skip the interpreter's teardown (freeing every
    # module and object one by one), which costs a third of a bare `python -c pass`.
    sys.stderr.flush()
    os._exit(0)
