"""`gno daemon install` / `uninstall`: start the resident owner at login as a user service.

Linux gets a systemd user unit (`$XDG_CONFIG_HOME/systemd/user/<name>.service`), macOS a launchd
agent (`~/Library/LaunchAgents/<label>.plist`). The service runs `gno daemon` with this
interpreter, this data directory's `GNO_*` locations and the index and config given to the
command, so the owner it starts is the one the CLI of this environment talks to. One service
per data directory (the owner is per data directory): the default location is `gno-daemon`,
another gets a suffix from its path. Installing writes the file (atomically) and says how to
start and check it; it never runs systemctl or launchctl, so it works the same in a container,
over SSH, or in a test.
"""

from __future__ import annotations

import hashlib
import os
import plistlib
import shlex
import sys
from pathlib import Path
from typing import Literal

from gno.config import Settings
from gno.fsio import atomic_write_bytes
from gno.models import GnoModel
from gno.settings import build_settings

Manager = Literal["systemd", "launchd"]
LOCATIONS = ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR")


class ServiceFile(GnoModel):
    """What `gno daemon install` / `uninstall` did, and the commands that start and check it."""

    action: Literal["installed", "removed", "absent"]
    manager: str
    name: str
    path: str
    command: list[str]
    start: str
    check: str
    stop: str


def default_manager() -> Manager:
    return "launchd" if sys.platform == "darwin" else "systemd"


def _suffix(settings: Settings) -> str:
    default_root = build_settings(env={k: v for k, v in settings.env.items() if k != "GNO_DATA_DIR"}).data_root
    if os.path.abspath(settings.data_root) == os.path.abspath(default_root):
        return ""
    return "-" + hashlib.sha256(os.path.abspath(settings.data_root).encode()).hexdigest()[:8]


def daemon_command(settings: Settings, index: str | None, config: str | None) -> list[str]:
    args = [sys.executable, "-m", "gno"]
    if index:
        args += ["--index", index]
    if config:
        args += ["--config", os.path.abspath(os.path.expanduser(config))]
    return [*args, "daemon"]


def _environment(settings: Settings) -> dict[str, str]:
    """The resolved locations (so the service finds this data directory whatever its own $HOME)."""
    return {
        "GNO_CONFIG_DIR": os.path.abspath(settings.config_root),
        "GNO_DATA_DIR": os.path.abspath(settings.data_root),
        "GNO_CACHE_DIR": os.path.abspath(settings.cache_root),
    }


def _systemd_escape(text: str) -> str:
    """Keep `%` specifiers and `$` substitution out of a unit line's literal text."""
    return text.replace("%", "%%").replace("$", "$$")


def systemd_unit(settings: Settings, command: list[str]) -> str:
    env = "".join(
        f"Environment={_systemd_escape(shlex.quote(f'{k}={v}'))}\n" for k, v in _environment(settings).items()
    )
    return (
        "[Unit]\n"
        f"Description=gno resident owner of {_systemd_escape(os.path.abspath(settings.data_root))}\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={_systemd_escape(shlex.join(command))}\n"
        f"{env}"
        "Restart=on-failure\n"
        "RestartSec=5\n\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def launchd_plist(settings: Settings, label: str, command: list[str]) -> bytes:
    log = os.path.join(os.path.abspath(settings.data_root), "daemon.launchd.log")
    return plistlib.dumps(
        {
            "Label": label,
            "ProgramArguments": command,
            "EnvironmentVariables": _environment(settings),
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},
            "StandardOutPath": log,
            "StandardErrorPath": log,
        }
    )


def _where(settings: Settings, manager: Manager) -> tuple[str, Path, str, str, str]:
    """(name, file, start, check, stop) of this data directory's service."""
    home = Path(settings.env.get("HOME") or os.path.expanduser("~"))
    if manager == "systemd":
        name = f"gno-daemon{_suffix(settings)}.service"
        root = Path(settings.env.get("XDG_CONFIG_HOME") or home / ".config")
        return (
            name,
            root / "systemd" / "user" / name,
            f"systemctl --user daemon-reload && systemctl --user enable --now {name}",
            f"systemctl --user status {name}",
            f"systemctl --user disable --now {name}",
        )
    label = f"dev.gno.daemon{_suffix(settings)}"
    path = home / "Library" / "LaunchAgents" / f"{label}.plist"
    domain = "gui/$(id -u)"
    return (
        label,
        path,
        f"launchctl bootstrap {domain} {shlex.quote(str(path))}",
        f"launchctl print {domain}/{label}",
        f"launchctl bootout {domain}/{label}",
    )


def install(settings: Settings, index: str | None, config: str | None, manager: Manager) -> ServiceFile:
    command = daemon_command(settings, index, config)
    name, path, *how = _where(settings, manager)
    body = (
        systemd_unit(settings, command).encode() if manager == "systemd" else launchd_plist(settings, name, command)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, body, mode=0o644)
    return _report("installed", manager, name, path, command, how)


def uninstall(settings: Settings, manager: Manager) -> ServiceFile:
    name, path, *how = _where(settings, manager)
    try:
        path.unlink()
        action: Literal["removed", "absent"] = "removed"
    except FileNotFoundError:
        action = "absent"
    return _report(action, manager, name, path, [], how)


def _report(action: str, manager: Manager, name: str, path: Path, command: list[str], how: list[str]) -> ServiceFile:
    start, check, stop = how
    return ServiceFile.model_validate(
        {"action": action, "manager": manager, "name": name, "path": str(path), "command": command}
        | {"start": start, "check": check, "stop": stop}
    )
