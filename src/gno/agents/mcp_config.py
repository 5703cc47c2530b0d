"""`gno mcp config`: the MCP client snippet for Claude Desktop, Claude Code or Cursor.

The snippet names the absolute path of this gno executable and carries any non-default
GNO_CONFIG_DIR/GNO_DATA_DIR, so it works exactly as printed. `--write` merges it into the
client's JSON config (a backup is made first; the write is atomic).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from gno.agents.targets import home_dir
from gno.config import Settings
from gno.errors import ValidationError
from gno.fsio import atomic_write_text
from gno.models import GnoModel


class McpConfigResult(GnoModel):
    target: str
    path: str
    snippet: str
    installed: bool


def config_path(settings: Settings, target: str) -> Path:
    home = home_dir(settings.env)
    if target == "claude-desktop":
        if sys.platform == "darwin":
            return home / "Library/Application Support/Claude/claude_desktop_config.json"
        return Path(settings.env.get("XDG_CONFIG_HOME") or home / ".config") / "Claude/claude_desktop_config.json"
    if target == "claude-code":
        return home / ".claude.json"
    if target == "cursor":
        return home / ".cursor/mcp.json"
    raise ValidationError(f"unknown MCP client target {target!r}")


def gno_executable() -> str:
    exe = Path(sys.executable).with_name("gno")
    if exe.exists():
        return str(exe)
    return shutil.which("gno") or "gno"


def server_entry(settings: Settings, enable_write: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "command": gno_executable(),
        "args": ["mcp"] + (["--enable-write"] if enable_write else []),
    }
    env = {
        k: settings.env[k]
        for k in ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR", "GNO_INDEX")
        if settings.env.get(k)
    }
    if env:
        entry["env"] = env
    return entry


def client_config(
    settings: Settings, target: str, *, enable_write: bool = False, install: bool = False
) -> McpConfigResult:
    path = config_path(settings, target)
    entry = server_entry(settings, enable_write)
    snippet = json.dumps({"mcpServers": {"gno": entry}}, indent=2)
    if install:
        data: dict[str, Any] = {}
        if path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8") or "{}")
            except (OSError, json.JSONDecodeError) as exc:
                raise ValidationError(f"{path} is not valid JSON ({exc}); fix it or install by hand") from exc
            shutil.copy2(path, path.with_name(path.name + f".gno-bak.{int(time.time())}"))
        if not isinstance(data, dict):
            raise ValidationError(f"{path} does not hold a JSON object")
        servers = data.setdefault("mcpServers", {})
        if not isinstance(servers, dict):
            raise ValidationError(f"{path}: mcpServers is not an object")
        servers["gno"] = entry
        atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    return McpConfigResult(target=target, path=str(path), snippet=snippet, installed=install)
