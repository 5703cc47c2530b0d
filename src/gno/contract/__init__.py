"""The capability table: every capability once, and every surface generated from it.

A row names the capability (the SDK method), its request model (inputs, defaults, limits,
descriptions: `gno.contract.<concept>`), its result model, its REST route, its MCP tool and
whether that tool is in the write set, its CLI command, and the error codes it can answer with. A
capability a surface does not offer says why (`NO_CLI`, `NO_HTTP`, `NO_MCP`, `NO_SDK`).
The REST routes (`gno.http`), the MCP tools (`gno.mcp`), the SDK (`gno.sdk`), the CLI's request
building (`gno.cli`), `spec/*.json` and the contract test all read this table; none of them
lists capabilities or argument names of its own.

The table is import-light on purpose: models are named by import strings and loaded on first
use, so `gno search` imports only the search request and its result.

Names and defaults (one decision per capability, on every surface):

- `limit` of the retrieval rungs: 10 by default, at most 100; `depth` = fast|balanced|thorough;
- `ask` verifies by default (`verify: true`; the CLI opts out with `--no-verify`);
- `context` and `ask` take `budget` in tokens (12000); `context` filters by `collections`;
- identity (`caller`, `session`) is never an MCP tool argument: it comes from the connection;
- the writes (capture, remember, update_doc) take `requestId`: a retry replays, never writes twice;
- context hints (`context_add`, `context_list`, `context_rm`, `context_check`) are configuration:
  their edits are writes (the MCP write set), and they are never evidence.
"""

from __future__ import annotations

from gno.contract.capability import COMMON_ERRORS, HTTP_ERRORS, WRITE_ERRORS, Capability, ToolSpec
from gno.errors import ErrorCode as E

__all__ = [
    "BY_NAME",
    "BY_TOOL",
    "CAPABILITIES",
    "COMMON_ERRORS",
    "CORE",
    "HTTP_ERRORS",
    "NO_CLI",
    "NO_HTTP",
    "NO_MCP",
    "NO_SDK",
    "TOOL_PROFILES",
    "WRITE_ERRORS",
    "Capability",
    "ToolSpec",
    "capability",
    "in_profile",
]

_RECALL_ERRORS = (
    E.MEMORY_IDENTITY_REQUIRED,
    E.MEMORY_QUERY_REQUIRED,
    E.MEMORY_COLLECTION_REQUIRED,
    E.MEMORY_COLLECTION_NOT_FOUND,
    E.MEMORY_COLLECTION_UNMANAGED,
    E.MEMORY_SCOPES_REQUIRED,
    E.MEMORY_SCOPES_INVALID,
    E.MEMORY_BUDGET_INVALID,
    E.MEMORY_QUERY_FAILED,
)
_REMEMBER_ERRORS = (
    E.MEMORY_IDENTITY_REQUIRED,
    E.MEMORY_TEXT_REQUIRED,
    E.MEMORY_TEXT_TOO_LARGE,
    E.MEMORY_COLLECTION_REQUIRED,
    E.MEMORY_COLLECTION_NOT_FOUND,
    E.MEMORY_COLLECTION_UNMANAGED,
    E.MEMORY_SCOPES_REQUIRED,
    E.MEMORY_SCOPES_INVALID,
    E.MEMORY_DECISION_INVALID,
    E.MEMORY_PREDECESSOR_REQUIRED,
    E.MEMORY_PREDECESSOR_NOT_FOUND,
    E.MEMORY_PREDECESSOR_HASH_MISMATCH,
    E.MEMORY_SUPERSEDE_CONFLICT,
    E.MEMORY_SUPERSEDE_PROJECTION_FAILED,
    E.MEMORY_FENCED_REPLAY,
    E.MEMORY_FENCED_DERIVED,
    E.MEMORY_WRITE_LEASE_BUSY,
    E.MEMORY_SYNC_FAILED,
)
#: codes of a write made with a request ID (retry-safe writes)
_REQUEST = (
    E.REQUEST_ID_INVALID,
    E.REQUEST_ID_CONFLICT,
    E.REQUEST_EXPIRED,
    E.REQUEST_PENDING,
    E.REQUEST_RECOVERY_CONFLICT,
    E.REQUEST_CAPACITY_EXHAUSTED,
    E.REQUEST_LEDGER_UNAVAILABLE,
)
_REF = (E.NOT_FOUND, E.INVALID_REF)
_QUERY = (E.INVALID_QUERY, E.COLLECTION_NOT_FOUND)
_TAG_EDIT = (*_REF, E.TAG_INVALID, E.CONFLICT)
_NEW_COLLECTION = (E.PATH_NOT_FOUND, E.COLLECTION_EXISTS, E.COLLECTION_OVERLAP)


_M = "gno.models:"
CAPABILITIES: tuple[Capability, ...] = (
    Capability("status", "documents:StatusRequest", _M + "StatusResult", ("GET", "/api/status"), "status", "read"),
    Capability(
        "collections",
        "documents:CollectionsRequest",
        _M + "CollectionList",
        ("GET", "/api/collections"),
        "collection list",
        "read",
    ),
    Capability(
        "update",
        "documents:UpdateRequest",
        _M + "SyncResult",
        ("POST", "/api/sync"),
        "update",
        "write",
        (E.COLLECTION_NOT_FOUND,),
        write=True,
    ),
    Capability(
        "init",
        "index_setup:InitRequest",
        _M + "InitResult",
        None,
        "init",
        "write",
        _NEW_COLLECTION,
        write=True,
        tool=None,
    ),
    Capability(
        "collection_add",
        "index_setup:CollectionAddRequest",
        _M + "CollectionInfo",
        None,
        "collection add",
        "write",
        _NEW_COLLECTION,
        write=True,
        tool=None,
    ),
    Capability(
        "collection_set",
        "index_setup:CollectionSetRequest",
        _M + "CollectionInfo",
        None,
        "collection set",
        "write",
        (E.COLLECTION_NOT_FOUND,),
        write=True,
        tool=None,
    ),
    Capability(
        "collection_remove",
        "index_setup:CollectionRemoveRequest",
        _M + "CollectionRemoved",
        None,
        "collection remove",
        "write",
        (E.COLLECTION_NOT_FOUND,),
        write=True,
        tool=None,
    ),
    Capability(
        "embed",
        "index_setup:EmbedRequest",
        _M + "EmbedResult",
        None,
        "embed",
        "write",
        (E.COLLECTION_NOT_FOUND, E.VECTORS_UNAVAILABLE, E.EXTRA_MISSING),
        write=True,
        tool=None,
    ),
    Capability(
        "index",
        "index_setup:IndexRequest",
        _M + "IndexResult",
        None,
        "index",
        "write",
        (E.COLLECTION_NOT_FOUND,),
        write=True,
        tool=None,
    ),
    Capability(
        "search", "retrieve:SearchRequest", _M + "SearchResult", ("POST", "/api/search"), "search", "read", _QUERY
    ),
    Capability(
        "vsearch",
        "retrieve:VsearchRequest",
        _M + "SearchResult",
        ("POST", "/api/vsearch"),
        "vsearch",
        "read",
        (*_QUERY, E.VECTORS_UNAVAILABLE),
    ),
    Capability("query", "retrieve:QueryRequest", _M + "SearchResult", ("POST", "/api/query"), "query", "read", _QUERY),
    Capability(
        "diagnose",
        "retrieve:DiagnoseRequest",
        _M + "DiagnoseResult",
        ("POST", "/api/query/diagnose"),
        "query diagnose",
        "read",
        (*_QUERY, *_REF),
        tool="gno_query_diagnose",
    ),
    Capability("get", "documents:GetRequest", _M + "DocumentResult", ("GET", "/api/doc"), "get", "read", _REF),
    Capability(
        "multi_get", "documents:MultiGetRequest", _M + "MultiGetResult", ("POST", "/api/multi-get"), "multi-get", "read"
    ),
    Capability(
        "ls", "documents:LsRequest", _M + "LsResult", ("GET", "/api/ls"), "ls", "read", (E.COLLECTION_NOT_FOUND,)
    ),
    Capability(
        "bench",
        "retrieve:BenchRequest",
        _M + "BenchResult",
        None,
        "bench",
        "read",
        (E.COLLECTION_NOT_FOUND, E.VECTORS_UNAVAILABLE),
        tool=None,
    ),
    Capability(
        "recall",
        "memory:RecallRequest",
        "gno.models.memory_results:RecallResult",
        ("POST", "/api/memory/recall"),
        "recall",
        "memory",
        _RECALL_ERRORS,
        identity=("caller", "session"),
    ),
    Capability(
        "remember",
        "memory:RememberRequest",
        "gno.models.memory_results:RememberResult",
        ("POST", "/api/memory/remember"),
        "remember",
        "memory",
        (*_REMEMBER_ERRORS, *_REQUEST),
        write=True,
        identity=("caller", "session"),
        created=("added", "superseded"),
    ),
    Capability(
        "memory_history",
        "memory:MemoryHistoryRequest",
        "gno.models.memory_results:MemoryHistoryResult",
        ("GET", "/api/memory/history"),
        "memory history",
        "memory",
        (E.NOT_FOUND,),
    ),
    Capability(
        "audit",
        "memory:AuditRequest",
        "gno.models.memory_results:AuditResult",
        ("GET", "/api/memory/audit"),
        "audit",
        "memory",
        (E.COLLECTION_NOT_FOUND,),
        tool="gno_memory_audit",
    ),
    Capability(
        "capture",
        "documents:CaptureRequest",
        _M + "CaptureResult",
        ("POST", "/api/capture"),
        "capture",
        "write",
        (E.COLLECTION_NOT_FOUND, E.DUPLICATE, E.CAPTURE_SYNC_FAILED, *_REQUEST),
        write=True,
        identity=("caller",),
        created=("created",),
    ),
    Capability(
        "update_doc",
        "documents:UpdateDocRequest",
        _M + "DocUpdateResult",
        ("PUT", "/api/docs/{ref}"),
        None,
        "write",
        (*_REF, E.CONFLICT, *_REQUEST),
        write=True,
        tool=None,
    ),
    Capability(
        "request_status",
        "documents:RequestStatusRequest",
        "gno.ledger:RequestStatusResult",
        ("GET", "/api/requests/{request_id}"),
        "request-status",
        "write",
        (E.REQUEST_ID_INVALID, E.REQUEST_LEDGER_UNAVAILABLE),
    ),
    Capability(
        "context",
        "evidence:ContextRequest",
        _M + "Capsule",
        ("POST", "/api/context"),
        "context build",
        "evidence",
        (E.COLLECTION_NOT_FOUND, E.NOT_FOUND),
        canonical=True,
    ),
    Capability(
        "context_add",
        "hint_requests:ContextAddRequest",
        "gno.hints:ContextAddResult",
        ("POST", "/api/contexts"),
        "context add",
        "write",
        (E.CONTEXT_SCOPE_INVALID, E.CONTEXT_TEXT_INVALID),
        write=True,
    ),
    Capability(
        "context_list",
        "hint_requests:ContextListRequest",
        "gno.hints:ContextList",
        ("GET", "/api/contexts"),
        "context list",
        "read",
    ),
    Capability(
        "context_rm",
        "hint_requests:ContextRmRequest",
        "gno.hints:ContextRemoved",
        ("DELETE", "/api/contexts"),
        "context rm",
        "write",
        (E.CONTEXT_SCOPE_INVALID, E.CONTEXT_NOT_FOUND),
        write=True,
    ),
    Capability(
        "context_check",
        "hint_requests:ContextCheckRequest",
        "gno.hints:ContextCheckResult",
        ("GET", "/api/contexts/check"),
        "context check",
        "read",
    ),
    Capability(
        "context_verify",
        "evidence:ContextVerifyRequest",
        _M + "ContextVerifyResult",
        ("POST", "/api/context/verify"),
        "context verify",
        "evidence",
    ),
    Capability(
        "changes",
        "evidence:ChangesRequest",
        _M + "ChangesResult",
        ("GET", "/api/changes"),
        "changes",
        "evidence",
        (E.CURSOR_EXPIRED, E.COLLECTION_NOT_FOUND),
    ),
    Capability("diff", "evidence:DiffRequest", _M + "DiffResult", ("GET", "/api/diff"), "diff", "evidence", _REF),
    Capability(
        "impact", "evidence:ImpactRequest", _M + "ImpactResult", ("GET", "/api/impact"), "impact", "evidence", _REF
    ),
    Capability("links", "evidence:LinksRequest", _M + "LinksResult", ("GET", "/api/links"), "links", "evidence", _REF),
    Capability(
        "backlinks",
        "evidence:BacklinksRequest",
        _M + "LinksResult",
        ("GET", "/api/backlinks"),
        "backlinks",
        "evidence",
        _REF,
    ),
    Capability(
        "graph",
        "evidence:GraphRequest",
        "gno.evidence.graph_models:GraphResult",
        ("GET", "/api/graph"),
        "graph",
        "evidence",
        (E.COLLECTION_NOT_FOUND,),
    ),
    Capability(
        "similar",
        "vault:SimilarRequest",
        "gno.retrieve.similar:SimilarResult",
        ("GET", "/api/similar"),
        "similar",
        "read",
        (*_REF, E.VECTORS_UNAVAILABLE, E.VECTORS_STALE),
    ),
    Capability(
        "tags",
        "vault:TagsRequest",
        "gno.writes.tags:TagsResult",
        ("GET", "/api/tags"),
        "tags list",
        "read",
        (E.COLLECTION_NOT_FOUND,),
        tool="gno_list_tags",
    ),
    Capability(
        "tags_add",
        "vault:TagsAddRequest",
        "gno.writes.tags:TagsEditResult",
        ("POST", "/api/tags/add"),
        "tags add",
        "write",
        (*_TAG_EDIT, *_REQUEST),
        write=True,
    ),
    Capability(
        "tags_rm",
        "vault:TagsRmRequest",
        "gno.writes.tags:TagsEditResult",
        ("POST", "/api/tags/rm"),
        "tags rm",
        "write",
        (*_TAG_EDIT, *_REQUEST),
        write=True,
    ),
    Capability("doctor", "vault:DoctorRequest", "gno.doctor:DoctorResult", ("GET", "/api/doctor"), "doctor", "read"),
    Capability(
        "collection_rename",
        "vault:CollectionRenameRequest",
        "gno.writes.rename:CollectionRenamed",
        ("POST", "/api/collections/{collection}/rename"),
        "collection rename",
        "write",
        (E.COLLECTION_NOT_FOUND, E.COLLECTION_EXISTS),
        write=True,
    ),
    Capability(
        "ask",
        "evidence:AskRequest",
        _M + "AskResult",
        ("POST", "/api/ask"),
        "ask",
        "evidence",
        (E.COLLECTION_NOT_FOUND, E.EGRESS_DENIED),
    ),
    Capability(
        "demo",
        "index_setup:DemoRequest",
        _M + "DemoResult",
        None,
        "demo",
        "read",
        tool=None,
        sdk=False,
    ),
)

#: MCP tool profiles: `core` is what an agent needs every turn (the writes only with writes enabled),
#: `full` every tool; agents with small tool budgets pick `core` (`gno mcp --tool-profile core`)
TOOL_PROFILES = ("core", "full")
CORE = frozenset({"query", "search", "get", "multi_get", "context", "changes", "recall", "capture", "remember"})


def in_profile(cap: Capability, profile: str) -> bool:
    return profile == "full" or cap.name in CORE


#: capabilities a surface does not offer, and why (the contract tests read these)
NO_CLI = {"update_doc": "edit the file itself (editor, Web UI); the CLI edits only tags (`gno tags add/rm`)"}
_FOLDERS = (
    "which folders of the machine gno reads is its user's decision: a remote or agent client that adds, "
    "changes or removes a collection would widen or narrow every other client's view"
)
_LONG_JOB = (
    "loads the embedding model and runs for minutes with a progress bar on a terminal; a resident owner "
    "(`gno serve`, `gno daemon`) embeds in the background after every sync"
)
_SETUP = {
    "init": "creates the config and the index a server would already be running on",
    "collection_add": _FOLDERS,
    "collection_set": _FOLDERS,
    "collection_remove": _FOLDERS,
    "embed": _LONG_JOB,
    "index": _LONG_JOB,
    "bench": "reads a fixture file of the caller's machine and times the searches in the caller's process",
    "demo": "runs in a scratch home of its own, never on a server's index",
}
NO_HTTP = dict(_SETUP)
NO_MCP = {
    "update_doc": "agents edit notes in their own editor; MCP writes are remember, capture, update, tags and "
    "collection rename",
    **_SETUP,
}
NO_SDK = {"demo": "a tour of the CLI on sample notes; `gno.Client.open()` works on the caller's own index"}

BY_NAME = {c.name: c for c in CAPABILITIES}
BY_TOOL = {c.tool_name: c for c in CAPABILITIES if c.tool_name}


def capability(name: str) -> Capability:
    return BY_NAME[name]
