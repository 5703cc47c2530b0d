"""The storage contract of the service: a `Backend` hands out transactions (`Tx`).

Why this shape: the service's queries (`tenancy.py`, `records.py`, `idempotency.py`) are plain
SQL that SQLite and PostgreSQL both accept — `?` placeholders (the PostgreSQL backend rewrites
them), `INSERT … ON CONFLICT DO NOTHING`, `RETURNING`, ISO-8601 text timestamps, 0/1 flags. What
truly differs lives behind the `Tx` protocol: full-text indexing and search (FTS5 vs tsvector),
vectors (float32 BLOBs + numpy vs pgvector) and writer serialisation (`BEGIN IMMEDIATE` vs
advisory locks). Only `backend_sqlite.py` imports sqlite3 and only `backend_postgres.py` imports
psycopg.

Schema changes are numbered SQL files, `gno/service/sql/NNN_name.sql`, one for both dialects (a
line of one dialect alone starts `--sqlite: ` or `--postgres: `), recorded in a `migrations`
table; :func:`migration_files` lists them as each backend runs them.
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
_DIALECT_LINE_RE = re.compile(r"^--(sqlite|postgres):(?: |$)")


def utcnow() -> str:
    """ISO 8601 UTC with microseconds, always the same width (`…:00.412345+00:00`)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Filter:
    """Which records a search may see: one project, one workspace, optionally one scope label."""

    project_id: str
    workspace_id: str
    scope: str | None = None

    def active(self, table: str = "") -> tuple[str, list[object]]:
        """The SQL conditions (each after ` AND `) that hold a search of `memories` (named `table`, if
        it is) to this filter's active records, and their parameters."""
        col = f"{table}." if table else ""
        sql = f" AND {col}project_id = ? AND {col}workspace_id = ? AND {col}forgotten_at IS NULL"
        params: list[object] = [self.project_id, self.workspace_id]
        if self.scope is not None:
            sql += f" AND {col}scope = ?"
            params.append(self.scope)
        return sql, params


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


def for_dialect(script: str, dialect: str) -> str:
    """`script` as `dialect` runs it: a line that starts `--<dialect>: ` is kept without that mark,
    a line marked for the other dialect is dropped, every other line is both dialects'."""
    lines: list[str] = []
    for line in script.split("\n"):
        m = _DIALECT_LINE_RE.match(line)
        if m is None:
            lines.append(line)
        elif m.group(1) == dialect:
            lines.append(line[m.end() :])
    return "\n".join(lines)


def migration_files(dialect: str) -> list[Migration]:
    """The numbered SQL migrations shipped, in order, as `dialect` ("sqlite" or "postgres") runs them."""
    root = resources.files("gno.service").joinpath("sql")
    out: list[Migration] = []
    for entry in root.iterdir():
        m = _MIGRATION_RE.match(entry.name)
        if m:
            sql = for_dialect(entry.read_text(encoding="utf-8"), dialect)
            out.append(Migration(int(m.group(1)), m.group(2), sql))
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
