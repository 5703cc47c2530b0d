"""Retry-safe writes under `kill -9`: duplicate writes over N retried captures and remembers.

One isolated gno home (a notes collection and a memory collection, in a temp folder). Each of N
writes (alternately a capture and a remember add, each with its own text) is made by a forked
writer process that is killed with SIGKILL at a random point, then retried by a fresh process
until one attempt completes. The kill point is drawn per write: half the writes die at a random
time after the writer starts (uniform over 0..T, T the median duration of an unkilled write, so
the kill lands anywhere from start-up to the commit, or after it); the other half die at one of
the protocol's steps (plan recorded, file written, file indexed, before and after the commit),
reached through the real functions, so every step is covered however fast the machine.

Then the files are counted: a write is a duplicate for every file beyond the first holding its
text. The same run without request IDs is the floor (what the ledger prevents): there a retry
after a kill that came after the file was written writes a second note (captures use
`create_with_suffix`; remember would answer `existing` for the same text, so its floor counts
captures only).

    nice -n 10 python bench/request_ids.py [--writes 500] [--seed 7] [--json]

Prints: writes, kills that landed (the writer died before answering), duplicates with request IDs
(target 0), duplicates without, and writes whose retry replayed a result committed by the killed
attempt.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STEPS = ("planned", "written", "indexed", "before_commit", "committed")


def _home(root: Path) -> None:
    for key, sub in (("GNO_CONFIG_DIR", "config"), ("GNO_DATA_DIR", "data"), ("GNO_CACHE_DIR", "cache")):
        os.environ[key] = str(root / sub)
    for key in ("GNO_INDEX", "GNO_MEMORY_CALLER", "GNO_MEMORY_SESSION"):
        os.environ.pop(key, None)
    (root / "notes").mkdir(parents=True)
    (root / "memory").mkdir()
    (root / "notes" / "readme.md").write_text("# Notes\n\nA scratch collection.\n", encoding="utf-8")
    cfg = root / "config"
    cfg.mkdir()
    (cfg / "index.yml").write_text(
        'version: "1.0"\ncollections:\n'
        f'  - {{name: notes, path: "{root / "notes"}", pattern: "**/*.md"}}\n'
        f'  - {{name: memory, path: "{root / "memory"}", pattern: "**/*.md", memoryManaged: true}}\n',
        encoding="utf-8",
    )


def _die_at(step: str) -> None:
    """In the writer: SIGKILL itself when the protocol reaches `step` (wrapping the real functions)."""
    import gno.engine
    import gno.memory.remember
    import gno.writes.capture
    from gno.store import requests as rq

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    def after(owner: Any, name: str, when: Any = lambda *a, **k: True) -> None:
        real = getattr(owner, name)

        def wrapped(*a: Any, **k: Any) -> Any:
            out = real(*a, **k)
            if when(*a, **k):
                die()
            return out

        setattr(owner, name, wrapped)

    if step == "planned":
        after(rq.LedgerDb, "put_pending", lambda self, rid, op, intent, plan, at: plan is not None)
    elif step == "written":
        after(gno.writes.capture, "exclusive_create")
        after(gno.memory.remember, "exclusive_create")
    elif step == "indexed":
        after(gno.engine.Engine, "sync_paths")
    elif step == "before_commit":
        real = rq.LedgerDb.commit

        def dying(*a: Any, **k: Any) -> Any:
            die()
            return real(*a, **k)

        rq.LedgerDb.commit = dying  # type: ignore[method-assign]
    else:
        after(rq.LedgerDb, "commit")


def _write(i: int, with_ids: bool) -> Any:
    import gno

    client = gno.Client.open(caller="bench", session=f"s{os.getpid()}")
    rid = {"request_id": f"w-{i}"} if with_ids else {}
    if i % 2 == 0 or not with_ids:
        return client.capture(
            f"Captured note number {i}.", collection="notes", collision_policy="create_with_suffix", **rid
        )
    return client.remember(f"Fact number {i} holds.", scopes=["bench:ids"], decision="add", **rid)


def _child(i: int, with_ids: bool, step: str | None) -> int:
    pid = os.fork()
    if pid == 0:  # the writer
        code = 0
        try:
            if step is not None:
                _die_at(step)
            _write(i, with_ids)
        except BaseException as exc:  # noqa: BLE001 - report by exit code only
            print(f"write {i}: {type(exc).__name__}: {exc}", file=sys.stderr)
            code = 1
        os._exit(code)
    return pid


def _run(i: int, with_ids: bool, kill: tuple[str, float | str]) -> tuple[bool, int]:
    """(the kill landed, attempts until a write completed)."""
    mode, at = kill
    pid = _child(i, with_ids, at if mode == "step" else None)
    if mode == "time":
        time.sleep(float(at))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    landed = os.WIFSIGNALED(status)
    attempts = 1
    if not landed and os.WEXITSTATUS(status) != 0:
        raise SystemExit(f"write {i} failed without a kill")
    if landed:
        while True:
            attempts += 1
            pid = _child(i, with_ids, None)
            _, status = os.waitpid(pid, 0)
            if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
                break
            if attempts > 5:
                raise SystemExit(f"write {i}: the retry keeps failing")
    return landed, attempts


def _count(root: Path, n: int) -> dict[int, int]:
    counts = dict.fromkeys(range(n), 0)
    for folder in ("notes", "memory"):
        for p in (root / folder).rglob("*.md"):
            text = p.read_text(encoding="utf-8")
            for marker in ("Captured note number ", "Fact number "):
                if marker in text:
                    i = int(text.split(marker, 1)[1].split()[0].rstrip("."))
                    if i in counts:  # the timing writes (n and above) are not counted
                        counts[i] += 1
    return counts


def _replayed(root: Path, n: int) -> int:
    import gno

    with gno.Client.open() as client:
        return sum(1 for i in range(n) if client.request_status(f"w-{i}").status == "committed")


def run(n: int, seed: int, with_ids: bool) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="gno-request-ids-"))
    _home(root)
    from gno.config import build_settings
    from gno.engine import Engine

    engine = Engine(build_settings())
    engine.update()
    engine.close()
    durations = []
    for j in range(5):  # unkilled writes: how long one takes (the window the random kills land in)
        t = time.perf_counter()
        pid = _child(n + j, with_ids, None)
        os.waitpid(pid, 0)
        durations.append(time.perf_counter() - t)
    window = statistics.median(durations)
    rng = random.Random(seed)
    landed = 0
    for i in range(n):
        kill: tuple[str, float | str] = (
            ("time", rng.uniform(0, window)) if rng.random() < 0.5 else ("step", rng.choice(STEPS))
        )
        died, _ = _run(i, with_ids, kill)
        landed += died
    counts = _count(root, n)
    dup = sum(max(0, c - 1) for c in counts.values())
    missing = sum(1 for c in counts.values() if c == 0)
    out = {"writes": n, "withRequestIds": with_ids, "killsLanded": landed, "duplicates": dup, "missing": missing}
    out["writeSeconds"] = round(window, 3)
    if with_ids:
        out["committed"] = _replayed(root, n)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--writes", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--floor-writes", type=int, default=100, help="writes of the run without request IDs")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with_ids = run(args.writes, args.seed, True)
    floor = run(args.floor_writes, args.seed, False)
    report = {"withIds": with_ids, "withoutIds": floor}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"with request IDs:    {with_ids['writes']} writes, {with_ids['killsLanded']} writers killed, "
        f"{with_ids['duplicates']} duplicates, {with_ids['missing']} missing, "
        f"{with_ids['committed']} committed in the ledger (write ~{with_ids['writeSeconds']} s)"
    )
    print(
        f"without request IDs: {floor['writes']} captures, {floor['killsLanded']} writers killed, "
        f"{floor['duplicates']} duplicates, {floor['missing']} missing"
    )


if __name__ == "__main__":
    main()
