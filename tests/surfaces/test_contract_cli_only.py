"""Codes only the CLI can produce: collection administration, the resident owner, binding a port.

No capability of MCP, REST or the SDK adds a collection or starts a server (the reasons are rows of
`code_table.TABLE`). `gno collection add` runs through click's runner; `gno serve` and `gno daemon`
as real processes (`python -m gno`), against a real busy socket and a real resident lock held by
this test. Each refusal is the `--json` envelope with the table's exit code, and changes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from gno.daemon.resident import ResidentOwner, resident_paths
from gno.errors import ERROR_TABLE, ErrorCode
from servers import listening_socket

from .conftest import CliRun, SurfaceEnv, gno_command
from .drive import DRIVEN, drives, expect_envelope

PROCESS_TIMEOUT_S = 180


def _refused(code: ErrorCode, exit_code: int, stdout: str) -> dict[str, object]:
    assert exit_code == ERROR_TABLE[code].exit_code, (exit_code, stdout)
    return expect_envelope(json.loads(stdout), code)


def _gno(env: SurfaceEnv, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        gno_command(*args), capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S, env=dict(os.environ)
    )


COLLECTION_ADD = [
    (ErrorCode.COLLECTION_EXISTS, "fresh", "notes"),
    (ErrorCode.COLLECTION_OVERLAP, "notes-src/sub", "sub"),
    (ErrorCode.PATH_NOT_FOUND, "no-such-folder", "ghost"),
]
DRIVEN.update((code, "cli") for code, _, _ in COLLECTION_ADD)


@pytest.mark.parametrize(("code", "folder", "name"), COLLECTION_ADD)
def test_collection_add_refusals(code: ErrorCode, folder: str, name: str, env: SurfaceEnv, cli: CliRun) -> None:
    for d in ("fresh", "notes-src/sub"):
        (env.tmp / d).mkdir(exist_ok=True)
    config = env.settings.config_path.read_bytes()
    r = cli("collection", "add", str(env.tmp / folder), "--name", name, "--json")
    body = _refused(code, r.exit_code, r.stdout)
    assert env.settings.config_path.read_bytes() == config, body  # index.yml untouched
    assert env.engine.collection_names() == ["memory", "notes"]


@drives(ErrorCode.NOT_RUNNING, "cli")
@pytest.mark.parametrize("action", ["--stop", "--status"])
def test_daemon_stop_and_status_without_an_owner(action: str, surface: str, env: SurfaceEnv, cli: CliRun) -> None:
    r = cli("daemon", action, "--json")
    body = _refused(ErrorCode.NOT_RUNNING, r.exit_code, r.stdout)
    assert "gno daemon --detach" in str(body["error"]["message"])  # names the fix


@drives(ErrorCode.ALREADY_RUNNING, "cli")
@pytest.mark.parametrize("command", [("serve", "--port", "0"), ("daemon",)])
def test_a_second_resident_owner_is_refused(command: tuple[str, ...], surface: str, env: SurfaceEnv) -> None:
    with ResidentOwner(env.settings, "daemon", resident_paths(env.settings, "daemon")):
        r = _gno(env, *command, "--json")
    body = _refused(ErrorCode.ALREADY_RUNNING, r.returncode, r.stdout)
    assert body["error"]["details"]["pid"] == os.getpid()
    assert "Traceback" not in r.stderr


@drives(ErrorCode.ADDRESS_IN_USE, "cli")
def test_serve_on_a_busy_port(surface: str, env: SurfaceEnv) -> None:
    with listening_socket() as taken:
        port = int(taken.getsockname()[1])
        r = _gno(env, "serve", "--port", str(port), "--json")
    body = _refused(ErrorCode.ADDRESS_IN_USE, r.returncode, r.stdout)
    assert "--port" in str(body["error"]["message"]) and "Traceback" not in r.stderr
