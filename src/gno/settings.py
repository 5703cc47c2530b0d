"""Settings: where gno keeps its files, resolved once per process from flags and the environment.

This is the only module that reads `os.environ`. Settings are built once by a composition
root (the CLI's main, the HTTP app factory, the MCP lifespan) and passed down explicitly.

Layout: config `$GNO_CONFIG_DIR/index.yml` (default `$XDG_CONFIG_HOME/gno`), data
`$GNO_DATA_DIR/index-<name>.sqlite` (default `$XDG_DATA_HOME/gno`), cache `$GNO_CACHE_DIR`.
Kept free of YAML and pydantic: every command, the fastest included, starts here.
"""

from __future__ import annotations

import os
import re

from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold `gno search` does not import typing
if TYPE_CHECKING:
    from pathlib import Path

INDEX_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,63}$")

#: the parent pid of the `gno` process the command came from, when a resident owner's worker runs it
_CALLER_PPID: list[int] = []


def set_caller_ppid(pid: int) -> None:
    """A resident owner's worker runs a command for a client: its parent is the client's parent."""
    _CALLER_PPID[:] = [pid]


def caller_ppid() -> int:
    """The pid of the process that launched this `gno` command (the agent, the shell)."""
    return _CALLER_PPID[0] if _CALLER_PPID else os.getppid()


def _path(location: str) -> Path:
    from pathlib import Path

    return Path(location)


class Settings(NamedTuple):
    """Resolved locations and process-level defaults; built once per process.

    Locations are kept as strings and handed out as `Path`s on demand: pathlib costs more at
    start-up than a whole `gno search`, which uses only the `*_location` strings.
    """

    config_root: str
    data_root: str
    cache_root: str
    index_name: str = "default"
    config_override: str | None = None
    env: dict[str, str] = {}  # never mutated; build_settings always passes its own

    @property
    def config_location(self) -> str:
        return self.config_override or os.path.join(self.config_root, "index.yml")

    @property
    def db_location(self) -> str:
        return os.path.join(self.data_root, f"index-{self.index_name}.sqlite")

    @property
    def config_dir(self) -> Path:
        return _path(self.config_root)

    @property
    def data_dir(self) -> Path:
        return _path(self.data_root)

    @property
    def cache_dir(self) -> Path:
        return _path(self.cache_root)

    @property
    def config_file(self) -> Path | None:
        return None if self.config_override is None else _path(self.config_override)

    @property
    def config_path(self) -> Path:
        return _path(self.config_location)

    @property
    def db_path(self) -> Path:
        return _path(self.db_location)

    @property
    def requests_path(self) -> Path:
        """The request ledger of this index (beside it, and never deleted with it: see `gno.ledger`)."""
        return self.data_dir / f"index-{self.index_name}.requests.sqlite"

    @property
    def lease_path(self) -> Path:
        return self.data_dir / f"index-{self.index_name}.write.lock"

    def default_caller(self) -> str:
        return self.env.get("GNO_MEMORY_CALLER") or f"cli:{self._user()}"

    def default_session(self) -> str:
        return self.env.get("GNO_MEMORY_SESSION") or f"ppid:{caller_ppid()}"

    def flag(self, name: str) -> bool:
        return self.env.get(name, "").strip().lower() in {"1", "true", "yes", "on"}

    def _user(self) -> str:
        u = self.env.get("USER") or self.env.get("USERNAME")
        if u:
            return u
        import getpass

        try:
            return getpass.getuser()
        except Exception:  # noqa: BLE001 - no user database in some containers
            return "unknown"


def parent_gno_env() -> dict[str, str]:
    """`GNO_*` variables of the launching process (Linux `/proc`; empty elsewhere).

    MCP stdio clients (the official SDK, most agent harnesses) start servers with a stripped
    environment (HOME, PATH, USER, …), so a `GNO_CONFIG_DIR` exported where the harness runs never
    reaches `gno mcp`, which would then silently serve another index. `gno mcp` fills in only the
    `GNO_*` keys it lacks from its parent.
    """
    try:
        with open(f"/proc/{caller_ppid()}/environ", "rb") as fh:
            raw = fh.read()
    except OSError:
        return {}
    out: dict[str, str] = {}
    for item in raw.split(b"\0"):
        key, sep, val = item.partition(b"=")
        if sep and key.startswith(b"GNO_"):
            out[key.decode(errors="replace")] = val.decode(errors="replace")
    return out


def build_settings(
    *,
    index_name: str | None = None,
    config_file: str | Path | None = None,
    env: dict[str, str] | None = None,
    inherit_parent_env: bool = False,
) -> Settings:
    """Resolve settings from flags and the environment (the only reader of os.environ)."""
    e = dict(os.environ if env is None else env)
    if inherit_parent_env:
        e = {**{k: v for k, v in parent_gno_env().items() if k not in e}, **e}
    home = e.get("HOME") or os.path.expanduser("~")
    xdg_config = e.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    xdg_data = e.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    xdg_cache = e.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    name = index_name or e.get("GNO_INDEX") or "default"
    if not INDEX_NAME_RE.match(name) or ".." in name or name.endswith((" ", ".")):
        from gno.errors import ValidationError

        raise ValidationError(
            f"invalid index name {name!r}: use letters, digits, '.', '_', '-' or spaces",
            details={"index": name},
        )
    return Settings(
        config_root=e.get("GNO_CONFIG_DIR") or os.path.join(xdg_config, "gno"),
        data_root=e.get("GNO_DATA_DIR") or os.path.join(xdg_data, "gno"),
        cache_root=e.get("GNO_CACHE_DIR") or os.path.join(xdg_cache, "gno"),
        index_name=name,
        config_override=os.path.expanduser(os.fspath(config_file)) if config_file else None,
        env=e,
    )
