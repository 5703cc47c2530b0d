"""Settings of the service face: where its data lives, which database, which embedder, what limits.

Built once by a composition root (`gno service …` commands, tests) from gno's
:class:`~gno.config.Settings` — the environment is read through `settings.env`, never
`os.environ`, so tests isolate it the usual way.

Environment (all optional):

    GNO_SERVICE_DATABASE                 sqlite:///path | postgresql://… | embedded-postgres:<dir>
    GNO_SERVICE_EMBED                    embedder spec (default: MiniLM, else wordllama; none → lexical)
    GNO_SERVICE_LIMIT_PROJECT_MEMORIES   plan record limit per project         (default 1,000,000)
    GNO_SERVICE_LIMIT_WORKSPACE_MEMORIES technical record limit per workspace  (default 1,000,000)
    GNO_SERVICE_LIMIT_TENANT_MEMORIES    technical record limit per account    (default 10,000,000)
    GNO_SERVICE_LIMIT_PROJECT_CALLS      calls per minute per project, all surfaces (default 60,000)
    GNO_SERVICE_LIMIT_MCP_CALLS          MCP tool calls per minute per access key   (default 60,000)

The defaults are generous on purpose: limits protect a shared server from runaway agents, they
are not a billing system.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from gno.config import Settings
from gno.errors import ValidationError

DEFAULT_SIMILARITY = 0.85


@dataclass(frozen=True)
class Limits:
    project_memories: int = 1_000_000
    workspace_memories: int = 1_000_000
    tenant_memories: int = 10_000_000
    project_calls_per_minute: int = 60_000
    mcp_calls_per_minute: int = 60_000


_LIMIT_ENV = {
    "project_memories": "GNO_SERVICE_LIMIT_PROJECT_MEMORIES",
    "workspace_memories": "GNO_SERVICE_LIMIT_WORKSPACE_MEMORIES",
    "tenant_memories": "GNO_SERVICE_LIMIT_TENANT_MEMORIES",
    "project_calls_per_minute": "GNO_SERVICE_LIMIT_PROJECT_CALLS",
    "mcp_calls_per_minute": "GNO_SERVICE_LIMIT_MCP_CALLS",
}


@dataclass(frozen=True)
class ServiceSettings:
    """Everything the service needs to start; immutable, passed down explicitly."""

    data_dir: Path
    database: str
    embedder: str | None = None  # None: gno's default order; "none": lexical only
    limits: Limits = field(default_factory=Limits)
    similarity_threshold: float = DEFAULT_SIMILARITY  # archivist: cosine for a `similar` relation
    vector_floor: float = 0.2  # search: vector-only candidates below this cosine are dropped
    archivist: str = "thread"  # thread | sync | off

    @property
    def default_sqlite(self) -> Path:
        return self.data_dir / "service.sqlite"


def _int(env: dict[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip().replace("_", "")
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ValidationError(f"{name} must be a whole number, got {raw!r}") from exc
    if value < 0:
        raise ValidationError(f"{name} must not be negative")
    return value


def service_settings(
    settings: Settings,
    *,
    database: str | None = None,
    embedder: str | None = None,
    archivist: str | None = None,
) -> ServiceSettings:
    """Resolve the service settings: flags first, then `GNO_SERVICE_*`, then defaults."""
    env = settings.env
    data_dir = settings.data_dir / "service"
    limits = Limits()
    limits = replace(limits, **{attr: _int(env, var, getattr(limits, attr)) for attr, var in _LIMIT_ENV.items()})
    db = database or env.get("GNO_SERVICE_DATABASE") or f"sqlite:///{data_dir / 'service.sqlite'}"
    return ServiceSettings(
        data_dir=data_dir,
        database=db,
        embedder=embedder or env.get("GNO_SERVICE_EMBED") or None,
        limits=limits,
        archivist=archivist or "thread",
    )
