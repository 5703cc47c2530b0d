"""The Python SDK (issue 4 §3): `gno.Client.open()` and `gno.Client.connect(url)` are one API.

Same method names and signatures, the same pydantic models from every method, equal objects
where the call is deterministic, and the public names of `gno` pinned.
"""

from __future__ import annotations

import hashlib
import inspect
from typing import Any

import pytest

import gno
from gno.models import CaptureResult, DocumentResult, DocUpdateResult, SearchResult, StatusResult
from gno.models.memory_results import RecallResult, RememberResult
from gno.sdk.transports import HTTPTransport, LocalTransport
from servers import refusing_url

from .conftest import CALLER, SCOPE, SESSION, SurfaceEnv, read_front_matter

PUBLIC_METHODS = {
    "capture",
    "close",
    "collections",
    "get",
    "ls",
    "multi_get",
    "recall",
    "remember",
    "search",
    "status",
    "update",
    "update_doc",
}


def test_gno_all_is_pinned() -> None:
    assert gno.__all__ == [
        "AuthError",
        "BusyError",
        "Client",
        "ConflictError",
        "Engine",
        "ErrorCode",
        "GnoError",
        "NotFoundError",
        "RuntimeFailure",
        "ValidationError",
        "__version__",
    ]
    for name in gno.__all__:
        assert getattr(gno, name) is not None, name
    assert gno.Client is gno.sdk.client.Client
    assert issubclass(gno.ValidationError, gno.GnoError)


def test_one_client_class_over_two_transports(env: SurfaceEnv, sdk_local: Any, sdk_remote: Any) -> None:
    assert type(sdk_local) is type(sdk_remote) is gno.Client
    assert isinstance(sdk_local.transport, LocalTransport)
    assert isinstance(sdk_remote.transport, HTTPTransport)
    public = {n for n, _ in inspect.getmembers(gno.Client, inspect.isfunction) if not n.startswith("_")}
    assert PUBLIC_METHODS <= public, PUBLIC_METHODS - public


def test_every_capability_has_a_method_named_after_it() -> None:
    from gno.contract import CAPABILITIES, NO_SDK

    assert {c.name for c in CAPABILITIES if not c.sdk} == set(NO_SDK)
    for cap in CAPABILITIES:
        assert callable(getattr(gno.Client, cap.name, None)) == cap.sdk, cap.name


def test_an_unknown_option_is_a_validation_error(env: SurfaceEnv, sdk_local: Any) -> None:
    with pytest.raises(gno.ValidationError) as ei:
        sdk_local.search("deploy", limt=3)
    assert ei.value.code == gno.ErrorCode.VALIDATION


def test_every_method_returns_the_same_model_on_both_modes(env: SurfaceEnv, sdk_local: Any, sdk_remote: Any) -> None:
    def both(fn: str, *args: Any, **kw: Any) -> tuple[Any, Any]:
        a, b = getattr(sdk_local, fn)(*args, **kw), getattr(sdk_remote, fn)(*args, **kw)
        assert type(a) is type(b), (fn, type(a), type(b))
        return a, b

    # search / get: deterministic, so equal objects
    a, b = both("search", "tuesdays", collection="notes")
    assert isinstance(a, SearchResult)
    assert a.results == b.results
    da, db = a.dump(), b.dump()
    da["meta"].pop("elapsedMs"), db["meta"].pop("elapsedMs")  # wall time, the only moving field
    assert da == db
    assert [h.uri for h in a.results] == ["gno://notes/deploy.md"]
    a, b = both("get", "notes/deploy.md")
    assert isinstance(a, DocumentResult)
    assert a == b

    # status: same model; counts agree (size on disk may move between calls)
    a, b = both("status")
    assert isinstance(a, StatusResult)
    assert (a.documents, [c.name for c in a.collections]) == (b.documents, [c.name for c in b.collections])

    # remember: each mode adds its own fact; the other mode then sees it as `existing`
    la = sdk_local.remember("Local SDK fact about ferries", scopes=[SCOPE], decision="add")
    rb = sdk_remote.remember("Remote SDK fact about ferries", scopes=[SCOPE], decision="add")
    assert type(la) is type(rb) is RememberResult
    assert (la.outcome, rb.outcome) == ("added", "added")
    assert la.record is not None and rb.record is not None
    for rec in (la.record, rb.record):
        assert (rec.caller, rec.session) == (CALLER, SESSION)
        fm = read_front_matter(env.memory / rec.uri.removeprefix("gno://memory/"))
        assert (fm["memory"]["caller"], fm["memory"]["session"]) == (CALLER, SESSION)
    again_l = sdk_local.remember(rb.record.text, scopes=[SCOPE], decision="add")
    again_r = sdk_remote.remember(la.record.text, scopes=[SCOPE], decision="add")
    assert (again_l.outcome, again_r.outcome) == ("existing", "existing")
    assert again_l.record == rb.record and again_r.record == la.record

    # recall: equal facts on both
    a, b = both("recall", "ferries", scopes=[SCOPE])
    assert isinstance(a, RecallResult)
    assert a.facts == b.facts
    assert sorted(f.uri for f in a.facts) == sorted([la.record.uri, rb.record.uri])
    assert (a.receipt.memory_ids, a.receipt.span_hashes) == (b.receipt.memory_ids, b.receipt.span_hashes)

    # capture: a new note from each mode
    ca = sdk_local.capture("Captured in-process", collection="notes", title="Local capture")
    cb = sdk_remote.capture("Captured over REST", collection="notes", title="Remote capture")
    assert type(ca) is type(cb) is CaptureResult
    assert (ca.outcome, cb.outcome) == ("created", "created")
    assert sdk_remote.get(ca.uri) == sdk_local.get(ca.uri)

    # update_doc: local edits, remote edits on top with the hash local returned
    doc = sdk_local.get("notes/handbook.md")
    ua = sdk_local.update_doc(doc.docid, "# Handbook\n\nOn-call rotates daily.\n", doc.source_hash)
    ub = sdk_remote.update_doc(ua.docid, "# Handbook\n\nOn-call rotates hourly.\n", ua.source_hash)
    assert type(ua) is type(ub) is DocUpdateResult
    assert ub.previous_source_hash == ua.source_hash
    text = (env.notes / "handbook.md").read_text(encoding="utf-8")
    assert text == "# Handbook\n\nOn-call rotates hourly.\n"
    assert ub.source_hash == hashlib.sha256(text.encode()).hexdigest()


def test_remote_client_without_a_server_raises_runtime_failure(env: SurfaceEnv) -> None:
    with (
        refusing_url() as url,
        gno.Client.connect(url, timeout=5) as c,
        pytest.raises(gno.RuntimeFailure) as ei,
    ):
        c.status()
    assert ei.value.code == gno.ErrorCode.RUNTIME
