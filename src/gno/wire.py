"""The wire shape of a plain-data result: camelCase keys, `None` fields omitted.

Pydantic models dump themselves this way (`GnoModel.dump`). The few results that a cold
command prints without importing pydantic are records (`gno.tuples`: NamedTuples, or the `Record`
a model derives from) with the same field names, and this function gives them the same JSON, so
both paths agree byte for byte.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a cold `gno search` does not import typing
if TYPE_CHECKING:
    from typing import Any


def camel(name: str) -> str:
    """`snippet_range` → `snippetRange` (the alias every `GnoModel` field has)."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def wire(value: Any) -> Any:
    """Records become camelCase dicts without `None` fields; lists and dicts recurse."""
    names = getattr(type(value), "_fields", None)
    if names is not None:
        return {camel(name): wire(v) for name in names if (v := getattr(value, name)) is not None}
    if isinstance(value, list | tuple):
        return [wire(v) for v in value]
    if isinstance(value, dict):
        return {k: wire(v) for k, v in value.items()}
    return value


def fields(value: Any) -> Any:
    """Records become dicts of their Python field names, `None` kept (what a model validates from:
    a required field may be None); lists and dicts recurse."""
    names = getattr(type(value), "_fields", None)
    if names is not None:
        return {name: fields(getattr(value, name)) for name in names}
    if isinstance(value, list | tuple):
        return [fields(v) for v in value]
    if isinstance(value, dict):
        return {k: fields(v) for k, v in value.items()}
    return value
