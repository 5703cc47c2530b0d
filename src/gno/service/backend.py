"""The storage contract of the service: a `Backend` hands out transactions (`Tx`).

Why this shape: the service's queries (`tenancy.py`, `records.py`, `idempotency.py`) are plain
SQL that SQLite and PostgreSQL both accept — `?` placeholders (the PostgreSQL backend rewrites
them), `INSERT … ON CONFLICT DO NOTHING`, `RETURNING`, ISO-8601 text timestamps, 0/1 flags. What
truly differs lives behind the `Tx` protocol: full-text indexing and search (FTS5 vs tsvector),
vectors (float32 BLOBs + numpy vs pgvector) and writer serialisation (`BEGIN IMMEDIATE` vs
advisory locks). Only `backend_sqlite.py` imports sqlite3 and only `backend_postgres.py` imports
psycopg.

Schema changes are numbered SQL files per dialect in `gno/service/sql/<dialect>/NNN_name.sql`,
recorded in a `migrations` table; :func:`migration_files` lists them for both backends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]

Row = tuple[Any, ...]
_MIGRATION_RE = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


def utcnow() -> str:
    """ISO 8601 UTC with microseconds, always the same width (`…:00.412345+00:00`)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Filter:
    """Which records a search may see: one project, one workspace, optionally one scope label."""

    project_id: str
    workspace_id: str
    scope: str | None = None


class Tx(Protocol):
    """One transaction. `execute` runs dialect-neutral SQL; the rest is dialect-specific."""

    dialect: str

    def execute(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """Run one statement with `?` placeholders; return all rows (empty for writes)."""
        ...

    def lock(self, name: str) -> None:
        """Serialise writers on `name` until the transaction ends (no-op where writes are serial)."""
        ...

    def index_text(self, seq: int, text: str) -> None:
        """Make record `seq` findable by full-text search."""
        ...

    def unindex(self, seqs: Sequence[int]) -> None:
        """Remove records from the full-text index (forgotten records leave search)."""
        ...

    def lexical(self, query: str, filt: Filter, k: int) -> list[tuple[int, float]]:
        """Top `k` active records for a user query, best first: (seq, score)."""
        ...

    def encode_vector(self, vec: Vector) -> object:
        """The parameter to store in `memories.embedding`."""
        ...

    def decode_vector(self, raw: object) -> Vector | None:
        """The stored `memories.embedding` back as float32, or None."""
        ...

    def nearest(self, vec: Vector, filt: Filter, k: int, fingerprint: str) -> list[tuple[int, float]]:
        """Top `k` active records by cosine among vectors of one model: (seq, cosine)."""
        ...


class Backend(Protocol):
    """A database the service can run on. Thread-safe: each thread gets its own connection."""

    dialect: str
    display_url: str  # for logs: never contains a password

    def migrate(self) -> list[str]:
        """Apply pending migrations; return the names applied now."""
        ...

    def applied_migrations(self) -> list[str]: ...

    def read(self) -> AbstractContextManager[Tx]:
        """A read transaction (a consistent snapshot where the database offers one)."""
        ...

    def write(self) -> AbstractContextManager[Tx]:
        """A write transaction: committed on success, rolled back on any exception."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def label(self) -> str:
        return f"{self.version:03d}_{self.name}"


def migration_files(dialect: str) -> list[Migration]:
    """The numbered SQL migrations shipped for `dialect` ("sqlite" or "postgres"), in order."""
    root = resources.files("gno.service").joinpath("sql").joinpath(dialect)
    out: list[Migration] = []
    for entry in root.iterdir():
        m = _MIGRATION_RE.match(entry.name)
        if m:
            out.append(Migration(int(m.group(1)), m.group(2), entry.read_text(encoding="utf-8")))
    return sorted(out, key=lambda x: x.version)


MIGRATIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
)


def placeholders(n: int) -> str:
    """`?, ?, ?` for an IN list of `n` items (n ≥ 1)."""
    return ", ".join("?" * n)


def chunked(items: Sequence[Any], size: int = 500) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
