"""`index.yml`: which folders are collections, the models and the chunking.

Where the file lives is decided by `gno.settings` (re-exported here). A malformed config is
reported with the file and line, never a traceback. Validation builds pydantic models, so this
module is imported only by commands that read the config itself; `gno search` reads the
snapshot in `gno.config_snapshot` instead.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator
from pydantic import ValidationError as PydanticValidationError

from gno.errors import ErrorCode, ValidationError, unknown_collection
from gno.fsio import atomic_write_text
from gno.hints import HintConfig
from gno.settings import Settings, build_settings, parent_gno_env

__all__ = [
    "ChunkingConfig",
    "CollectionConfig",
    "GnoConfig",
    "ModelsConfig",
    "Settings",
    "build_settings",
    "load_config",
    "parent_gno_env",
    "save_config",
]

CONFIG_VERSION = "1.0"
DEFAULT_PATTERN = "**/*.md"
DEFAULT_EXCLUDES = (
    ".git",
    "node_modules",
    ".venv",
    ".idea",
    "dist",
    "build",
    "__pycache__",
    ".DS_Store",
    "Thumbs.db",
)
COLLECTION_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
EgressPolicy = Literal["local_only", "lan", "remote"]
#: files larger than this are not indexed (by stat; named in `gno status` as FILE_TOO_LARGE).
#: 10 MB is ~1.6 million words, some twenty novels: no hand-written note comes near it, while the
#: files that do (exports, logs, dumps) would cost a full-text index of ~2.5x their size and, at
#: ~1,000 chunks per MB, hours of transformer embedding. `maxFileBytes` (top level or per
#: collection) raises or lowers it; a search costs the same whatever it is (snippets read a window).
DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024


class CollectionConfig(BaseModel):
    """One collection: a folder of markdown, matched by pattern/include/exclude."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid", defer_build=True)

    name: str
    path: str
    pattern: str = DEFAULT_PATTERN
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=lambda: list(DEFAULT_EXCLUDES))
    memory_managed: bool = Field(default=False, alias="memoryManaged")
    egress_policy: EgressPolicy = Field(default="local_only", alias="egressPolicy")
    max_file_bytes: int | None = Field(default=None, ge=1, alias="maxFileBytes")  # None: the config's
    _config_cap: int = PrivateAttr(default=DEFAULT_MAX_FILE_BYTES)

    @property
    def egress_explicit(self) -> bool:
        """Whether `egressPolicy` was written in the config (else the default applies)."""
        return "egress_policy" in self.model_fields_set

    @property
    def file_cap(self) -> int:
        """The size cap of this collection's files: its own `maxFileBytes`, else the config's."""
        return self.max_file_bytes if self.max_file_bytes is not None else self._config_cap

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not COLLECTION_NAME_RE.match(v):
            raise ValueError(
                "collection names are lowercase letters, digits, '_' and '-', starting with a "
                "letter or digit, at most 64 characters"
            )
        return v

    @field_validator("path")
    @classmethod
    def _path(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("path must not be empty")
        return str(Path(v).expanduser())

    @field_validator("include")
    @classmethod
    def _include(cls, v: list[str]) -> list[str]:
        return [e if e.startswith(".") else "." + e for e in (x.strip() for x in v) if e]

    @property
    def root(self) -> Path:
        return Path(self.path)

    def to_yaml_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "path": self.path, "pattern": self.pattern}
        if self.include:
            out["include"] = list(self.include)
        out["exclude"] = list(self.exclude)
        if self.memory_managed:
            out["memoryManaged"] = True
        out["egressPolicy"] = self.egress_policy
        if self.max_file_bytes is not None:
            out["maxFileBytes"] = self.max_file_bytes
        return out


class ModelsConfig(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow", defer_build=True)
    embed: str | None = None
    #: the static first pass of a transformer model (None: the default, wordllama; `none`: off)
    first_pass: Literal["wordllama", "none"] | None = Field(default=None, alias="firstPass")


class ChunkingConfig(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid", defer_build=True)
    max_tokens: int = Field(default=240, ge=10, alias="maxTokens")  # word pieces of the embedder
    overlap_percent: float = Field(default=0.15, ge=0.0, le=0.5, alias="overlapPercent")


class GnoConfig(BaseModel):
    """The whole `index.yml`."""

    model_config = ConfigDict(populate_by_name=True, extra="allow", defer_build=True)

    version: str = CONFIG_VERSION
    collections: list[CollectionConfig] = Field(default_factory=list)
    models: ModelsConfig = Field(default_factory=ModelsConfig)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    memory_guard: bool = Field(default=False, alias="memoryGuard")
    max_file_bytes: int = Field(default=DEFAULT_MAX_FILE_BYTES, ge=1, alias="maxFileBytes")
    #: context hints (`gno context add`): configuration attached to results, never evidence
    contexts: list[HintConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _caps(self) -> GnoConfig:
        for c in self.collections:
            c._config_cap = self.max_file_bytes
        return self

    def collection(self, name: str) -> CollectionConfig | None:
        want = name.lower()
        return next((c for c in self.collections if c.name == want), None)

    def require(self, name: str) -> CollectionConfig:
        """The collection `name` refers to (case-insensitive), or COLLECTION_NOT_FOUND."""
        c = self.collection(name)
        if c is None:
            raise unknown_collection(name, [x.name for x in self.collections])
        return c

    def to_yaml_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": self.version}
        out["collections"] = [c.to_yaml_dict() for c in self.collections]
        extra = self.model_extra or {}
        if self.models.embed or self.models.first_pass or self.models.model_extra:
            out["models"] = self.models.model_dump(exclude_none=True, by_alias=True)
        if self.chunking != ChunkingConfig():
            out["chunking"] = self.chunking.model_dump(by_alias=True)
        if self.memory_guard:
            out["memoryGuard"] = True
        if self.max_file_bytes != DEFAULT_MAX_FILE_BYTES:
            out["maxFileBytes"] = self.max_file_bytes
        if self.contexts:
            out["contexts"] = [h.to_yaml_dict() for h in self.contexts]
        out.update(extra)
        return out


def _config_error(path: Path, line: int | None, problem: str) -> ValidationError:
    where = f"{path}:{line}" if line else str(path)
    return ValidationError(
        f"invalid config {where}: {problem}",
        code=ErrorCode.CONFIG_INVALID,
        details={"file": str(path), "line": line, "problem": problem},
    )


def _line_for(text: str, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the YAML node at a validation error's location (deepest node found)."""
    try:
        node: Any = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            nxt = next(((k, v) for k, v in node.value if getattr(k, "value", None) == str(part)), None)
            if nxt is None:
                break
            line = nxt[0].start_mark.line + 1
            node = nxt[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def load_config(settings: Settings, *, must_exist: bool = True) -> GnoConfig:
    """Read and validate `index.yml`; errors name the file and the line."""
    path = settings.config_path
    if not path.exists():
        if must_exist:
            raise ValidationError(
                f"no gno config at {path}: run `gno init` first",
                code=ErrorCode.NOT_INITIALIZED,
                details={"file": str(path)},
            )
        return GnoConfig()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _config_error(path, None, f"cannot read: {exc}") from exc
    try:
        raw = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise _config_error(path, line, str(exc.problem or exc)) from exc
    except yaml.YAMLError as exc:
        raise _config_error(path, None, str(exc)) from exc
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise _config_error(path, 1, "the top level must be a mapping (version, collections, …)")
    version = str(raw.get("version", CONFIG_VERSION))
    if version != CONFIG_VERSION:
        raise _config_error(path, None, f'unsupported version {version!r}; expected "{CONFIG_VERSION}"')
    try:
        cfg = GnoConfig.model_validate(raw)
    except PydanticValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first.get("loc", ()))
        line = _line_for(text, loc)
        field_path = ".".join(str(p) for p in loc)
        raise _config_error(path, line, f"{field_path}: {first.get('msg')}") from exc
    seen: set[str] = set()
    for i, c in enumerate(cfg.collections):
        if c.name in seen:
            raise _config_error(path, _line_for(text, ("collections", i)), f"duplicate collection {c.name!r}")
        seen.add(c.name)
    return cfg


def save_config(settings: Settings, cfg: GnoConfig) -> None:
    """Write `index.yml` atomically (temp file, fsync, rename)."""
    text = yaml.safe_dump(cfg.to_yaml_dict(), sort_keys=False, allow_unicode=True)
    atomic_write_text(settings.config_path, text)
