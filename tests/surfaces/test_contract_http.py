"""Codes of the HTTP transport itself, on a real server: Host, Origin, Content-Type, bearer token.

The local app is served by uvicorn on a loopback socket (real HTTP). Each refusal comes before
any route runs, so a refused write writes nothing. The SDK's HTTP transport meets the token check
(a wrong token raises UNAUTHORIZED); it cannot send a foreign Origin, a foreign Host or a non-JSON
body (the exemptions are rows of `code_table.TABLE`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import gno
from gno.errors import ERROR_TABLE, ErrorCode, GnoError, error_class_for
from servers import uvicorn_thread

from .conftest import CALLER, SESSION, SurfaceEnv
from .drive import drives, expect_envelope

TOKEN = "contract-test-token"
CAPTURE = {"content": "A note from a foreign page", "collection": "notes"}


@pytest.fixture
def guarded_url(env: SurfaceEnv) -> Iterator[str]:
    """The app with writes, a bearer token and no extra hosts or origins, over real HTTP."""
    from gno.http.app import create_app

    with uvicorn_thread(create_app(env.engine, enable_write=True, token=TOKEN)) as url:
        yield url


def _refused(resp: httpx.Response, code: ErrorCode) -> dict[str, Any]:
    assert resp.status_code == ERROR_TABLE[code].http_status, (resp.status_code, resp.text)
    return expect_envelope(resp.json(), code)


AUTH = {"Authorization": f"Bearer {TOKEN}"}


@drives(ErrorCode.HOST_NOT_ALLOWED, "rest")
def test_a_foreign_host_is_refused(surface: str, env: SurfaceEnv, guarded_url: str) -> None:
    before = env.files()
    resp = httpx.post(f"{guarded_url}/api/capture", json=CAPTURE, headers={**AUTH, "Host": "rebind.example"})
    body = _refused(resp, ErrorCode.HOST_NOT_ALLOWED)
    assert body["error"]["details"]["host"] == "rebind.example" and "--allowed-host" in body["error"]["message"]
    assert env.files() == before


@drives(ErrorCode.CSRF_VIOLATION, "rest")
def test_a_foreign_origin_cannot_write(surface: str, env: SurfaceEnv, guarded_url: str) -> None:
    before = env.files()
    resp = httpx.post(f"{guarded_url}/api/capture", json=CAPTURE, headers={**AUTH, "Origin": "https://evil.example"})
    assert _refused(resp, ErrorCode.CSRF_VIOLATION)["error"]["details"]["origin"] == "https://evil.example"
    assert env.files() == before


@drives(ErrorCode.CONTENT_TYPE_REQUIRED, "rest")
@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_not_declared_json_is_refused(
    content_type: str | None, surface: str, env: SurfaceEnv, guarded_url: str
) -> None:
    before = env.files()
    headers = {**AUTH, **({"Content-Type": content_type} if content_type else {})}
    raw = b'{"content": "A note", "collection": "notes"}'
    resp = httpx.post(f"{guarded_url}/api/capture", content=raw, headers=headers)
    assert "Content-Type: application/json" in _refused(resp, ErrorCode.CONTENT_TYPE_REQUIRED)["error"]["message"]
    assert env.files() == before


@drives(ErrorCode.METHOD_NOT_ALLOWED, "rest")
def test_a_wrong_method_gets_405_with_its_own_code(surface: str, env: SurfaceEnv, guarded_url: str) -> None:
    """The code and the status agree with the table (405, never VALIDATION's 400) and name the method."""
    before = env.files()
    resp = httpx.put(f"{guarded_url}/api/capture", json=CAPTURE, headers=AUTH)
    body = _refused(resp, ErrorCode.METHOD_NOT_ALLOWED)
    assert body["error"]["details"]["allow"] == ["POST"] and resp.headers["allow"] == "POST"
    assert env.files() == before


@drives(ErrorCode.UNAUTHORIZED, "rest", "sdk_remote")
@pytest.mark.parametrize("token", [None, "wrong-token"])
def test_a_missing_or_wrong_token_is_refused(
    token: str | None, surface: str, env: SurfaceEnv, guarded_url: str
) -> None:
    before = env.files()
    code = ErrorCode.UNAUTHORIZED
    if surface == "rest":
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        _refused(httpx.post(f"{guarded_url}/api/capture", json=CAPTURE, headers=headers), code)
        _refused(httpx.get(f"{guarded_url}/api/status", headers=headers), code)  # reads too
    else:
        with gno.Client.connect(guarded_url, token=token, caller=CALLER, session=SESSION) as client:
            with pytest.raises(GnoError) as ei:
                client.capture(CAPTURE["content"], collection="notes")
            assert (ei.value.code, type(ei.value)) == (code, error_class_for(code))
            assert ei.value.http_status == ERROR_TABLE[code].http_status
            expect_envelope(ei.value.to_body(), code)
    assert env.files() == before
    with gno.Client.connect(guarded_url, token=TOKEN, caller=CALLER, session=SESSION) as client:
        assert client.status().documents >= 2  # the right token passes: the refusal was the token's
