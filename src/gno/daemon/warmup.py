"""Warming the command template once (and its vector matrix when the index changed), and each forked
worker while it waits for a command.

The template (`gno.daemon.command_server`) imports everything, builds the pydantic validators,
loads the embedding model and the capsule's token counter once (`preload`), so no worker pays
for them. That is not all a first command pays for, though: a forked worker shares the
template's memory copy-on-write, and the first time it writes a page -- a reference count of
every object a command touches, onnxruntime's and the tokenizer's buffers -- the kernel copies
it. A recall touched ~3,100 such pages (12.7 MB) and ran in twice the CPU time of the same
recall run again in the same process.

So a spare worker, while it waits, runs the common read commands (`WARM_COMMANDS`) once on a
scratch index of its own (`build_scratch`: three notes and two facts under `<data>/run/warm`,
embedded with the configured model when the template keeps it warm): the pages the caller's
command will touch are copied before the caller arrives. The scratch index is never the user's,
so warming reads no note, takes no lease and writes nothing the user sees; the worker's state
afterwards is that of a fresh fork for everything a command reads (`_run` sets the caller's fds,
cwd, environment, umask and logging anew; caches of the process are keyed by what they cache).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal

from gno.config import Settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

log = logging.getLogger("gno.daemon")

WARM_DIR = "warm"
NOTES = {
    "deploys.md": "# Deploys\n\nDeploys go out on Tuesdays after the review of the release notes.\n",
    "reviews.md": "# Reviews\n\nEvery change gets a review; see [[deploys]] for the release train.\n",
    "design.md": "---\ntags: [design]\n---\n# Design research\n\nInterviews come before the prototype.\n",
}
FACTS = ("Deploys happen on Tuesdays.", "Design reviews need two approvals.")
#: what a waiting worker runs on the scratch index: the commands agents run through the owner
WARM_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("recall", "deploys", "-s", "team", "--json"),
    ("query", "when do deploys happen", "--json"),
    ("search", "review", "--json"),
    ("ask", "when do deploys go out", "--json"),
)


# -- the template ------------------------------------------------------------------------------
def preload(settings: Settings) -> dict[str, str] | None:
    """Import everything a command may need and build what is built lazily, once, for every worker;
    then the scratch index the workers warm up on (its environment, None: none)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no rayon pool in a process that forks
    import importlib
    import pkgutil

    import gno

    for info in pkgutil.walk_packages(gno.__path__, "gno."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except Exception as exc:  # noqa: BLE001 - an extra that is not installed: its commands say so
            log.debug("not preloaded: %s (%s)", info.name, exc)
    from gno.cli import main as cli_main
    from gno.contract import CAPABILITIES

    cli_main._load_all()
    for cap in CAPABILITIES:
        with contextlib.suppress(Exception):
            cap.mcp_tool()  # the request and result models, and the tool schemas `gno mcp` lists
    first_call = ("difflib", "getpass", "termios", "click._textwrap", "importlib.resources.readers")
    for name in (*first_call, "importlib.readers", "encodings.utf_8_sig", "encodings.utf_16_le"):
        with contextlib.suppress(ImportError):  # what commands import on their first call
            importlib.import_module(name)
    _build_models()
    spec, warm = _warm_embedders(settings)
    _warm_evidence()
    scratch = build_scratch(settings, spec, embed=warm)
    share_index(settings)
    return scratch


_VECTORS_SEEN: list[tuple[int, ...]] = []


def share_index(settings: Settings) -> None:
    """Load the user's vector matrix (the model that ranks `query` now) and the words of each
    collection that `ask` tells names by (`gno.evidence.confidence.collection_words`) for the workers
    forked after this, unless the index file and its log are as they were at the last call, or the
    matrix is unchanged (`gno.retrieve.vectors.shared`: a worker uses it only while documents and
    vectors are of the same generation; the words are keyed by the index's change id). The
    connection is closed before any fork. Then the template's objects are frozen, so a worker's
    garbage collections never walk (and so copy) them."""
    import gc

    stamp: list[int] = []
    for path in (settings.db_location, settings.db_location + "-wal"):
        try:
            st = os.stat(path)
            stamp += [st.st_ino, st.st_size, st.st_mtime_ns]
        except OSError:
            stamp += [0, 0, 0]
    if stamp[0] and tuple(stamp) not in _VECTORS_SEEN:
        _VECTORS_SEEN[:] = [tuple(stamp)]
        from gno.engine import Engine
        from gno.retrieve.vectors import keep_shared

        engine = Engine(settings)
        try:
            idx = engine.semantic.index()  # the kept one itself while unchanged
            if idx.ann is None:
                keep_shared(engine.store.path, idx)
        except Exception as exc:  # noqa: BLE001 - no vectors (yet), or no model: workers load nothing either
            log.debug("no vectors shared: %s", exc)
        try:
            from gno.evidence.confidence import collection_words

            for coll in engine.config.collections:
                collection_words(engine.store, coll.name)
        except Exception as exc:  # noqa: BLE001 - a broken config or index: the command reports it
            log.debug("no vocabulary shared: %s", exc)
        finally:
            engine.close()
    gc.collect()
    gc.freeze()


def _build_models() -> None:
    from pydantic import BaseModel

    seen: set[type[BaseModel]] = set()
    todo: list[type[BaseModel]] = [BaseModel]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    for cls in seen:
        if cls.__module__.startswith("gno.") and not cls.__pydantic_generic_metadata__["parameters"]:
            with contextlib.suppress(Exception):
                cls.model_rebuild()


def _warm_embedders(settings: Settings) -> tuple[str | None, bool]:
    """Load the configured model (and MiniLM, the re-scorer of a static one) for every worker;
    (the configured spec, whether it is kept warm)."""
    from gno.config import load_config
    from gno.embed.registry import keep_warm

    try:
        spec = load_config(settings, must_exist=False).models.embed
    except Exception as exc:  # noqa: BLE001 - a broken config is the command's to report
        log.info("no embedder preloaded: %s", exc)
        return None, False
    warm = False
    for name in dict.fromkeys([spec, "minilm"]):
        try:
            keep_warm(name)
            warm = warm or name == spec
        except Exception as exc:  # noqa: BLE001 - unavailable models degrade in the command, as always
            log.info("embedder %s not preloaded: %s", name or "default", exc)
    return spec, warm


def _warm_evidence() -> None:
    """The capsule's token counter (the MiniLM WordPiece vocabulary, parsed once) for `ask` and
    `context build`: built per command, it was a tenth of a warm `ask`."""
    from gno.evidence.canonical import token_counter

    try:
        token_counter().count("warm up")
    except Exception as exc:  # noqa: BLE001 - the command reports a broken tokenizer itself
        log.info("no token counter preloaded: %s", exc)


# -- the scratch index and the workers ------------------------------------------------------------
def scratch_home(data_root: str) -> str:
    return os.path.join(data_root, "run", WARM_DIR)


def remove_scratch(data_root: str) -> None:
    shutil.rmtree(scratch_home(data_root), ignore_errors=True)


def scratch_env(data_root: str) -> dict[str, str]:
    home = scratch_home(data_root)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(
        GNO_CONFIG_DIR=os.path.join(home, "config"),
        GNO_DATA_DIR=os.path.join(home, "data"),
        GNO_CACHE_DIR=os.path.join(home, "cache"),
        GNO_MEMORY_CALLER="warm-up",
        GNO_MEMORY_SESSION="warm-up",
    )
    return env


def _config_text(home: str, spec: str | None) -> str:
    """The scratch `index.yml` (JSON strings are YAML strings)."""
    from json import dumps

    models = f"models:\n  embed: {dumps(spec)}\n" if spec else ""
    return (
        f"version: '1.0'\n{models}collections:\n"
        f"- name: notes\n  path: {dumps(os.path.join(home, 'notes'))}\n"
        f"- name: memory\n  path: {dumps(os.path.join(home, 'memory'))}\n  memoryManaged: true\n"
    )


def build_scratch(settings: Settings, spec: str | None, embed: bool) -> dict[str, str] | None:
    """Write and index the scratch home in a forked child (its writes and caches stay there); its
    environment, or None when it could not be built (workers then simply start cold)."""
    env = scratch_env(settings.data_root)
    home = scratch_home(settings.data_root)
    remove_scratch(settings.data_root)
    os.makedirs(os.path.dirname(home), mode=0o700, exist_ok=True)
    reaping = signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the template lets the kernel reap its workers
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            _quiet_stdio()
            for folder in ("notes", "memory", "config"):
                os.makedirs(os.path.join(home, folder), mode=0o700)
            for name, text in NOTES.items():
                with open(os.path.join(home, "notes", name), "w", encoding="utf-8") as fh:
                    fh.write(text)
            with open(os.path.join(env["GNO_CONFIG_DIR"], "index.yml"), "w", encoding="utf-8") as fh:
                fh.write(_config_text(home, spec))
            steps = [("update",), *(("remember", f, "-s", "team", "--add") for f in FACTS)]
            if embed:
                steps.append(("embed",))
            code = max(_run_quietly(env, step) for step in steps)
        finally:
            os._exit(code)
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGCHLD, reaping)
    if status != 0:
        log.info("no scratch index to warm workers on (status %d)", status)
        return None
    return env


def warm_worker(env: dict[str, str] | None, caller_waiting: Callable[[], bool]) -> None:
    """Run `WARM_COMMANDS` on the scratch index, output discarded, then restore the environment;
    stop early when a caller is waiting (it goes first)."""
    if env is None:
        return
    import gc

    saved = dict(os.environ)
    fds = [os.dup(fd) for fd in (0, 1, 2)]
    try:
        _quiet_stdio()
        for args in WARM_COMMANDS:
            if caller_waiting():
                break
            _run_quietly(env, args)
    finally:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.environ.clear()
        os.environ.update(saved)
        gc.collect()  # the warm-up's engines and connections to the scratch index


def _quiet_stdio() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _run_quietly(env: dict[str, str], args: tuple[str, ...]) -> int:
    """`gno ARGS` in this process with `env`, nothing logged or printed; its exit code."""
    import sys
    import warnings

    from gno.daemon.command_server import caller_stdio, exit_code

    os.environ.clear()
    os.environ.update(env)
    saved = sys.stdin, sys.stdout, sys.stderr
    logging.disable(logging.CRITICAL)
    try:
        caller_stdio()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return exit_code(list(args))
    except Exception:  # noqa: BLE001 - a warm-up that fails only leaves the worker colder
        return 1
    finally:
        logging.disable(logging.NOTSET)
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdin, sys.stdout, sys.stderr = saved
