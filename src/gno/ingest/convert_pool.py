"""The parent side of conversion: one worker process, started on the first file that needs it.

`ConvertPool.convert` sends one file to the worker (`gno.ingest.convert_worker`) and waits at most
the file's time budget for the answer. A worker that overruns is killed (SIGKILL: a native library
stuck in a loop ignores anything gentler) and the file is reported CONVERT_TIMEOUT; a worker that
dies (a segfault, the kernel's OOM killer) is reported CONVERT_FAILED with its exit status. Either
way the next file gets a fresh worker, and the sync that asked goes on. A sync that meets only
markdown never starts a worker.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass

from gno.ingest.converters import Budget, Converter
from gno.ingest.problems import IngestCode


@dataclass(frozen=True, slots=True)
class Converted:
    """A mirror, or the reason there is none (`code` set and `markdown` None)."""

    markdown: str | None
    code: IngestCode | None = None
    message: str = ""


class ConvertPool:
    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or Budget()
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ConvertPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gno.ingest.convert_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        assert proc.stdin is not None
        init = {"sys_path": sys.path, "memory_bytes": self.budget.memory_bytes}
        proc.stdin.write(json.dumps(init).encode() + b"\n")
        proc.stdin.flush()
        return proc

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()

    def _kill(self) -> int:
        proc, self.proc = self.proc, None
        assert proc is not None
        proc.kill()
        rc = proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe:
                try:
                    pipe.close()
                except OSError:
                    pass
        return rc

    def convert(self, conv: Converter, path: str, size: int) -> Converted:
        """The mirror of one file, within the budget; never raises for a bad file."""
        if size > self.budget.max_bytes:
            return Converted(None, IngestCode.CONVERT_TOO_LARGE, f"{size} bytes, over the conversion budget")
        seconds = min(self.budget.seconds, conv.seconds or self.budget.seconds)
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        req = {"target": conv.target, "path": path, "max_chars": self.budget.max_chars}
        try:
            proc.stdin.write(json.dumps(req).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            rc = self._kill()
            return Converted(None, IngestCode.CONVERT_FAILED, f"the converter process died (exit {rc})")
        line = _read_line(proc, time.monotonic() + seconds)
        if line is None:
            self._kill()
            return Converted(None, IngestCode.CONVERT_TIMEOUT, f"{conv.id} took over {seconds:g} s; stopped")
        if not line:  # the worker's end of the pipe closed: it died
            rc = self._kill()
            return Converted(None, IngestCode.CONVERT_FAILED, f"{conv.id} crashed (exit {rc})")
        reply = json.loads(line)
        if not reply.get("ok"):
            code = reply.get("code", "CONVERT_FAILED")
            try:
                ingest = IngestCode(code)
            except ValueError:
                ingest = IngestCode.CONVERT_FAILED
            return Converted(None, ingest, str(reply.get("message", "")))
        markdown = str(reply["markdown"])
        if reply.get("truncated"):
            note = f"the mirror was cut at {self.budget.max_chars} characters"
            return Converted(markdown, IngestCode.CONVERT_TRUNCATED, note)
        return Converted(markdown)


def _read_line(proc: subprocess.Popen[bytes], deadline: float) -> bytes | None:
    """One answer line from the worker; None when the deadline passes, b"" when the worker died."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    parts: list[bytes] = []
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                return None
            data = os.read(fd, 1 << 20)
            if not data:
                return b""
            parts.append(data)
            if data.endswith(b"\n"):
                return b"".join(parts)
