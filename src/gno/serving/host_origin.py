"""The Host and Origin rules of every gno server (`gno serve`, `gno service serve`): each route
(REST, Web UI, `/mcp`, OpenAPI) answers only to the names the server is meant to be reached by,
and a state-changing request from a foreign web page is refused.

Why Host: a page the user visits can rebind its own DNS name to 127.0.0.1 and then talk to the
local server as a same-origin client (DNS rebinding). The browser still sends the attacker's name
in `Host`, so refusing unknown names closes that door whatever the route. The rule:

- loopback names are always accepted: `localhost`, `*.localhost`, and any loopback address
  literal (`127.0.0.0/8`, `::1`) — no public DNS name can masquerade as those;
- the bind address itself when it is a concrete address (binding 0.0.0.0 or :: names nothing);
- every `--allowed-host` the operator adds (a name or address, optionally with `:port`; a
  leading dot `.example.com` accepts the name and its subdomains; `*` accepts any Host, an
  explicit opt-out for setups behind a proxy that checks the name itself).

A refused request gets 421 Misdirected Request (HOST_NOT_ALLOWED) before any route, token check
or body read runs.

Why Origin: a browser attaches the page's `Origin` to a cross-site POST; a POST/PUT/PATCH/DELETE
whose Origin is neither the server's own (same netloc as `Host`) nor an `--allowed-origin` is
refused with 403 CSRF_VIOLATION. Requests without Origin (curl, SDKs, agents) are not browsers.

Both are pure ASGI (no buffering), so MCP's streams pass untouched; each server passes the
renderer of its own error body.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from gno.errors import AuthError, ErrorCode, GnoError

if TYPE_CHECKING:  # the rule itself needs no server packages (the CLI uses it without the serve extra)
    from starlette.types import ASGIApp, Receive, Scope, Send

#: a server's error body for a refusal: an ASGI response (a `starlette.responses.Response`)
Render = Callable[[GnoError], Any]
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})


def split_host(value: str) -> tuple[str, int | None]:
    """`name[:port]` or `[v6]:port` → (lower-case name without a final dot, port or None)."""
    value = value.strip().lower()
    port: int | None = None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value, None
        name, rest = value[1:end], value[end + 1 :]
        if rest.startswith(":") and rest[1:].isdigit():
            port = int(rest[1:])
        return name, port
    if value.count(":") == 1:
        name, _, raw_port = value.partition(":")
        if raw_port.isdigit():
            port = int(raw_port)
        value = name
    return value.rstrip("."), port


def is_loopback_name(name: str) -> bool:
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class HostRule:
    """Which Host header values a server accepts (see the module docstring)."""

    names: frozenset[str]
    suffixes: tuple[str, ...]
    ports: frozenset[tuple[str, int]]
    any_host: bool = False

    @classmethod
    def build(cls, bind_host: str, extra: Iterable[str] = ()) -> HostRule:
        names: set[str] = set()
        suffixes: list[str] = []
        ports: set[tuple[str, int]] = set()
        any_host = False
        bind = bind_host.strip("[]").lower()
        if bind not in WILDCARD_BINDS:
            names.add(bind)
        for raw in extra:
            item = raw.strip()
            if not item:
                continue
            if item == "*":
                any_host = True
                continue
            if item.startswith("."):
                suffixes.append(item.lower().rstrip("."))
                continue
            name, port = split_host(item)
            if port is None:
                names.add(name)
            else:
                ports.add((name, port))
        return cls(frozenset(names), tuple(suffixes), frozenset(ports), any_host)

    def allows(self, header: str | None) -> bool:
        if self.any_host:
            return True
        if not header:
            return False
        name, port = split_host(header)
        if not name:
            return False
        if is_loopback_name(name) or name in self.names:
            return True
        if port is not None and (name, port) in self.ports:
            return True
        return any(name == s[1:] or name.endswith(s) for s in self.suffixes)


def envelope(err: GnoError) -> Any:
    """gno's one error body, `{"error": {code, message, details}}`, with the table's status."""
    from starlette.responses import JSONResponse

    return JSONResponse(err.to_body(), status_code=err.http_status)


def host_refusal(header: str | None) -> GnoError:
    shown = header if header is not None else "(none)"
    return AuthError(
        f"Host {shown!r} is not allowed on this server (DNS rebinding protection); "
        "reach it by a loopback name or start it with --allowed-host NAME",
        code=ErrorCode.HOST_NOT_ALLOWED,
        details={"host": header},
    )


def _header(scope: Scope, name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == name), None)


class HostGuard:
    """ASGI middleware applying a `HostRule` to every HTTP and WebSocket request."""

    def __init__(self, app: ASGIApp, rule: HostRule, render: Render = envelope) -> None:
        self.app = app
        self.rule = rule
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            header = _header(scope, b"host")
            if not self.rule.allows(header):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await self.render(host_refusal(header))(scope, receive, send)
                return
        await self.app(scope, receive, send)


class OriginGuard:
    """ASGI middleware: a state-changing request from a foreign `Origin` gets CSRF_VIOLATION."""

    def __init__(self, app: ASGIApp, allowed_origins: Sequence[str] = (), render: Render = envelope) -> None:
        self.app = app
        self.allowed = {o.rstrip("/") for o in allowed_origins}
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in UNSAFE_METHODS:
            origin = _header(scope, b"origin")
            if origin and origin.rstrip("/") not in self.allowed and urlsplit(origin).netloc != _header(scope, b"host"):
                err = AuthError(
                    f"request from foreign origin {origin} refused; a browser page must be served by this "
                    "server (or start it with --allowed-origin ORIGIN)",
                    code=ErrorCode.CSRF_VIOLATION,
                    details={"origin": origin},
                )
                await self.render(err)(scope, receive, send)
                return
        await self.app(scope, receive, send)
