"""`gno serve` fails cleanly before it says "serving", and REST bodies must be declared JSON.

- A busy port is one line, `ADDRESS_IN_USE`, exit 4 (from the table), with no "serving" line and
  no uvicorn traceback; `--port 0` picks a free port and announces the real number.
- A REST body without `Content-Type: application/json` gets 415 `CONTENT_TYPE_REQUIRED` naming the
  header (as Docker's API, Elasticsearch and FastAPI's strict mode answer), over ASGI and real HTTP.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from typing import Any

import httpx
import pytest

from gno.errors import ERROR_TABLE, ErrorCode, GnoError
from gno.serving.listen import bind_listener, bound_port
from servers import listening_socket

from .conftest import SurfaceEnv, gno_command, gno_serve


def _serve_once(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(gno_command("serve", *args), capture_output=True, text=True, timeout=180)


def test_serve_on_a_busy_port_is_one_clean_line_with_the_busy_exit_code(env: SurfaceEnv) -> None:
    with gno_serve(env.tmp) as first:
        r = _serve_once("--port", str(first.port))
        assert r.returncode == ERROR_TABLE[ErrorCode.ADDRESS_IN_USE].exit_code == 4, (r.stdout, r.stderr)
        assert r.stdout == ""
        assert r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith(f"error [ADDRESS_IN_USE]: 127.0.0.1:{first.port} is already in use"), r.stderr
        assert "--port" in r.stderr  # the fix
        assert "serving" not in r.stderr and "Traceback" not in r.stderr
        assert httpx.get(f"{first.url}/api/health", timeout=30).status_code == 200  # the first one is untouched
        assert f"gno serving http://127.0.0.1:{first.port}/" in first.output()  # --port 0 announced its port


def test_serve_with_an_out_of_range_port_is_a_validation_line(env: SurfaceEnv) -> None:
    r = _serve_once("--port", "70000")
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "error [VALIDATION]: invalid port 70000: use 1-65535 (or 0 for any free port)\n"


def test_bind_listener_codes() -> None:
    with listening_socket() as taken:
        port = int(taken.getsockname()[1])
        with pytest.raises(GnoError) as ei:
            bind_listener("127.0.0.1", port)
        assert ei.value.code == ErrorCode.ADDRESS_IN_USE and ei.value.exit_code == 4
        assert ei.value.details == {"host": "127.0.0.1", "port": port, "errno": ei.value.details["errno"]}
    with pytest.raises(GnoError) as ei:
        bind_listener("no-such-host.invalid", 0)
    assert ei.value.code == ErrorCode.VALIDATION
    sock = bind_listener("127.0.0.1", 0)
    try:
        assert bound_port(sock) > 0
    finally:
        sock.close()


def test_served_connections_turn_nagle_off() -> None:
    """An accepted connection says IPPROTO_TCP, so asyncio sets TCP_NODELAY on it (a listening
    socket of proto 0 made every response wait for a delayed ACK)."""
    sock = bind_listener("127.0.0.1", 0)
    try:
        with socket.create_connection(("127.0.0.1", bound_port(sock)), timeout=10):
            conn, _ = sock.accept()
            with conn:
                assert conn.proto == socket.IPPROTO_TCP
                asyncio.run(_nodelay_of(conn))
    finally:
        sock.close()


async def _nodelay_of(conn: socket.socket) -> None:
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, conn.dup())
    try:
        sock = transport.get_extra_info("socket")
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        transport.close()


# -- Content-Type -------------------------------------------------------------------------------

BODY = json.dumps({"query": "deploy"})


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data"],
)
def test_a_body_without_a_json_content_type_gets_415_naming_the_header(rest: Any, content_type: str | None) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}
    r = rest.post("/api/search", content=BODY, headers=headers)
    assert r.status_code == ERROR_TABLE[ErrorCode.CONTENT_TYPE_REQUIRED].http_status == 415, r.text
    err = r.json()["error"]
    assert err["code"] == "CONTENT_TYPE_REQUIRED"
    assert "Content-Type: application/json" in err["message"]
    assert err["details"] == {"contentType": content_type}


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON"])
def test_json_content_types_are_served(rest: Any, content_type: str) -> None:
    r = rest.post("/api/search", content=BODY, headers={"Content-Type": content_type})
    assert r.status_code == 200, r.text
    assert r.json()["query"] == "deploy"


def test_the_same_answer_over_real_http_and_bodyless_requests_pass(live_url: str) -> None:
    with httpx.Client(base_url=live_url, timeout=60) as http:
        r = http.post("/api/search", content=BODY.encode(), headers={"Content-Type": ""})
        assert r.status_code == 415 and r.json()["error"]["code"] == "CONTENT_TYPE_REQUIRED", r.text
        assert http.post("/api/search", json={"query": "deploy"}).status_code == 200
        assert http.get("/api/status").status_code == 200
        r = http.post("/api/search")  # no body at all: the usual validation envelope, not 415
        assert r.status_code == 400 and r.json()["error"]["code"] == "VALIDATION", r.text
