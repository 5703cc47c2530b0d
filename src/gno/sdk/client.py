"""`gno.Client`: the Python SDK, in-process or remote over REST, with one set of methods.

    client = gno.Client.open()                              # in-process, on the user's index
    client = gno.Client.connect("http://127.0.0.1:3000")     # a running `gno serve`

Both return the same pydantic models and raise the same `GnoError` subclasses with the same
codes (the remote client rebuilds them from the `{"error": {...}}` envelope).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, TypeVar

from gno.errors import RuntimeFailure, from_body
from gno.memory.models import RecallResult, Receipt, RememberResult
from gno.models import (
    AskResult,
    Capsule,
    CaptureResult,
    CaptureSource,
    ChangesResult,
    CollectionList,
    ContextVerifyResult,
    DiagnoseResult,
    DiffResult,
    DocumentResult,
    DocUpdateResult,
    GnoModel,
    ImpactResult,
    LinksResult,
    LsResult,
    MultiGetResult,
    SearchResult,
    StatusResult,
    SyncResult,
)

M = TypeVar("M", bound=GnoModel)


class Client:
    """Base of both clients; use `Client.open(...)` or `Client.connect(url)`."""

    caller: str
    session: str

    @staticmethod
    def open(
        *,
        index: str | None = None,
        config: str | None = None,
        env: dict[str, str] | None = None,
        caller: str | None = None,
        session: str | None = None,
    ) -> LocalClient:
        from gno.config import build_settings
        from gno.engine import Engine

        settings = build_settings(index_name=index, config_file=config, env=env)
        return LocalClient(
            Engine(settings),
            caller=caller
            or settings.env.get("GNO_MEMORY_CALLER")
            or f"sdk:{settings.default_caller().removeprefix('cli:')}",
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
    ) -> RemoteClient:
        return RemoteClient(
            url,
            token=token,
            caller=caller or "sdk:remote",
            session=session or f"pid:{os.getpid()}",
            timeout=timeout,
            transport=transport,
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


def _receipt(r: Receipt | dict[str, Any] | None) -> dict[str, Any] | None:
    return r.dump() if isinstance(r, Receipt) else r


class LocalClient(Client):
    """In-process client: calls the engine directly."""

    def __init__(self, engine: Any, *, caller: str, session: str) -> None:
        self.engine = engine
        self.caller, self.session = caller, session

    def close(self) -> None:
        self.engine.close()

    def search(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        full: bool = False,
    ) -> SearchResult:
        result: SearchResult = self.engine.search(
            query,
            collection=collection,
            limit=limit,
            min_score=min_score,
            tags_any=tags_any,
            tags_all=tags_all,
            full=full,
        )
        return result

    def query(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        fast: bool = False,
        thorough: bool = False,
        graph: bool = True,
        candidate_limit: int | None = None,
        explain: bool = False,
    ) -> SearchResult:
        result: SearchResult = self.engine.query(
            query,
            collection=collection,
            limit=limit,
            min_score=min_score,
            tags_any=tags_any,
            tags_all=tags_all,
            fast=fast,
            thorough=thorough,
            graph=graph,
            candidate_limit=candidate_limit,
            explain=explain,
        )
        return result

    def vsearch(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
    ) -> SearchResult:
        result: SearchResult = self.engine.vsearch(
            query, collection=collection, limit=limit, min_score=min_score, tags_any=tags_any, tags_all=tags_all
        )
        return result

    def diagnose(
        self,
        query: str,
        target: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        fast: bool = False,
        thorough: bool = False,
        graph: bool = True,
        candidate_limit: int | None = None,
    ) -> DiagnoseResult:
        result: DiagnoseResult = self.engine.diagnose(
            query,
            target,
            collection=collection,
            limit=limit,
            fast=fast,
            thorough=thorough,
            graph=graph,
            candidate_limit=candidate_limit,
        )
        return result

    def get(self, ref: str, *, from_line: int | None = None, line_count: int | None = None) -> DocumentResult:
        result: DocumentResult = self.engine.get(ref, from_line=from_line, line_count=line_count)
        return result

    def multi_get(self, refs: Sequence[str], *, max_bytes: int = 10240) -> MultiGetResult:
        result: MultiGetResult = self.engine.multi_get(refs, max_bytes=max_bytes)
        return result

    def ls(self, scope: str | None = None) -> LsResult:
        result: LsResult = self.engine.ls(scope)
        return result

    def status(self) -> StatusResult:
        result: StatusResult = self.engine.status()
        return result

    def collections(self) -> CollectionList:
        result: CollectionList = self.engine.collection_list()
        return result

    def update(self, collection: str | None = None) -> SyncResult:
        result: SyncResult = self.engine.update([collection] if collection else [])
        return result

    def recall(
        self,
        query: str,
        *,
        scopes: Sequence[str],
        collection: str | None = None,
        max_facts: int = 8,
        max_tokens: int = 512,
        caller: str | None = None,
        session: str | None = None,
    ) -> RecallResult:
        from gno.memory.recall import RecallRequest

        result: RecallResult = self.engine.recall(
            RecallRequest(
                query=query,
                scopes=list(scopes),
                caller=caller or self.caller,
                session=session or self.session,
                collection=collection,
                max_facts=max_facts,
                max_tokens=max_tokens,
            )
        )
        return result

    def remember(
        self,
        text: str,
        *,
        scopes: Sequence[str],
        collection: str | None = None,
        decision: str | None = None,
        predecessor_uri: str | None = None,
        predecessor_hash: str | None = None,
        receipt: Receipt | dict[str, Any] | None = None,
        derived_from: Sequence[str] = (),
        source: str | None = None,
        caller: str | None = None,
        session: str | None = None,
    ) -> RememberResult:
        from gno.memory.remember import RememberRequest

        result: RememberResult = self.engine.remember(
            RememberRequest(
                text=text,
                scopes=list(scopes),
                caller=caller or self.caller,
                session=session or self.session,
                collection=collection,
                decision=decision,
                predecessor_uri=predecessor_uri,
                predecessor_hash=predecessor_hash,
                receipt=_receipt(receipt),
                derived_from=list(derived_from),
                source=source,
            )
        )
        return result

    def capture(
        self,
        content: str,
        *,
        collection: str | None = None,
        title: str | None = None,
        path: str | None = None,
        folder: str | None = None,
        tags: Sequence[str] = (),
        source: CaptureSource | dict[str, Any] | None = None,
        collision_policy: str = "error",
    ) -> CaptureResult:
        from gno.writes.capture import CaptureRequest

        src = CaptureSource.model_validate(source) if isinstance(source, dict) else source
        result: CaptureResult = self.engine.capture(
            CaptureRequest(
                content=content,
                collection=collection,
                title=title,
                path=path,
                folder=folder,
                tags=list(tags),
                source=src,
                collision_policy=collision_policy,
                caller=self.caller,
            )
        )
        return result

    def update_doc(self, ref: str, content: str, expected_source_hash: str) -> DocUpdateResult:
        result: DocUpdateResult = self.engine.update_doc(ref, content, expected_source_hash)
        return result

    # -- evidence ---------------------------------------------------------------------------
    def context(
        self,
        goal: str,
        *,
        budget: int = 12000,
        query: str | None = None,
        collection: str | None = None,
        uri_prefix: str | None = None,
        fast: bool = False,
        thorough: bool = False,
    ) -> Capsule:
        from gno.evidence.capsule import CapsuleRequest

        result: Capsule = self.engine.context_build(
            CapsuleRequest(
                goal=goal,
                budget_tokens=budget,
                query=query,
                collections=(collection,) if collection else (),
                uri_prefix=uri_prefix,
                depth="fast" if fast else "thorough" if thorough else "balanced",
            )
        )
        return result

    def verify_context(self, capsule: Capsule | dict[str, Any]) -> ContextVerifyResult:
        result: ContextVerifyResult = self.engine.context_verify(capsule)
        return result

    def changes(self, *, since: str | None = None, collection: str | None = None, limit: int = 100) -> ChangesResult:
        result: ChangesResult = self.engine.changes(since=since, collection=collection, limit=limit)
        return result

    def diff(self, ref: str, *, change: str | None = None) -> DiffResult:
        result: DiffResult = self.engine.diff(ref, change)
        return result

    def impact(self, ref: str, *, max_depth: int = 3, max_nodes: int = 100, max_edges: int = 250) -> ImpactResult:
        result: ImpactResult = self.engine.impact(ref, max_depth=max_depth, max_nodes=max_nodes, max_edges=max_edges)
        return result

    def links(self, ref: str) -> LinksResult:
        result: LinksResult = self.engine.links(ref)
        return result

    def backlinks(self, ref: str) -> LinksResult:
        result: LinksResult = self.engine.backlinks(ref)
        return result

    def ask(
        self, question: str, *, verify: bool = True, budget: int = 12000, collection: str | None = None
    ) -> AskResult:
        result: AskResult = self.engine.ask(question, verify=verify, budget_tokens=budget, collection=collection)
        return result


class RemoteClient(Client):
    """Remote client over REST (`gno serve`)."""

    def __init__(
        self, url: str, *, token: str | None, caller: str, session: str, timeout: float, transport: Any = None
    ) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout, transport=transport)
        self.caller, self.session = caller, session

    def close(self) -> None:
        self.http.close()

    def _call(
        self,
        model: type[M],
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
    ) -> M:
        import httpx

        try:
            resp = self.http.request(method, path, json=json, params=params)
        except httpx.HTTPError as exc:
            raise RuntimeFailure(f"cannot reach gno server {self.http.base_url}: {exc}") from exc
        try:
            data = resp.json()
        except ValueError as exc:
            raise RuntimeFailure(f"gno server answered {resp.status_code} without JSON") from exc
        if resp.status_code >= 400:
            raise from_body(data)
        return model.model_validate(data)

    def search(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        full: bool = False,
    ) -> SearchResult:
        return self._call(
            SearchResult,
            "POST",
            "/api/search",
            json={
                "query": query,
                "collection": collection,
                "limit": limit,
                "minScore": min_score,
                "tagsAny": list(tags_any),
                "tagsAll": list(tags_all),
                "full": full,
            },
        )

    def query(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        fast: bool = False,
        thorough: bool = False,
        graph: bool = True,
        candidate_limit: int | None = None,
        explain: bool = False,
    ) -> SearchResult:
        return self._call(
            SearchResult,
            "POST",
            "/api/query",
            json={
                "query": query,
                "collection": collection,
                "limit": limit,
                "minScore": min_score,
                "tagsAny": list(tags_any),
                "tagsAll": list(tags_all),
                "fast": fast,
                "thorough": thorough,
                "graph": graph,
                "candidateLimit": candidate_limit,
                "explain": explain,
            },
        )

    def vsearch(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
    ) -> SearchResult:
        return self._call(
            SearchResult,
            "POST",
            "/api/vsearch",
            json={
                "query": query,
                "collection": collection,
                "limit": limit,
                "minScore": min_score,
                "tagsAny": list(tags_any),
                "tagsAll": list(tags_all),
            },
        )

    def diagnose(
        self,
        query: str,
        target: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        fast: bool = False,
        thorough: bool = False,
        graph: bool = True,
        candidate_limit: int | None = None,
    ) -> DiagnoseResult:
        return self._call(
            DiagnoseResult,
            "POST",
            "/api/query/diagnose",
            json={
                "query": query,
                "target": target,
                "collection": collection,
                "limit": limit,
                "fast": fast,
                "thorough": thorough,
                "graph": graph,
                "candidateLimit": candidate_limit,
            },
        )

    def get(self, ref: str, *, from_line: int | None = None, line_count: int | None = None) -> DocumentResult:
        params: dict[str, Any] = {"uri": ref}
        if from_line is not None:
            params["fromLine"] = from_line
        if line_count is not None:
            params["lineCount"] = line_count
        return self._call(DocumentResult, "GET", "/api/doc", params=params)

    def multi_get(self, refs: Sequence[str], *, max_bytes: int = 10240) -> MultiGetResult:
        return self._call(MultiGetResult, "POST", "/api/multi-get", json={"refs": list(refs), "maxBytes": max_bytes})

    def ls(self, scope: str | None = None) -> LsResult:
        return self._call(LsResult, "GET", "/api/ls", params={"scope": scope} if scope else None)

    def status(self) -> StatusResult:
        return self._call(StatusResult, "GET", "/api/status")

    def collections(self) -> CollectionList:
        return self._call(CollectionList, "GET", "/api/collections")

    def update(self, collection: str | None = None) -> SyncResult:
        return self._call(SyncResult, "POST", "/api/sync", json={"collection": collection})

    def recall(
        self,
        query: str,
        *,
        scopes: Sequence[str],
        collection: str | None = None,
        max_facts: int = 8,
        max_tokens: int = 512,
        caller: str | None = None,
        session: str | None = None,
    ) -> RecallResult:
        return self._call(
            RecallResult,
            "POST",
            "/api/memory/recall",
            json={
                "query": query,
                "scopes": list(scopes),
                "collection": collection,
                "maxFacts": max_facts,
                "maxTokens": max_tokens,
                "caller": caller or self.caller,
                "session": session or self.session,
            },
        )

    def remember(
        self,
        text: str,
        *,
        scopes: Sequence[str],
        collection: str | None = None,
        decision: str | None = None,
        predecessor_uri: str | None = None,
        predecessor_hash: str | None = None,
        receipt: Receipt | dict[str, Any] | None = None,
        derived_from: Sequence[str] = (),
        source: str | None = None,
        caller: str | None = None,
        session: str | None = None,
    ) -> RememberResult:
        return self._call(
            RememberResult,
            "POST",
            "/api/memory/remember",
            json={
                "text": text,
                "scopes": list(scopes),
                "collection": collection,
                "decision": decision,
                "predecessorUri": predecessor_uri,
                "predecessorHash": predecessor_hash,
                "receipt": _receipt(receipt),
                "derivedFrom": list(derived_from),
                "source": source,
                "caller": caller or self.caller,
                "session": session or self.session,
            },
        )

    def capture(
        self,
        content: str,
        *,
        collection: str | None = None,
        title: str | None = None,
        path: str | None = None,
        folder: str | None = None,
        tags: Sequence[str] = (),
        source: CaptureSource | dict[str, Any] | None = None,
        collision_policy: str = "error",
    ) -> CaptureResult:
        src = source.dump() if isinstance(source, CaptureSource) else source
        return self._call(
            CaptureResult,
            "POST",
            "/api/capture",
            json={
                "content": content,
                "collection": collection,
                "title": title,
                "path": path,
                "folderPath": folder,
                "tags": list(tags),
                "source": src,
                "collisionPolicy": collision_policy,
                "caller": self.caller,
            },
        )

    def update_doc(self, ref: str, content: str, expected_source_hash: str) -> DocUpdateResult:
        from urllib.parse import quote

        return self._call(
            DocUpdateResult,
            "PUT",
            "/api/docs/" + quote(ref, safe="/:"),
            json={"content": content, "expectedSourceHash": expected_source_hash},
        )

    # -- evidence ---------------------------------------------------------------------------
    def context(
        self,
        goal: str,
        *,
        budget: int = 12000,
        query: str | None = None,
        collection: str | None = None,
        uri_prefix: str | None = None,
        fast: bool = False,
        thorough: bool = False,
    ) -> Capsule:
        return self._call(
            Capsule,
            "POST",
            "/api/context",
            json={
                "goal": goal,
                "budget": budget,
                "query": query,
                "collection": collection,
                "uriPrefix": uri_prefix,
                "fast": fast,
                "thorough": thorough,
            },
        )

    def verify_context(self, capsule: Capsule | dict[str, Any]) -> ContextVerifyResult:
        body = capsule.dump() if isinstance(capsule, Capsule) else capsule
        return self._call(ContextVerifyResult, "POST", "/api/context/verify", json={"capsule": body})

    def changes(self, *, since: str | None = None, collection: str | None = None, limit: int = 100) -> ChangesResult:
        params: dict[str, Any] = {"limit": limit}
        if since:
            params["since"] = since
        if collection:
            params["collection"] = collection
        return self._call(ChangesResult, "GET", "/api/changes", params=params)

    def diff(self, ref: str, *, change: str | None = None) -> DiffResult:
        return self._call(DiffResult, "GET", "/api/diff", params={"ref": ref, **({"change": change} if change else {})})

    def impact(self, ref: str, *, max_depth: int = 3, max_nodes: int = 100, max_edges: int = 250) -> ImpactResult:
        return self._call(
            ImpactResult,
            "GET",
            "/api/impact",
            params={"ref": ref, "maxDepth": max_depth, "maxNodes": max_nodes, "maxEdges": max_edges},
        )

    def links(self, ref: str) -> LinksResult:
        return self._call(LinksResult, "GET", "/api/links", params={"ref": ref})

    def backlinks(self, ref: str) -> LinksResult:
        return self._call(LinksResult, "GET", "/api/backlinks", params={"ref": ref})

    def ask(
        self, question: str, *, verify: bool = True, budget: int = 12000, collection: str | None = None
    ) -> AskResult:
        return self._call(
            AskResult,
            "POST",
            "/api/ask",
            json={"question": question, "verify": verify, "budget": budget, "collection": collection},
        )
