"""What every request model shares: strict parsing, camelCase wire names, one error translation.

A request model is the single statement of a capability's inputs: names, types, defaults,
limits and descriptions. Every surface builds it (CLI from its options, REST from the body or
query string, MCP from tool arguments, the SDK from keyword arguments) and hands it to
`Request.run`, which makes the one engine call. Constraints whose failure has its own error
code (an empty query is `INVALID_QUERY`, an unscoped recall `MEMORY_SCOPES_REQUIRED`) are left to
the engine and only *documented* in the JSON Schema (`json_schema_extra`), so the code is the
same on every surface; every other constraint is enforced here and fails as `VALIDATION`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError
from pydantic.alias_generators import to_camel

from gno.errors import invalid_request

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.models import GnoModel

Depth = Literal["fast", "balanced", "thorough"]
R = TypeVar("R", bound="Request")


@dataclass(frozen=True)
class CallContext:
    """What a surface knows about the call beyond its arguments.

    `semantic=False` keeps a resident MCP server on the lexical leg of recall/remember (no
    model is loaded per call); `lock_wait` is the CLI's `--lock-wait` for writes; `progress`
    its progress bar for a sync.
    """

    surface: str = "sdk"
    semantic: bool = True
    lock_wait: float | None = None
    progress: Any = None


class Request(BaseModel):
    """Base of every request: strict (JSON `false` is not an int), unknown fields refused."""

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        defer_build=True,
        frozen=True,
    )

    def run(self, engine: Engine, ctx: CallContext) -> GnoModel:  # pragma: no cover - every model overrides
        raise NotImplementedError

    def fields(self, *exclude: str) -> dict[str, Any]:
        """The fields as engine keyword arguments (python names), minus `exclude`."""
        return {k: getattr(self, k) for k in type(self).model_fields if k not in exclude}


def parse(model: type[R], data: Any, *, lax: bool = False) -> R:
    """Validate `data` into `model`; a pydantic failure becomes one `VALIDATION` error.

    `lax` is for query strings (`"10"` is an int there); JSON bodies and tool arguments are
    strict.
    """
    try:
        return model.model_validate(data, strict=False if lax else None)
    except PydanticValidationError as exc:
        raise invalid_request(exc) from None


def split_commas(v: list[str]) -> list[str]:
    """`["a,b", " c "]` → `["a", "b", "c"]`: the CLI passes a comma-separated flag as one item."""
    return [t.strip() for item in v for t in item.split(",") if t.strip()]


def choice(*values: str) -> dict[str, Any]:
    """Schema-only enum: the engine checks the value and answers with its own error code."""
    return {"enum": list(values)}


#: the request ID of a retry-safe write (checked by the engine: REQUEST_ID_INVALID on every surface)
REQUEST_ID_DOC = (
    "Retry-safe write: a retry with the same ID and request replays the first result and writes nothing "
    "(1-128 of letters, digits, . _ : -)."
)
REQUEST_ID_SCHEMA: dict[str, Any] = {"pattern": "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"}


# -- fragments shared by several requests ----------------------------------------------------


class Tags(Request):
    tags_any: list[str] = Field(default_factory=list, description="A hit has at least one of these tags.")
    tags_all: list[str] = Field(default_factory=list, description="A hit has all of these tags.")

    @field_validator("tags_any", "tags_all")
    @classmethod
    def _split(cls, v: list[str]) -> list[str]:
        return split_commas(v)


class TagFilter(Tags):
    collection: str | None = Field(None, description="Only this collection.")


# -- the one error envelope, as a model (OpenAPI error responses, MCP error results, spec/) ------


class ErrorInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    code: str = Field(description="A stable code of gno's error table (`gno.errors.ErrorCode`).")
    message: str = Field(description="What went wrong and the fix.")
    details: dict[str, Any] = Field(description="Structured context (the field, the limit, the ref, …).")


class ErrorBody(BaseModel):
    """`{"error": {code, message, details}}`: the body of every error on every surface."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    error: ErrorInfo
