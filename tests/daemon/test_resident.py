"""`gno daemon` as real processes: one owner per data directory, --detach/--status/--stop, logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gno.config import build_settings
from gno.daemon.resident import ResidentOwner, current_owner, resident_paths
from gno.errors import BusyError, ErrorCode


def gno(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gno", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nThe first marmot.\n")
    assert gno("init", str(notes), "--name", "notes").returncode == 0
    yield notes
    gno("daemon", "--stop")


def test_status_and_stop_without_owner_exit_3() -> None:
    for flag in ("--status", "--stop"):
        cp = gno("daemon", flag, "--json")
        assert cp.returncode == 3, cp.stderr
        assert json.loads(cp.stdout)["error"]["code"] == "NOT_RUNNING"


def test_daemon_needs_a_config() -> None:
    cp = gno("daemon", "--json")
    assert cp.returncode == 1
    assert json.loads(cp.stdout)["error"]["code"] == "NOT_INITIALIZED"


def test_detach_status_second_owner_stop(home: Path) -> None:
    cp = gno("daemon", "--detach", "--json")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    started = json.loads(cp.stdout)
    assert started["running"] and started["kind"] == "daemon"
    pid = started["pid"]

    status = json.loads(gno("daemon", "--status", "--json").stdout)
    assert (status["pid"], status["index"]) == (pid, "default")

    for second in (["daemon", "--json"], ["daemon", "--detach", "--json"], ["serve", "--port", "0", "--json"]):
        cp = gno(*second)
        assert cp.returncode == 4, (second, cp.stdout, cp.stderr)
        err = json.loads(cp.stdout)["error"]
        assert err["code"] == "ALREADY_RUNNING" and err["details"]["pid"] == pid

    (home / "b.md").write_text("# B\n\nA marmot written while the daemon runs.\n")
    deadline = time.monotonic() + 20
    while "b.md" not in gno("search", "marmot", "--files").stdout:
        assert time.monotonic() < deadline, "the daemon never indexed b.md"
        time.sleep(0.1)

    stopped = json.loads(gno("daemon", "--stop", "--json").stdout)
    assert stopped["stopped"] and stopped["pid"] == pid
    log = Path(started["logFile"]).read_text()
    assert "daemon started" in log and "notes: 1 path(s)" in log and "daemon stopped" in log
    assert not Path(started["pidFile"]).exists()
    assert gno("daemon", "--status").returncode == 3


def test_a_dead_owner_leaves_no_stale_lock(home: Path) -> None:
    started = json.loads(gno("daemon", "--detach", "--json").stdout)
    os.kill(started["pid"], 9)
    deadline = time.monotonic() + 10
    while gno("daemon", "--status").returncode != 3:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert Path(started["pidFile"]).exists()  # left behind by kill -9, and ignored
    again = gno("daemon", "--detach", "--json")
    assert again.returncode == 0, again.stdout + again.stderr


def test_owner_refuses_in_process(tmp_path: Path) -> None:
    settings = build_settings()
    paths = resident_paths(settings, "daemon")
    with ResidentOwner(settings, "daemon", paths):
        assert current_owner(settings).pid == os.getpid()
        with pytest.raises(BusyError) as exc, ResidentOwner(settings, "serve", resident_paths(settings, "serve")):
            pass
        assert exc.value.code == ErrorCode.ALREADY_RUNNING
    assert not current_owner(settings).running
