"""`gno.Client`: the Python SDK, one class over two transports.

    client = gno.Client.open()                              # in-process, on the user's index
    client = gno.Client.connect("http://127.0.0.1:3000")     # a running `gno serve`

Every method builds the capability's request model (the same defaults and limits as the CLI,
REST and MCP) and returns its result model; errors raise the same `GnoError` subclasses with
the same codes on both transports. `client.call(name, **fields)` reaches any capability of
the table; the named methods below are that, one line each.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

from gno.contract import BY_NAME, NO_SDK
from gno.contract.request import parse
from gno.errors import ValidationError
from gno.models import GnoModel

if TYPE_CHECKING:
    from gno.doctor import DoctorResult
    from gno.evidence.graph_models import GraphResult
    from gno.hints import ContextAddResult, ContextCheckResult, ContextList, ContextRemoved
    from gno.ledger import RequestStatusResult
    from gno.models import (
        AskResult,
        BenchResult,
        Capsule,
        CaptureResult,
        ChangesResult,
        CollectionInfo,
        CollectionList,
        CollectionRemoved,
        ContextVerifyResult,
        DiagnoseResult,
        DiffResult,
        DocumentResult,
        DocUpdateResult,
        EmbedResult,
        ImpactResult,
        IndexResult,
        InitResult,
        LinksResult,
        LsResult,
        MultiGetResult,
        SearchResult,
        StatusResult,
        SyncResult,
    )
    from gno.models.memory_results import AuditResult, MemoryHistoryResult, RecallResult, RememberResult
    from gno.retrieve.similar import SimilarResult
    from gno.sdk.transports import Transport
    from gno.writes.rename import CollectionRenamed
    from gno.writes.tags import TagsEditResult, TagsResult


def _plain(v: Any) -> Any:
    """Python conveniences → the JSON shapes the request models take (tuples, result models)."""
    if isinstance(v, tuple):
        return list(v)
    return v.dump() if isinstance(v, GnoModel) else v


class Client:
    """One API over a transport; use `Client.open(...)` or `Client.connect(url)`."""

    def __init__(self, transport: Transport, *, caller: str, session: str) -> None:
        self.transport = transport
        self.caller, self.session = caller, session

    @staticmethod
    def open(
        *,
        index: str | None = None,
        config: str | None = None,
        env: dict[str, str] | None = None,
        caller: str | None = None,
        session: str | None = None,
    ) -> Client:
        from gno.config import build_settings
        from gno.engine import Engine
        from gno.sdk.transports import LocalTransport

        settings = build_settings(index_name=index, config_file=config, env=env)
        default_caller = f"sdk:{settings.default_caller().removeprefix('cli:')}"
        return Client(
            LocalTransport(Engine(settings)),
            caller=caller or settings.env.get("GNO_MEMORY_CALLER") or default_caller,
            session=session or settings.env.get("GNO_MEMORY_SESSION") or f"pid:{os.getpid()}",
        )

    @staticmethod
    def connect(
        url: str,
        *,
        token: str | None = None,
        caller: str | None = None,
        session: str | None = None,
        timeout: float = 60.0,
        transport: Any = None,
    ) -> Client:
        from gno.sdk.transports import HTTPTransport

        return Client(
            HTTPTransport(url, token=token, timeout=timeout, transport=transport),
            caller=caller or "sdk:remote",
            session=session or f"pid:{os.getpid()}",
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.transport.close()

    def call(self, name: str, /, **fields: Any) -> Any:
        """Run capability `name` with these request fields (python names); its result model."""
        cap = BY_NAME.get(name)
        if cap is None or not cap.sdk:
            why = NO_SDK.get(name, "no capability of that name")
            raise ValidationError(f"the SDK has no capability {name!r} ({why})", details={"capability": name})
        data = {k: _plain(v) for k, v in fields.items()}
        for key in cap.identity:
            data[key] = data.get(key) or getattr(self, key)
        return self.transport.send(cap, parse(cap.request_model, data))

    # -- setting an index up (in-process only: `gno.contract.NO_HTTP` says why) -----------------
    def init(self, path: str | None = None, **options: Any) -> InitResult:
        return cast("InitResult", self.call("init", path=path, **options))

    def collection_add(self, path: str, **options: Any) -> CollectionInfo:
        return cast("CollectionInfo", self.call("collection_add", path=path, **options))

    def collection_set(self, name: str, **options: Any) -> CollectionInfo:
        return cast("CollectionInfo", self.call("collection_set", name=name, **options))

    def collection_remove(self, name: str) -> CollectionRemoved:
        return cast("CollectionRemoved", self.call("collection_remove", name=name))

    def embed(self, *collections: str, **options: Any) -> EmbedResult:
        return cast("EmbedResult", self.call("embed", collections=list(collections), **options))

    def index(self, *collections: str, **options: Any) -> IndexResult:
        return cast("IndexResult", self.call("index", collections=list(collections), **options))

    def bench(self, fixture: str, **options: Any) -> BenchResult:
        return cast("BenchResult", self.call("bench", fixture=fixture, **options))

    # -- the ladder, one line each ------------------------------------------------------------
    def search(self, query: str, **options: Any) -> SearchResult:
        return cast("SearchResult", self.call("search", query=query, **options))

    def vsearch(self, query: str, **options: Any) -> SearchResult:
        return cast("SearchResult", self.call("vsearch", query=query, **options))

    def query(self, query: str, **options: Any) -> SearchResult:
        return cast("SearchResult", self.call("query", query=query, **options))

    def diagnose(self, query: str, target: str, **options: Any) -> DiagnoseResult:
        return cast("DiagnoseResult", self.call("diagnose", query=query, target=target, **options))

    def get(self, ref: str, **options: Any) -> DocumentResult:
        return cast("DocumentResult", self.call("get", ref=ref, **options))

    def multi_get(self, refs: list[str], **options: Any) -> MultiGetResult:
        return cast("MultiGetResult", self.call("multi_get", refs=refs, **options))

    def ls(self, scope: str | None = None) -> LsResult:
        return cast("LsResult", self.call("ls", scope=scope))

    def status(self) -> StatusResult:
        return cast("StatusResult", self.call("status"))

    def collections(self) -> CollectionList:
        return cast("CollectionList", self.call("collections"))

    def update(self, *collections: str, **options: Any) -> SyncResult:
        return cast("SyncResult", self.call("update", collections=list(collections), **options))

    def recall(self, query: str, **options: Any) -> RecallResult:
        return cast("RecallResult", self.call("recall", query=query, **options))

    def remember(self, text: str, **options: Any) -> RememberResult:
        return cast("RememberResult", self.call("remember", text=text, **options))

    def memory_history(self, uri: str) -> MemoryHistoryResult:
        return cast("MemoryHistoryResult", self.call("memory_history", uri=uri))

    def audit(self, collection: str | None = None, **options: Any) -> AuditResult:
        return cast("AuditResult", self.call("audit", collection=collection, **options))

    def capture(self, content: str, **options: Any) -> CaptureResult:
        return cast("CaptureResult", self.call("capture", content=content, caller=self.caller, **options))

    def update_doc(
        self, ref: str, content: str, expected_source_hash: str, *, request_id: str | None = None
    ) -> DocUpdateResult:
        fields = {"ref": ref, "content": content, "expected_source_hash": expected_source_hash}
        return cast("DocUpdateResult", self.call("update_doc", **fields, request_id=request_id))

    def request_status(self, request_id: str) -> RequestStatusResult:
        return cast("RequestStatusResult", self.call("request_status", request_id=request_id))

    def context(self, goal: str, **options: Any) -> Capsule:
        return cast("Capsule", self.call("context", goal=goal, **options))

    def context_verify(self, capsule: Capsule | dict[str, Any]) -> ContextVerifyResult:
        return cast("ContextVerifyResult", self.call("context_verify", capsule=capsule))

    def context_add(self, scope: str, text: str) -> ContextAddResult:
        return cast("ContextAddResult", self.call("context_add", scope=scope, text=text))

    def context_list(self) -> ContextList:
        return cast("ContextList", self.call("context_list"))

    def context_rm(self, scope: str, text: str | None = None) -> ContextRemoved:
        return cast("ContextRemoved", self.call("context_rm", scope=scope, text=text))

    def context_check(self) -> ContextCheckResult:
        return cast("ContextCheckResult", self.call("context_check"))

    def changes(self, **options: Any) -> ChangesResult:
        return cast("ChangesResult", self.call("changes", **options))

    def diff(self, ref: str, **options: Any) -> DiffResult:
        return cast("DiffResult", self.call("diff", ref=ref, **options))

    def impact(self, ref: str, **options: Any) -> ImpactResult:
        return cast("ImpactResult", self.call("impact", ref=ref, **options))

    def links(self, ref: str) -> LinksResult:
        return cast("LinksResult", self.call("links", ref=ref))

    def backlinks(self, ref: str) -> LinksResult:
        return cast("LinksResult", self.call("backlinks", ref=ref))

    def graph(self, **options: Any) -> GraphResult:
        return cast("GraphResult", self.call("graph", **options))

    def ask(self, question: str, **options: Any) -> AskResult:
        return cast("AskResult", self.call("ask", question=question, **options))

    # -- the vault: similar, tags, doctor, collection rename ----------------------------------
    def similar(self, ref: str, **options: Any) -> SimilarResult:
        return cast("SimilarResult", self.call("similar", ref=ref, **options))

    def tags(self, collection: str | None = None) -> TagsResult:
        return cast("TagsResult", self.call("tags", collection=collection))

    def tags_add(self, ref: str, tags: list[str], *, request_id: str | None = None) -> TagsEditResult:
        return cast("TagsEditResult", self.call("tags_add", ref=ref, tags=tags, request_id=request_id))

    def tags_rm(self, ref: str, tags: list[str], *, request_id: str | None = None) -> TagsEditResult:
        return cast("TagsEditResult", self.call("tags_rm", ref=ref, tags=tags, request_id=request_id))

    def doctor(self) -> DoctorResult:
        return cast("DoctorResult", self.call("doctor"))

    def collection_rename(self, collection: str, new_name: str) -> CollectionRenamed:
        return cast("CollectionRenamed", self.call("collection_rename", collection=collection, new_name=new_name))
