"""Property-based check of the REST surface against its own `/openapi.json` (issue 4 §Tests).

For every operation of `create_app(...)` (in-process, ASGI, write routes included, on a fresh
synced gno home per operation) schemathesis generates schema-conforming and schema-violating
requests; no answer may be a 500, an error answer must be the one envelope (never a `RUNTIME`
one) and its status must be the one the error table gives its code. Bounded: 25 examples per
operation and generation mode, no deadline.

schemathesis' own pytest integration (`schema.parametrize()` on `pytest.from_fixture`) sets the
private `request.node._nodeid`, which pytest 9 no longer has; so the operations are enumerated
here and each one is driven through `APIOperation.as_strategy()` with hypothesis directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from gno.errors import ERROR_TABLE, ErrorCode

from .conftest import SurfaceEnv

MAX_EXAMPLES = 25
HTTP_METHODS = ("get", "put", "post", "delete", "patch")


def _operations() -> list[tuple[str, str]]:
    """(METHOD, path) of every operation, read from the app's schema (building it touches no file)."""
    from gno.config import build_settings
    from gno.engine import Engine
    from gno.http.app import create_app

    nowhere = str(Path("/nonexistent-gno-home"))
    engine = Engine(build_settings(env={"HOME": nowhere, "GNO_CONFIG_DIR": nowhere, "GNO_DATA_DIR": nowhere}))
    paths = create_app(engine).openapi()["paths"]
    return sorted((m.upper(), p) for p, ops in paths.items() for m in ops if m in HTTP_METHODS)


OPERATIONS = _operations()


def test_the_schema_lists_every_rest_endpoint() -> None:
    expected = {
        ("GET", "/api/health"),
        ("GET", "/api/status"),
        ("GET", "/api/collections"),
        ("GET", "/api/doc"),
        ("POST", "/api/search"),
        ("POST", "/api/memory/remember"),
        ("POST", "/api/memory/recall"),
        ("POST", "/api/capture"),
        ("PUT", "/api/docs/{ref}"),
    }
    assert expected <= set(OPERATIONS), expected - set(OPERATIONS)


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_no_operation_answers_a_server_error(method: str, path: str, env: SurfaceEnv) -> None:
    from gno.http.app import create_app

    # schemathesis' ASGI client names the server `testserver`: allow it as an operator would
    app = create_app(env.engine, enable_write=True, allowed_hosts=["testserver"])
    app.openapi()  # generated once and cached, so the loader's request is answered at once
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operation = schema[path][method]
    strategy = st.one_of(operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE))
    seen: list[int] = []

    @given(case=strategy)
    @settings(
        max_examples=2 * MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def check(case: Any) -> None:
        response = case.call()
        seen.append(response.status_code)
        detail = (case.method, case.formatted_path, case.body, case.query, response.status_code, response.text)
        assert response.status_code != 500, detail
        if response.status_code >= 400:
            body = response.json()
            assert set(body) == {"error"}, detail
            assert set(body["error"]) == {"code", "message", "details"}, detail
            code = body["error"]["code"]
            assert code != "RUNTIME", detail
            # every status comes from the one table (e.g. 503 VECTORS_UNAVAILABLE is a mapped answer)
            assert code in ErrorCode.__members__, detail
            assert ERROR_TABLE[ErrorCode(code)].http_status == response.status_code, detail

    check()
    assert seen, "hypothesis generated no request"


@pytest.mark.parametrize("path", ["/api/search", "/api/memory/remember", "/api/capture"])
def test_a_body_that_is_not_json_gets_the_gno_envelope(path: str, rest: Any) -> None:
    r = rest.post(path, content=b"\x80", headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "VALIDATION", r.text


@pytest.mark.parametrize(("method", "path", "status"), [("GET", "/api/nope", 404), ("DELETE", "/api/search", 405)])
def test_unknown_routes_get_the_gno_envelope(method: str, path: str, status: int, rest: Any) -> None:
    r = rest.request(method, path)
    assert r.status_code == status, r.text
    assert set(r.json()) == {"error"}, r.text


@pytest.mark.parametrize("params", [{"limit": str(2**63)}, {"offset": str(2**63)}, {"limit": "1000001"}])
def test_an_ls_page_beyond_sqlite_integers_is_a_validation_error(params: dict[str, str], rest: Any) -> None:
    """Found by schemathesis: `limit=2**63` reached SQLite and crashed (OverflowError)."""
    r = rest.get("/api/ls", params=params)
    assert r.status_code == 400 and r.json()["error"]["code"] == "VALIDATION", r.text


@pytest.mark.parametrize("field", ["folderPath", "path"])
def test_a_capture_path_with_a_nul_byte_is_a_validation_error(field: str, rest: Any) -> None:
    """Found by schemathesis: a NUL in folderPath crashed (ValueError: embedded null byte)."""
    r = rest.post("/api/capture", json={"content": "a note", field: "notes/\x00x"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "VALIDATION", r.text
    assert "NUL" in r.json()["error"]["message"], r.text


def test_a_blank_body_is_not_json_but_no_body_is_the_defaults(rest: Any) -> None:
    """Found by schemathesis: a body of only a newline was taken as `{}`."""
    r = rest.post("/api/sync", content=b"\n", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "VALIDATION", r.text
    assert rest.post("/api/search", content=b"", headers={"content-type": "application/json"}).status_code == 400
    assert rest.post("/api/sync", content=b"", headers={"content-type": "application/json"}).status_code == 200
