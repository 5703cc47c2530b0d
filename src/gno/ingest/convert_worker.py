"""The conversion worker: a child process that runs converters, one file at a time.

Converters parse untrusted files with native libraries (pdfium, lxml, zip readers). Running them
here means a segfault, a zip bomb or a parser stuck in a loop ends this process, never `gno update`
or the resident owner: the parent (`gno.ingest.convert_pool`) kills it when a file overruns its
time budget and starts a fresh one for the next file. The address space is capped too, so a file
that explodes in memory fails with MemoryError here instead of swapping the machine.

Protocol, one JSON object per line: the parent sends `{"sys_path": [...], "memory_bytes": N}`
once, then `{"target", "path", "max_chars"}` per file; the worker answers each file with
`{"ok": true, "markdown", "truncated"}` or `{"ok": false, "code", "message"}`.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import import_module
from typing import Any


def _limit_memory(limit: int) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # not on this platform: the time budget still holds
        pass


def convert_one(req: dict[str, Any]) -> dict[str, Any]:
    from gno.ingest.converters import Budget, Refused

    budget = Budget(max_chars=int(req["max_chars"]))
    try:
        module, _, name = str(req["target"]).partition(":")
        fn = getattr(import_module(module), name)
        markdown = fn(str(req["path"]), budget)
        if not isinstance(markdown, str):
            raise TypeError(f"converter returned {type(markdown).__name__}, not markdown text")
    except Refused as exc:
        return {"ok": False, "code": str(exc.code), "message": exc.message}
    except MemoryError:
        return {"ok": False, "code": "CONVERT_TOO_LARGE", "message": "the conversion ran out of its memory budget"}
    except Exception as exc:  # noqa: BLE001 - every failure becomes a named reason for `status`
        return {"ok": False, "code": "CONVERT_FAILED", "message": f"{type(exc).__name__}: {exc}"[:500]}
    truncated = len(markdown) > budget.max_chars
    if truncated:
        markdown = markdown[: budget.max_chars]
    return {"ok": True, "markdown": markdown, "truncated": truncated}


def main() -> None:
    # the answers go to a copy of stdout; whatever a library prints goes to stderr instead
    stdout = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    init = json.loads(stdin.readline() or b"{}")
    sys.path[:] = [p for p in init.get("sys_path", []) if isinstance(p, str)] or sys.path
    _limit_memory(int(init.get("memory_bytes", 0)) or 3 * 1024**3)
    for line in stdin:
        reply = convert_one(json.loads(line))
        stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        stdout.flush()


if __name__ == "__main__":
    main()
