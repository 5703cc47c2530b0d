"""Run the `gno` command line and read its JSON: the adapter's only way to reach gno.

Kept free of Hermes imports so the version pin and the failure handling can be reasoned about
on their own. Every failure becomes `GnoUnavailable` with a reason a person can act on: `gno`
not on PATH, older than the pin, timed out, or printing something that is not gno's JSON. A gno
*error* (a bad scope, a fenced replay) is not unavailability: it comes back as gno's own error
envelope `{"error": {"code", "message", "details"}}` for the model to read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

#: the oldest gno whose `recall`/`remember` JSON this adapter reads
MIN_GNO_VERSION = (0, 1, 0)
DEFAULT_TIMEOUT_S = 20.0


class GnoUnavailable(Exception):
    """gno cannot serve memory right now; the session goes on without it."""


def parse_version(text: str) -> tuple[int, ...] | None:
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    return tuple(int(x or 0) for x in m.groups()) if m else None


class GnoCli:
    """One configured `gno` executable (binary, environment, timeout)."""

    def __init__(self, binary: str = "gno", env: Mapping[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT_S):
        self.binary = binary
        self.env = dict(os.environ if env is None else env)
        self.timeout = timeout

    def path(self) -> str | None:
        return shutil.which(self.binary, path=self.env.get("PATH"))

    def check(self) -> str:
        """The gno version, or GnoUnavailable (missing, unreadable version, below the pin)."""
        exe = self.path()
        if exe is None:
            raise GnoUnavailable(f"`{self.binary}` is not on PATH; install gno (pip install gno)")
        try:
            cp = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=self.timeout, env=self.env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise GnoUnavailable(f"`{exe} --version` failed: {exc}") from exc
        version = parse_version(cp.stdout)
        if cp.returncode != 0 or version is None:
            raise GnoUnavailable(f"`{exe} --version` printed no version: {(cp.stdout + cp.stderr).strip()[:200]}")
        if version < MIN_GNO_VERSION:
            pin = ".".join(map(str, MIN_GNO_VERSION))
            raise GnoUnavailable(f"gno {'.'.join(map(str, version))} is older than {pin}; upgrade gno")
        return ".".join(map(str, version))

    def run_json(self, args: Sequence[str]) -> dict[str, Any]:
        """`gno <args> --json` parsed; gno's error envelope is returned, anything else is unavailable."""
        exe = self.path()
        if exe is None:
            raise GnoUnavailable(f"`{self.binary}` is not on PATH")
        try:
            cp = subprocess.run(
                [exe, *args, "--json"], capture_output=True, text=True, timeout=self.timeout, env=self.env
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise GnoUnavailable(f"gno {args[0]} failed: {exc}") from exc
        try:
            data = json.loads(cp.stdout)
        except ValueError as exc:
            raise GnoUnavailable(f"gno {args[0]} returned malformed JSON (exit {cp.returncode})") from exc
        if not isinstance(data, dict):
            raise GnoUnavailable(f"gno {args[0]} returned JSON that is not an object")
        if cp.returncode != 0 and not isinstance(data.get("error"), dict):
            raise GnoUnavailable(f"gno {args[0]} failed with exit {cp.returncode} and no error envelope")
        return data
