"""The two transports of `gno.Client` (the httpx pattern): in-process and HTTP.

A transport takes a capability and its validated request model and returns the result model,
or raises the `GnoError` subclass of the error's code. In-process it makes the engine call;
over HTTP it sends the request to the capability's REST route and rebuilds the result (or the
error, from the `{"error": {...}}` envelope).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from gno.contract.request import CallContext
from gno.errors import GnoError, RuntimeFailure, ValidationError, from_body, from_exception

if TYPE_CHECKING:
    from gno.contract import Capability
    from gno.contract.request import Request
    from gno.engine import Engine
    from gno.models import GnoModel


class Transport(Protocol):
    def send(self, cap: Capability, req: Request) -> GnoModel: ...

    def close(self) -> None: ...


class LocalTransport:
    """Calls the engine of this process."""

    CTX = CallContext(surface="sdk")

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def send(self, cap: Capability, req: Request) -> GnoModel:
        try:
            return req.run(self.engine, self.CTX)
        except GnoError:
            raise
        except Exception as exc:  # a crash reaches the caller as RUNTIME, like on every other surface
            raise from_exception(exc) from exc

    def close(self) -> None:
        self.engine.close()


class HTTPTransport:
    """Calls a running `gno serve` over its REST routes."""

    def __init__(self, url: str, *, token: str | None, timeout: float, transport: Any = None) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout, transport=transport)

    def send(self, cap: Capability, req: Request) -> GnoModel:
        import httpx

        if cap.http is None:
            from gno.contract import NO_HTTP

            raise ValidationError(
                f"{cap.name} is not offered over REST ({NO_HTTP[cap.name]}): call it in-process, "
                "gno.Client.open()",
                details={"capability": cap.name},
            )
        method, path = cap.http
        wire = req.model_dump(mode="json", by_alias=True, exclude_none=True)
        for field, info in cap.request_model.model_fields.items():
            if "{" + field + "}" in path:  # a path field by its python name, its value by its wire name
                path = path.replace("{" + field + "}", quote(str(wire.pop(info.alias or field)), safe="/:"))
        get = method == "GET"
        try:
            resp = self.http.request(method, path, params=wire if get else None, json=None if get else wire)
        except httpx.HTTPError as exc:
            raise RuntimeFailure(f"cannot reach gno server {self.http.base_url}: {exc}") from exc
        try:
            data = resp.json()
        except ValueError as exc:
            raise RuntimeFailure(f"gno server answered {resp.status_code} without JSON") from exc
        if resp.status_code >= 400:
            raise from_body(data)
        return cap.result_model.model_validate(data)

    def close(self) -> None:
        self.http.close()
