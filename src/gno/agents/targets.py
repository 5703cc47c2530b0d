"""Where each agent harness reads its user-scope instructions and skills.

One table, resolved against the environment gno was started with (`Settings.env`, because
config.py is the only reader of `os.environ`), so tests and odd setups (`CLAUDE_CONFIG_DIR`,
`CODEX_HOME`, `HERMES_HOME`, `XDG_CONFIG_HOME`) get the same answer as the harness itself.

A harness counts as *detected* when its config directory exists: installing into the files of
tools the user does not run would only litter their home directory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gno.errors import ValidationError

AGENT_TARGETS = ("claude", "codex", "cursor", "opencode", "hermes", "openclaw")

#: Harnesses with a runtime memory adapter in the gno repository (the block only instructs; an
#: adapter wires the harness's memory slot to gno). docs/agents.md names install and config.
RUNTIME_ADAPTERS = {
    "hermes": "memory provider integrations/hermes-gno-memory: `hermes plugins install "
    "<gno repo>#integrations/hermes-gno-memory/hermes_gno_memory`, then `memory: {provider: gno}` "
    "(docs/agents.md: Runtime memory adapters)",
    "openclaw": "memory plugin integrations/openclaw-gno-memory: `openclaw plugins install --link "
    "<gno repo>/integrations/openclaw-gno-memory`, then `plugins.slots.memory: gno-memory` "
    "(docs/agents.md: Runtime memory adapters)",
}
SKILL_TARGETS = ("claude", "codex", "opencode", "openclaw", "hermes")


@dataclass(frozen=True)
class Target:
    """One harness: the instruction file gno writes its block into, and the directory whose
    existence means the harness is installed."""

    name: str
    file: Path
    config_dir: Path


def home_dir(env: Mapping[str, str]) -> Path:
    home = env.get("HOME") or env.get("USERPROFILE")
    return Path(home) if home else Path.home()


def _env_dir(env: Mapping[str, str], key: str, default: Path) -> Path:
    value = env.get(key, "").strip()
    return Path(value).expanduser() if value else default


def claude_dir(env: Mapping[str, str]) -> Path:
    return _env_dir(env, "CLAUDE_CONFIG_DIR", home_dir(env) / ".claude")


def codex_dir(env: Mapping[str, str]) -> Path:
    return _env_dir(env, "CODEX_HOME", home_dir(env) / ".codex")


def opencode_dir(env: Mapping[str, str]) -> Path:
    return _env_dir(env, "XDG_CONFIG_HOME", home_dir(env) / ".config") / "opencode"


def hermes_dir(env: Mapping[str, str]) -> Path:
    return _env_dir(env, "HERMES_HOME", home_dir(env) / ".hermes")


def openclaw_dir(env: Mapping[str, str]) -> Path:
    return home_dir(env) / ".openclaw"


#: each harness but cursor: its config directory, and its instruction file within that directory
_HARNESSES: dict[str, tuple[Callable[[Mapping[str, str]], Path], str]] = {
    "claude": (claude_dir, "CLAUDE.md"),
    "codex": (codex_dir, "AGENTS.md"),
    "opencode": (opencode_dir, "AGENTS.md"),
    "hermes": (hermes_dir, "SOUL.md"),
    "openclaw": (openclaw_dir, "workspace/AGENTS.md"),
}


def agent_target(name: str, env: Mapping[str, str]) -> Target:
    if name == "cursor":  # reads its instructions from the home directory, not from its own
        home = home_dir(env)
        return Target(name, home / "AGENTS.md", home / ".cursor")
    if name not in _HARNESSES:
        raise ValidationError(
            f"unknown target {name!r}; choose from {', '.join(AGENT_TARGETS)} or all", details={"target": name}
        )
    config_dir, file = _HARNESSES[name]
    d = config_dir(env)
    return Target(name, d / file, d)


def resolve_agent_targets(
    names: Sequence[str], extra_dirs: Sequence[str | Path], env: Mapping[str, str]
) -> list[Target]:
    """The files to act on: named targets (`all` = every one), else the detected harnesses,
    plus `<dir>/AGENTS.md` for each extra directory. Fails when that leaves nothing to do."""
    wanted = list(AGENT_TARGETS) if "all" in names else list(dict.fromkeys(names))
    targets = [agent_target(n, env) for n in wanted]
    if not names:
        targets = [t for t in (agent_target(n, env) for n in AGENT_TARGETS) if t.config_dir.is_dir()]
    for d in extra_dirs:
        p = Path(d).expanduser()
        targets.append(Target("extra", p / "AGENTS.md", p))
    if not targets:
        raise ValidationError(
            "no agent harness detected (none of ~/.claude, ~/.codex, ~/.cursor, ~/.config/opencode, "
            "~/.hermes, ~/.openclaw exists); pass --target NAME, --target all or --extra-dir DIR",
            details={"targets": list(AGENT_TARGETS)},
        )
    seen: set[Path] = set()
    unique: list[Target] = []
    for t in targets:
        key = t.file.absolute()
        if key not in seen:  # Cursor and an --extra-dir ~ name the same file: act once
            seen.add(key)
            unique.append(t)
    return unique


def skill_dir(name: str, scope: str, env: Mapping[str, str], cwd: Path) -> Path:
    """`<root>/gno` for one harness: project scope under `cwd`, user scope under the home."""
    if scope not in ("project", "user"):
        raise ValidationError(f"unknown scope {scope!r}; choose project or user", details={"scope": scope})
    project = {
        "claude": cwd / ".claude" / "skills",
        "codex": cwd / ".codex" / "skills",
        "opencode": cwd / ".opencode" / "skills",
        "openclaw": cwd / ".agents" / "skills",
        "hermes": cwd / ".hermes" / "skills",
    }
    user = {
        "claude": claude_dir(env) / "skills",
        "codex": codex_dir(env) / "skills",
        "opencode": opencode_dir(env) / "skills",
        "openclaw": openclaw_dir(env) / "skills",
        "hermes": hermes_dir(env) / "skills",
    }
    table = project if scope == "project" else user
    if name not in table:
        raise ValidationError(
            f"unknown skill target {name!r}; choose from {', '.join(SKILL_TARGETS)} or all",
            details={"target": name},
        )
    return table[name] / "gno"


def resolve_skill_targets(names: Sequence[str]) -> list[str]:
    if not names:
        return ["claude"]
    return list(SKILL_TARGETS) if "all" in names else list(dict.fromkeys(names))
