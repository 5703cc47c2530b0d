"""JSON Schemas of the public contract, as every surface publishes them.

Inputs are the request models in validation mode; outputs are the result models in
serialization mode, wire (camelCase) names. Results are dumped without `None` fields, so an
output schema never *requires* a nullable field. Used by the MCP tool list, the OpenAPI
document and `spec/*.json` alike.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import DEFAULT_REF_TEMPLATE as DEFAULT_REF


def input_schema(model: type[BaseModel], drop: tuple[str, ...] = (), ref_template: str | None = None) -> dict[str, Any]:
    schema = model.model_json_schema(by_alias=True, ref_template=ref_template or DEFAULT_REF)
    props = schema.get("properties", {})
    for name in drop:
        alias = model.model_fields[name].alias or name
        props.pop(alias, None)
        if alias in schema.get("required", []):
            schema["required"].remove(alias)
    return schema


def output_schema(model: type[BaseModel], ref_template: str | None = None) -> dict[str, Any]:
    schema = model.model_json_schema(by_alias=True, mode="serialization", ref_template=ref_template or DEFAULT_REF)
    for sub in (schema, *schema.get("$defs", {}).values()):
        omitted_nulls_not_required(sub)
    return schema


def omitted_nulls_not_required(schema: dict[str, Any]) -> None:
    """Drop nullable properties from `required` (they are omitted from the JSON when None)."""
    if "required" not in schema:
        return
    props = schema.get("properties", {})
    req = [n for n in schema["required"] if not _nullable(props.get(n, {}))]
    if req:
        schema["required"] = req
    else:
        del schema["required"]


def _nullable(prop: dict[str, Any]) -> bool:
    return prop.get("type") == "null" or any(x.get("type") == "null" for x in prop.get("anyOf", []))
