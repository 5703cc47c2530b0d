"""`gno daemon install` / `uninstall` write a user service that starts this data directory's owner.

Nothing here needs systemd or launchd to run: the unit is parsed back, and its command is run
with its own environment (`daemon --status`), which must reach this data directory.
"""

from __future__ import annotations

import configparser
import json
import os
import plistlib
import shlex
import subprocess
import sys
from pathlib import Path

import pytest


def gno(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gno", *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def env(tmp_path: Path, gno_home: Path) -> dict[str, str]:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nThe first marmot.\n")
    e = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert gno("init", str(notes), "--name", "notes", env=e).returncode == 0
    return e


def _unit_environment(unit: configparser.ConfigParser) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in unit["Service"]["Environment"].splitlines():
        key, _, value = shlex.split(line)[0].partition("=")
        out[key] = value
    return out


def test_systemd_unit_runs_this_data_directorys_daemon(env: dict[str, str], tmp_path: Path) -> None:
    cp = gno("--index", "default", "daemon", "install", "--manager", "systemd", "--json", env=env)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    report = json.loads(cp.stdout)
    path = Path(report["path"])
    assert path.parent == tmp_path / "xdg" / "systemd" / "user" and path.name == report["name"]
    assert report["check"] == f"systemctl --user status {report['name']}"
    unit = configparser.ConfigParser(strict=False, interpolation=None, empty_lines_in_values=False)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    # configparser keeps only the last of repeated keys: gather Environment= lines ourselves
    envs = [ln.split("=", 1)[1] for ln in text.splitlines() if ln.startswith("Environment=")]
    unit.read_string("\n".join(ln for ln in text.splitlines() if not ln.startswith("Environment=")))
    unit["Service"]["Environment"] = "\n".join(envs)
    assert unit["Install"]["WantedBy"] == "default.target"
    assert unit["Service"]["Restart"] == "on-failure"
    command = shlex.split(unit["Service"]["ExecStart"])
    assert command == [sys.executable, "-m", "gno", "--index", "default", "daemon"] == report["command"]
    service_env = _unit_environment(unit)
    assert service_env == {k: os.path.abspath(env[k]) for k in ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR")}
    # the unit's own command, in the unit's own environment, reaches this data directory
    bare = {"PATH": env["PATH"], "HOME": str(tmp_path / "elsewhere"), **service_env}
    status = subprocess.run([*command, "--status", "--json"], capture_output=True, text=True, env=bare, timeout=120)
    assert status.returncode == 3 and json.loads(status.stdout)["error"]["details"]["dataDir"] == env["GNO_DATA_DIR"]

    text_cp = gno("daemon", "install", "--manager", "systemd", env=env)
    assert f"systemctl --user status {report['name']}" in text_cp.stdout

    gone = json.loads(gno("daemon", "uninstall", "--manager", "systemd", "--json", env=env).stdout)
    assert gone["action"] == "removed" and not path.exists()
    again = json.loads(gno("daemon", "uninstall", "--manager", "systemd", "--json", env=env).stdout)
    assert again["action"] == "absent"


def test_launchd_agent(env: dict[str, str], tmp_path: Path) -> None:
    report = json.loads(gno("daemon", "install", "--manager", "launchd", "--json", env=env).stdout)
    path = Path(report["path"])
    assert path.parent == tmp_path / "home" / "Library" / "LaunchAgents"
    agent = plistlib.loads(path.read_bytes())
    assert agent["Label"] == report["name"] and agent["RunAtLoad"] is True
    assert agent["ProgramArguments"] == [sys.executable, "-m", "gno", "daemon"]
    assert agent["EnvironmentVariables"]["GNO_DATA_DIR"] == env["GNO_DATA_DIR"]
    assert report["check"].startswith("launchctl print gui/")


def test_install_needs_an_initialised_index(tmp_path: Path, gno_home: Path) -> None:
    e = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    cp = gno("daemon", "install", "--json", env=e)
    assert cp.returncode == 1 and json.loads(cp.stdout)["error"]["code"] == "NOT_INITIALIZED"
    assert not (tmp_path / "xdg" / "systemd").exists()
