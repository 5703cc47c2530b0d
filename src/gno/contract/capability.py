"""A row of the capability table, and the error codes every row shares.

`Capability` names one capability on every surface (`gno.contract` holds the table of them);
`ToolSpec` is its MCP tool as plain data. Request and result models are named by import strings
and loaded on first use, so reading the table imports no model.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any

from gno.errors import ErrorCode as E

if TYPE_CHECKING:
    from gno.contract.request import Request
    from gno.models import GnoModel

#: codes any capability can answer with (bad input, missing setup, a crash)
COMMON_ERRORS = (E.VALIDATION, E.NOT_INITIALIZED, E.CONFIG_INVALID, E.RUNTIME)
#: codes of the HTTP transport itself (bearer token, foreign origin)
HTTP_ERRORS = (E.UNAUTHORIZED, E.CSRF_VIOLATION)
#: codes every write can answer with (the write lease; MCP without --enable-write)
WRITE_ERRORS = (E.LOCKED, E.WRITE_DISABLED)


@dataclass(frozen=True)
class Capability:
    name: str  # the SDK method; MCP tool `gno_<name>` unless `tool` says otherwise
    request: str  # "<module under gno.contract>:<class>"
    result: str  # "<module>:<class>"
    http: tuple[str, str] | None  # (METHOD, path); a `{field}` in the path is taken from the request; None = no
    # REST route (see NO_HTTP)
    cli: str | None  # the CLI command path ("query diagnose"); None = no CLI command (see NO_CLI)
    tag: str  # OpenAPI tag: read | memory | write | evidence
    errors: tuple[E, ...] = ()
    write: bool = False
    tool: str | None = ""  # "" = gno_<name>; None = no MCP tool (see NO_MCP)
    identity: tuple[str, ...] = ()  # request fields an MCP connection fills (never tool arguments)
    created: tuple[str, ...] = ()  # result `outcome`s answered with HTTP 201
    canonical: bool = False  # REST sends the result's canonical JSON bytes (the budgeted artifact)
    sdk: bool = True  # False = no SDK method (see NO_SDK)

    @property
    def tool_name(self) -> str | None:
        return None if self.tool is None else self.tool or f"gno_{self.name}"

    @property
    def request_model(self) -> type[Request]:
        return _load("gno.contract." + self.request)

    @property
    def result_model(self) -> type[GnoModel]:
        return _load(self.result)

    @property
    def description(self) -> str:
        return " ".join((self.request_model.__doc__ or self.name).split())

    def all_errors(self) -> tuple[E, ...]:
        extra = WRITE_ERRORS if self.write else ()
        return tuple(dict.fromkeys((*self.errors, *extra, *COMMON_ERRORS)))

    def mcp_tool(self) -> ToolSpec | None:
        """The MCP tool of this row (None: no tool), as the server lists it and the skill documents it."""
        if self.tool_name is None:
            return None
        from gno.contract.schema import input_schema, output_schema

        return ToolSpec(
            self.tool_name,
            self.description,
            input_schema(self.request_model, self.identity),
            output_schema(self.result_model),
            self.write,
        )


@dataclass(frozen=True)
class ToolSpec:
    """An MCP tool as plain data (the skill documents it without the MCP SDK installed)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    write: bool


@cache
def _load(path: str) -> type:
    module, _, attr = path.partition(":")
    cls: type = getattr(import_module(module), attr)
    return cls
