"""The team service's capability table: its four operations, each declared once.

An operation names its request model (the `/v1/memory/<name>` body and the MCP tool's arguments:
`gno.service.models`), its result model, whether it reads, writes or forgets (the MCP tool's
annotations), its description, and whether it honours `X-Idempotency-Key`. The HTTP routes
(`gno.service.http`) and the MCP tools (`gno.service.mcp_tools`) are generated from this table:
neither lists an operation or a parameter of its own, so a field added to a request model is a
body field and a tool argument at once. `MemoryService` has one method per operation, of the
same name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gno.service import models as m

if TYPE_CHECKING:
    from pydantic import BaseModel

    from gno.service.api import MemoryService
    from gno.service.models import _Out
    from gno.service.ratelimit import Channel
    from gno.service.tenancy import Principal


@dataclass(frozen=True)
class Operation:
    name: str  # the route `/v1/memory/<name>`, the MCP tool and the `MemoryService` method
    params: type[BaseModel]
    result: type[BaseModel]
    kind: Literal["read", "write", "forget"]
    description: str
    idempotency_key: bool = False  # `X-Idempotency-Key` is honoured (HTTP only)

    def call(
        self,
        service: MemoryService,
        principal: Principal,
        params: BaseModel,
        *,
        channel: Channel,
        idempotency_key: str | None = None,
    ) -> _Out:
        """The one service call of this operation."""
        method: Callable[..., _Out] = getattr(service, self.name)
        extra = {"idempotency_key": idempotency_key} if self.idempotency_key else {}
        return method(principal, params, channel=channel, **extra)

    def parameters(self) -> Iterator[inspect.Parameter]:
        """The request model's fields as keyword parameters (annotation and default): the MCP tool's signature."""
        for name, field in self.params.model_fields.items():
            default = inspect.Parameter.empty if field.is_required() else field.default
            yield inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=field.annotation)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "remember",
        m.RememberParams,
        m.RememberResult,
        "write",
        "Save a record to the project's team memory (never overwrites).",
        idempotency_key=True,
    ),
    Operation(
        "search",
        m.SearchParams,
        m.SearchResult,
        "read",
        "Hybrid search of the team memory, with provenance and status.",
    ),
    Operation(
        "forget",
        m.ForgetParams,
        m.ForgetResult,
        "forget",
        "Forget one record (memory_id) or every record of a source_id.",
    ),
    Operation(
        "validate_memory",
        m.ValidateParams,
        m.ValidateResult,
        "write",
        "Mark records of a source whose hash changed as stale; list them.",
    ),
)
