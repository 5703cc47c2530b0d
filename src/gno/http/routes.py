"""REST routes generated from the capability table: one route per capability, none by hand.

Each route parses its request model (query string for GET, JSON body otherwise, path fields
from the URL), makes the one engine call in a worker thread and returns the result model's
JSON (201 for a write that created something; a Capsule's canonical bytes). The OpenAPI
document is completed here: request schemas and parameters from the same models, the result
model as the 2xx schema, and every error status the capability can answer with in the one
`{"error": {code, message, details}}` envelope (FastAPI's 422 body is never advertised: gno
answers invalid input with 400 VALIDATION).
"""

from __future__ import annotations

import json
import re
from typing import Any, get_origin

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import AliasChoices
from starlette.concurrency import run_in_threadpool

from gno.contract import CAPABILITIES, COMMON_ERRORS, HTTP_ERRORS, Capability
from gno.contract.request import CallContext, ErrorBody, parse
from gno.contract.schema import input_schema, omitted_nulls_not_required
from gno.engine import Engine
from gno.errors import ERROR_TABLE, ErrorCode, ValidationError

CTX = CallContext(surface="rest")
COMPONENTS = "#/components/schemas/"


ROUTED = tuple(c for c in CAPABILITIES if c.http is not None)


def register_capabilities(app: FastAPI, engine: Engine) -> None:
    for cap in ROUTED:
        method, path = _route(cap)
        app.add_api_route(
            re.sub(r"\{(\w+)\}", r"{\1:path}", path),
            _endpoint(cap, engine),
            methods=[method],
            name=cap.name,
            tags=[cap.tag],
            summary=cap.description.split(". ")[0].rstrip("."),
            description=cap.description,
            response_model=cap.result_model,
            responses=_responses(cap),
            openapi_extra=_request_doc(cap),
        )
    _complete_openapi(app)


def _endpoint(cap: Capability, engine: Engine) -> Any:
    model = cap.request_model
    method = _route(cap)[0]

    async def endpoint(request: Request) -> Response:
        data = _query(request, model) if method == "GET" else await _json_body(request)
        data.update(request.path_params)
        req = parse(model, data, lax=method == "GET")

        result = await run_in_threadpool(req.run, engine, CTX)
        if cap.canonical:
            from gno.evidence.canonical import canonical_json

            return Response(canonical_json(result.dump()), media_type="application/json")
        status = 201 if cap.created and getattr(result, "outcome", None) in cap.created else 200
        return JSONResponse(result.dump(), status_code=status)

    endpoint.__name__ = cap.name
    return endpoint


def _query(request: Request, model: type[Any]) -> dict[str, Any]:
    """Known fields from the query string (by wire name or field name); lists may repeat."""
    out: dict[str, Any] = {}
    q = request.query_params
    for name, f in model.model_fields.items():
        extra = f.validation_alias.choices if isinstance(f.validation_alias, AliasChoices) else []
        for key in (f.alias or name, name, *(str(k) for k in extra)):
            if key in q:
                out[name] = q.getlist(key) if get_origin(f.annotation) is list else q[key]
                break
    return out


async def _json_body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw:  # no body: every field at its default (a blank one is not JSON, and is refused below)
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationError(f"invalid request: the body is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValidationError("invalid request: the body must be a JSON object")
    return data


# -- OpenAPI ------------------------------------------------------------------------------------


def _route(cap: Capability) -> tuple[str, str]:
    assert cap.http is not None, cap.name  # only ROUTED capabilities reach here
    return cap.http


def _path_fields(cap: Capability) -> list[str]:
    return re.findall(r"\{(\w+)\}", _route(cap)[1])


def error_responses(*codes: ErrorCode) -> dict[int | str, dict[str, Any]]:
    """OpenAPI responses for these codes (and the transport's own), each status in the envelope."""
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys((*codes, *COMMON_ERRORS, *HTTP_ERRORS)):
        by_status.setdefault(ERROR_TABLE[code].http_status, []).append(str(code))
    return {
        status: {"model": ErrorBody, "description": "Error codes: " + ", ".join(names)}
        for status, names in sorted(by_status.items())
    }


def _responses(cap: Capability) -> dict[int | str, dict[str, Any]]:
    out = error_responses(*cap.all_errors())
    if cap.created:
        out[201] = {"model": cap.result_model, "description": "Created (" + ", ".join(cap.created) + ")"}
    return out


def _request_schema(cap: Capability) -> dict[str, Any]:
    schema = input_schema(cap.request_model, tuple(_path_fields(cap)), COMPONENTS + "{model}")
    schema.pop("$defs", None)
    return schema


def _request_doc(cap: Capability) -> dict[str, Any]:
    schema = _request_schema(cap)
    params = [
        {"name": f, "in": "path", "required": True, "schema": {"type": "string"}, "description": f}
        for f in _path_fields(cap)
    ]
    if _route(cap)[0] == "GET":
        required = set(schema.get("required", []))
        params += [
            {
                "name": name,
                "in": "query",
                "required": name in required,
                "schema": prop,
                **({"description": prop["description"]} if "description" in prop else {}),
            }
            for name, prop in schema.get("properties", {}).items()
        ]
        return {"parameters": params}
    body = {
        "required": bool(schema.get("required")),
        "content": {"application/json": {"schema": schema}},
    }
    return {"parameters": params, "requestBody": body} if params else {"requestBody": body}


def _complete_openapi(app: FastAPI) -> None:
    """Add the request models' nested schemas; optional-by-omission fields are not required."""
    base = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = base()
        comps = schema.setdefault("components", {}).setdefault("schemas", {})
        for cap in ROUTED:
            comps.update(input_schema(cap.request_model, (), COMPONENTS + "{model}").get("$defs", {}))
        for comp in comps.values():
            omitted_nulls_not_required(comp)
        for ops in schema.get("paths", {}).values():  # gno answers bad input with 400 VALIDATION, never 422
            for op in ops.values():
                op.get("responses", {}).pop("422", None)
        for name in ("HTTPValidationError", "ValidationError"):
            comps.pop(name, None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
