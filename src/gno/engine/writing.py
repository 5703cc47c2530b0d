"""The engine's document writes: capture, a hash-checked edit, and tags read and edited.

Each composes `gno.writes` over this engine, which serves as the index writer (store, config,
lease, request ledger, path-scoped sync).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Unpack

from gno.engine.lifecycle import Lifecycle

if TYPE_CHECKING:
    # Imported where used: pydantic (config, models), YAML, filelock, pathlib, dataclasses and
    # the sync machinery each cost more than a whole `gno search`, which needs none of them.

    from gno.models import CaptureResult, DocUpdateResult
    from gno.writes.capture import CaptureRequest
    from gno.writes.edit import WriteOptions
    from gno.writes.tags import TagsEditResult, TagsResult


class Writing(Lifecycle):
    """`gno capture`, `edit`, `tags`."""

    def capture(self, req: CaptureRequest) -> CaptureResult:
        from gno.writes.capture import capture

        return capture(self, req)

    def update_doc(
        self, ref: str, content: Any, expected_source_hash: Any, **write: Unpack[WriteOptions]
    ) -> DocUpdateResult:
        from gno.writes.edit import update_doc

        return update_doc(self, ref, content, expected_source_hash, **write)

    def tags(self, collection: str | None = None) -> TagsResult:
        from gno.writes.tags import list_tags

        return list_tags(self.store, self.collection(collection).name if collection else None)

    def tags_edit(
        self,
        ref: str,
        *,
        add: Sequence[str] = (),
        remove: Sequence[str] = (),
        lock_wait: float | None = None,
        request_id: str | None = None,
    ) -> TagsEditResult:
        from gno.writes.tags import edit_tags

        return edit_tags(self, ref, list(add), list(remove), lock_wait, request_id)
