"""`gno status`: the index at a glance, per collection, with the next steps that make it healthy.

Counts come from the index (documents, chunks, ingest problems by severity), the memory
collections' facts, the vectors from the semantic side (`gno.status_reads.read_status`, which a
cold `gno status` composes too). A collection whose folder is gone, or chunks the configured model
has not embedded yet, each add a step; with no step left the index is healthy. What the models
resolved to is recorded for that cold path (`gno.config_snapshot.record_models`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gno.index import SemanticIndex
    from gno.models import StatusResult


def index_status(index: SemanticIndex) -> StatusResult:
    from gno import config_snapshot
    from gno.models import StatusResult
    from gno.status_reads import Collection, read_status
    from gno.version import __version__
    from gno.wire import fields

    settings = index.settings
    identity = config_snapshot.identity(settings.config_location)  # before the config is read
    cfg = index.config
    exists = settings.db_path.exists()  # before the store: opening it creates the file
    models = index.semantic.resolved()
    if not (cfg.models.embed or "").lower().startswith(("http://", "https://", "openai:")):  # probed per process
        config_snapshot.record_models(settings, identity, __version__, models)
    result = read_status(
        index.store,
        index_name=settings.index_name,
        config_path=str(settings.config_path),
        db_path=str(settings.db_path),
        db_exists=exists,
        collections=[Collection(c.name, c.path, c.memory_managed) for c in cfg.collections],
        models=models,
    )
    return StatusResult.model_validate(fields(result))
