"""One file → the rows the index keeps for it, as a pure function of the file's bytes.

Reading, hashing, decoding and parsing need nothing of the index, so a large sync can run them in
worker processes (`load_all`) while the main process writes what they return: a first index then
uses a second core for the half of its work that is Python, where threads would serialise on the
GIL. Small syncs (a write, the watcher) load in-process: a worker's start-up would cost more.

The sync decides what a loaded file means for the index (unchanged bytes, a rename, a problem);
this module only says what the file is.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Generator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from gno.errors import RuntimeFailure, ValidationError
from gno.ingest.markdown import NotText, ParsedDoc, decode_source, normalize_ref, parse_markdown
from gno.ingest.problems import IngestCode
from gno.ingest.walker import WalkedFile, read_file
from gno.refs import docid_for, make_uri
from gno.store.doc_batch import DocWrite

#: files per task sent to a worker, and tasks kept in flight per worker (bounds memory: results
#: never pile up far ahead of the writer)
CHUNK_FILES = 128
IN_FLIGHT = 3


@dataclass(slots=True)
class Loaded:
    """What one file is: its hash and parsed rows, or the stage at which it failed."""

    source_hash: str = ""
    problem: tuple[IngestCode, str] | None = None  # READ_FAILED, NOT_TEXT or PARSE_FAILED
    encoding_warning: str | None = None
    frontmatter_error: str | None = None
    write: DocWrite | None = None
    parsed: ParsedDoc | None = None  # only when asked for (memory projections read it)
    text: str | None = None  # decoded, not yet parsed (see `parsed_by`)

    def __reduce__(self) -> tuple[type[Loaded], tuple[object, ...]]:
        return Loaded, (
            self.source_hash,
            self.problem,
            self.encoding_warning,
            self.frontmatter_error,
            self.write,
            self.parsed,
            self.text,
        )


def link_keys(title: str, rel_path: str) -> list[str]:
    """Keys a wiki/markdown link may use to name this document: its title and its file stem."""
    return sorted({normalize_ref(title), normalize_ref(rel_path)} - {""})


def stem(rel_path: str) -> str:
    """The file name without its last suffix (as `PurePosixPath.stem`, without building a path)."""
    name = rel_path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def prepare(collection: str, f: WalkedFile, text: str, source_hash: str, at: str) -> tuple[DocWrite, ParsedDoc]:
    """Parse one document's text into the rows the index keeps for it."""
    parsed = parse_markdown(text, fallback_title=stem(f.rel_path))
    w = DocWrite(
        collection=collection,
        rel_path=f.rel_path,
        source_hash=source_hash,
        source_size=f.size,
        source_mtime_ns=f.mtime_ns,
        docid=docid_for(source_hash),
        uri=make_uri(collection, f.rel_path),
        title=parsed.title,
        mirror_hash=parsed.mirror_hash,
        canonical=parsed.canonical,
        body=parsed.body,
        body_start_line=parsed.body_start_line,
        frontmatter=parsed.frontmatter,
        headings=[{"level": h.level, "text": h.text, "line": h.line} for h in parsed.headings],
        dates=parsed.dates,
        tags=parsed.tags,
        links=[(lk.link_type, lk.target, lk.target_norm, lk.anchor, lk.text, lk.line) for lk in parsed.links],
        edges=parsed.relations,
        indexed_at=at,
        link_keys=link_keys(parsed.title, f.rel_path),
    )
    w.encode()
    return w, parsed


def load(collection: str, f: WalkedFile, at: str, *, parse: bool = True, keep_parsed: bool = True) -> Loaded:
    """Read, hash and decode one file, and parse it unless `parse` is false (then `parsed_by`
    does it on demand: bytes a sync finds unchanged need no parse). A failure is a problem of the
    file, never raised. Without `keep_parsed` the parse tree is dropped once the rows are built
    (a worker then sends less back).
    """
    try:
        if f.size < 0:
            raise FileNotFoundError(2, "No such file or directory (dangling symlink)", f.abs_path)
        data = read_file(f.abs_path)
    except OSError as exc:
        return Loaded(problem=(IngestCode.READ_FAILED, str(exc)))
    out = Loaded(source_hash=hashlib.sha256(data).hexdigest())
    try:
        text, out.encoding_warning = decode_source(data)
    except NotText as exc:
        out.problem = (IngestCode.NOT_TEXT, str(exc))
        return out
    if parse:
        parse_into(out, collection, f, text, at, keep_parsed=keep_parsed)
    else:
        out.text = text
    return out


def parse_into(out: Loaded, collection: str, f: WalkedFile, text: str, at: str, *, keep_parsed: bool = True) -> None:
    """Build the rows of a decoded file into `out` (or record why it cannot be parsed)."""
    try:
        out.write, parsed = prepare(collection, f, text, out.source_hash, at)
    except Exception as exc:  # noqa: BLE001 - a bad file never stops the sync
        out.problem = (IngestCode.PARSE_FAILED, str(exc))
        return
    out.frontmatter_error = parsed.frontmatter_error
    if keep_parsed:
        out.parsed = parsed


def parsed_by(out: Loaded, collection: str, f: WalkedFile, at: str) -> Loaded:
    """`out` with its rows built, if `load` left the parse for later."""
    if out.text is not None:
        text, out.text = out.text, None
        parse_into(out, collection, f, text, at)
    return out


def _load_many(collection: str, files: list[tuple[str, str, int, int]], at: str, keep_parsed: bool) -> list[Loaded]:
    """A worker's task: a run of files, in order."""
    return [load(collection, WalkedFile(*f), at, keep_parsed=keep_parsed) for f in files]


def _worker_start(parent: int) -> None:
    """Tie a worker's life to its parent's: a killed `gno update` leaves no worker behind.

    A forked worker holds its own copy of the task pipe, so it would never see the parent go.
    Linux delivers SIGKILL on the parent's death (`PR_SET_PDEATHSIG`); elsewhere a daemon thread
    polls for the parent.
    """
    try:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
            raise OSError(ctypes.get_errno(), "prctl")
    except (OSError, AttributeError):  # not Linux

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


_PR_SET_PDEATHSIG = 1


def may_fork() -> bool:
    """Whether worker processes may be forked here: not beside other threads (their locks would
    be copied held), and only where fork exists."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


def default_workers() -> int:
    """Worker processes for a large sync: the cores left idle beside this process, at most 3.

    A worker pays only on a core nobody else wants: shipping parsed rows between processes costs
    about a third more CPU in all, so on a busy machine (load average within half a core of the
    core count) the sync stays in one process, as `make -l` holds back jobs under load.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this platform
        load = 0.0
    return max(0, min(cores - 1, 3, math.floor(cores - load - 0.5)))


def index_workers(env: Mapping[str, str]) -> int:
    """`GNO_INDEX_WORKERS` (0 keeps a sync in one process), else `default_workers()`."""
    raw = env.get("GNO_INDEX_WORKERS", "").strip()
    if not raw:
        return default_workers()
    if not raw.isdigit():
        raise ValidationError(f"GNO_INDEX_WORKERS={raw!r}: use a whole number of worker processes (0: none)")
    return int(raw)


def load_all(
    collection: str, files: Sequence[WalkedFile], at: str, workers: int, *, keep_parsed: bool = True
) -> Generator[Loaded, None, None]:
    """`load` of every file, in order, computed by `workers` forked processes.

    In-process instead (with the parse left to `parsed_by`, so unchanged bytes are never parsed)
    when `workers` is 0 or this process runs other threads (a server, the watcher): a fork copies
    locks those threads may hold, and spawning would re-run the caller's main module. Closing the
    iterator early stops the workers; a worker that dies ends the sync with a clear error.
    """
    if workers <= 0 or not may_fork():
        for f in files:
            yield load(collection, f, at, parse=False)
        return
    tasks = (
        [(f.rel_path, f.abs_path, f.size, f.mtime_ns) for f in files[i : i + CHUNK_FILES]]
        for i in range(0, len(files), CHUNK_FILES)
    )
    # with fork, the executor starts every worker before its own management thread
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_start, initargs=(os.getpid(),)) as pool:
        pending: deque[Future[list[Loaded]]] = deque()

        def submit() -> None:
            task = next(tasks, None)
            if task is not None:
                pending.append(pool.submit(_load_many, collection, task, at, keep_parsed))

        try:
            for _ in range(workers * IN_FLIGHT):
                submit()
            while pending:
                done = pending.popleft().result()
                submit()
                yield from done
        except BrokenProcessPool as exc:
            raise RuntimeFailure(
                "a worker process reading the files died (out of memory?); what was committed is kept: "
                "run `gno update` again, or with GNO_INDEX_WORKERS=0 to read in one process"
            ) from exc
        finally:
            for fut in pending:
                fut.cancel()
