"""Tenants (accounts) → projects → workspaces, access keys, account states.

Why it looks like this:

* An access key belongs to one project; every operation runs as that project (`Principal`) and
  every query in `record_sql.py` is filtered by its `project_id`, which is the whole isolation story.
  Keys are shown once and stored as sha256: a leaked database does not leak usable keys.
* Workspace names live in the tenant's namespace, so a name used by one project answers
  `403 Forbidden: workspace access denied for project` to the tenant's other projects. The name
  `default` is the exception: every project has its own (namespace `<project_id>/default`), so a
  fresh key works without choosing a name. A workspace is created on first write; a deleted name
  stays reserved (`workspace '…' was deleted and cannot be reused`).
* Account state: `active`; `read_only` (grace period: reads work, writes get a `[MMW Notice]`);
  `suspended` (every call gets a `[MMW Notice]`).
* An account is named by its name, or by its id only when the caller says so (`tenant_id=`,
  `--tenant-id`): a lookup of "name or id" would let `--tenant t-7ae5293c` put a key inside an
  existing account whose id leaked. So a name may not look like an id.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from dataclasses import dataclass
from typing import Literal

from gno.errors import ErrorCode, NotFoundError, ValidationError
from gno.service import error_texts as E
from gno.service.backend import Backend, Tx, utcnow
from gno.service.error_texts import refuse
from gno.service.models import KeyInfo, KeyList, NewKey, TenantInfo, WorkspaceInfo

AccountState = Literal["active", "read_only", "suspended"]
STATES: tuple[AccountState, ...] = ("active", "read_only", "suspended")
KEY_PREFIX = "mmw_"
DEFAULT_TENANT = "default"
DEFAULT_WORKSPACE = "default"
MAX_NAME = 128
TENANT_ID_RE = re.compile(r"t-[0-9a-f]{8}")


@dataclass(frozen=True)
class Principal:
    """Who is calling: the key, its project and tenant, the tenant's state at call time."""

    key_id: str
    project_id: str
    project: str
    tenant_id: str
    tenant: str
    state: AccountState


@dataclass(frozen=True)
class Workspace:
    id: str
    name: str
    project_id: str


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def namespace(project_id: str, name: str) -> str:
    return f"{project_id}/{DEFAULT_WORKSPACE}" if name == DEFAULT_WORKSPACE else name


def _check_name(kind: str, name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise ValidationError(f"{kind} name must be 1-{MAX_NAME} characters")
    return name


def _tenant(
    tx: Tx, name: str | None, *, create: bool, tenant_id: str | None = None
) -> tuple[str, str, AccountState]:
    """The account named `name`, or the one whose id is `tenant_id` (never both lookups at once)."""
    if tenant_id is not None:
        rows = tx.execute("SELECT id, name, state FROM tenants WHERE id = ?", (tenant_id.strip(),))
        if not rows:
            raise NotFoundError(f"unknown tenant id {tenant_id!r}")
        if name is not None and str(rows[0][1]) != name:
            raise ValidationError(f"tenant id {tenant_id!r} is account {rows[0][1]!r}, not {name!r}")
        return str(rows[0][0]), str(rows[0][1]), rows[0][2]
    ref = _check_name("tenant", name or DEFAULT_TENANT)
    if TENANT_ID_RE.fullmatch(ref):
        raise ValidationError(f"{ref!r} is a tenant id, not a name: pass it as --tenant-id (tenant_id=)")
    rows = tx.execute("SELECT id, name, state FROM tenants WHERE name = ?", (ref,))
    if rows:
        return str(rows[0][0]), str(rows[0][1]), rows[0][2]
    if not create:
        raise NotFoundError(f"unknown tenant {ref!r}")
    tid = f"t-{secrets.token_hex(4)}"
    tx.execute("INSERT INTO tenants (id, name, state, created_at) VALUES (?, ?, 'active', ?)", (tid, ref, utcnow()))
    return tid, ref, "active"


def _project(tx: Tx, tenant_id: str, name: str, *, create: bool) -> str:
    rows = tx.execute("SELECT id FROM projects WHERE tenant_id = ? AND name = ?", (tenant_id, name))
    if rows:
        return str(rows[0][0])
    if not create:
        raise NotFoundError(f"unknown project {name!r}")
    pid = str(uuid.uuid4())
    tx.execute(
        "INSERT INTO projects (id, tenant_id, name, created_at) VALUES (?, ?, ?, ?)", (pid, tenant_id, name, utcnow())
    )
    return pid


_KEY_SQL = (
    "SELECT k.id, k.prefix, t.name, t.id, p.name, p.id, k.created_at, k.revoked_at FROM access_keys k "
    "JOIN projects p ON p.id = k.project_id JOIN tenants t ON t.id = p.tenant_id"
)


def _key_info(row: tuple[object, ...]) -> KeyInfo:
    keys = ("key_id", "prefix", "tenant", "tenant_id", "project", "project_id", "created_at", "revoked_at")
    return KeyInfo.model_validate(dict(zip(keys, row, strict=True)))


def create_key(
    backend: Backend, project: str, tenant: str | None = DEFAULT_TENANT, *, tenant_id: str | None = None
) -> NewKey:
    """Create an access key for `project` (created with its tenant if new); the key is returned once.

    With `tenant_id` the account must exist: an id never creates one."""
    project = _check_name("project", project)
    raw = KEY_PREFIX + secrets.token_urlsafe(32)
    key_id = f"key_{secrets.token_hex(6)}"
    with backend.write() as tx:
        tid, _, _ = _tenant(tx, tenant, create=True, tenant_id=tenant_id)
        pid = _project(tx, tid, project, create=True)
        tx.execute(
            "INSERT INTO access_keys (id, project_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)",
            (key_id, pid, hash_key(raw), raw[: len(KEY_PREFIX) + 6], utcnow()),
        )
        info = _key_info(tx.execute(_KEY_SQL + " WHERE k.id = ?", (key_id,))[0])
    return NewKey(key=raw, **info.model_dump())


def revoke_key(backend: Backend, ref: str) -> KeyInfo:
    """Revoke by key id (`key_…`) or by the key itself; revoking twice keeps the first time."""
    column, value = ("k.id", ref) if ref.startswith("key_") else ("k.key_hash", hash_key(ref))
    with backend.write() as tx:
        rows = tx.execute(_KEY_SQL + f" WHERE {column} = ?", (value,))
        if not rows:
            raise NotFoundError("unknown access key")
        tx.execute("UPDATE access_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (utcnow(), rows[0][0]))
        return _key_info(tx.execute(_KEY_SQL + " WHERE k.id = ?", (rows[0][0],))[0])


def list_keys(backend: Backend) -> KeyList:
    with backend.read() as tx:
        return KeyList(keys=[_key_info(r) for r in tx.execute(_KEY_SQL + " ORDER BY k.created_at, k.id")])


def set_account_state(
    backend: Backend, tenant: str | None, state: str, *, tenant_id: str | None = None
) -> TenantInfo:
    if state not in STATES:
        raise ValidationError(f"account state must be one of {', '.join(STATES)}")
    with backend.write() as tx:
        tid, name, _ = _tenant(tx, tenant, create=False, tenant_id=tenant_id)
        tx.execute("UPDATE tenants SET state = ? WHERE id = ?", (state, tid))
    return TenantInfo(tenant=name, tenant_id=tid, state=state)


def authenticate(backend: Backend, raw: str | None) -> Principal:
    """The principal of a bearer key; unknown, revoked or missing keys are all the same 401."""
    if not raw or not raw.startswith(KEY_PREFIX):
        raise refuse(ErrorCode.UNAUTHORIZED, E.UNAUTHORIZED)
    with backend.read() as tx:
        rows = tx.execute(
            "SELECT k.id, p.id, p.name, t.id, t.name, t.state FROM access_keys k "
            "JOIN projects p ON p.id = k.project_id JOIN tenants t ON t.id = p.tenant_id "
            "WHERE k.key_hash = ? AND k.revoked_at IS NULL",
            (hash_key(raw),),
        )
    if not rows:
        raise refuse(ErrorCode.UNAUTHORIZED, E.UNAUTHORIZED)
    kid, pid, pname, tid, tname, state = rows[0]
    return Principal(str(kid), str(pid), str(pname), str(tid), str(tname), state)


def require_readable(p: Principal) -> None:
    if p.state == "suspended":
        raise refuse(ErrorCode.ACCOUNT_SUSPENDED, E.NOTICE_SUSPENDED)


def require_writable(p: Principal) -> None:
    require_readable(p)
    if p.state == "read_only":
        raise refuse(ErrorCode.ACCOUNT_READ_ONLY, E.NOTICE_READ_ONLY)


def find_workspace(tx: Tx, p: Principal, name: str) -> Workspace | None:
    """The workspace `name` as seen by `p`: None if unused, else deleted → 410, foreign → 403."""
    rows = tx.execute(
        "SELECT id, project_id, deleted_at FROM workspaces WHERE tenant_id = ? AND namespace = ?",
        (p.tenant_id, namespace(p.project_id, name)),
    )
    if not rows:
        return None
    wid, pid, deleted_at = rows[0]
    if deleted_at is not None:
        raise refuse(ErrorCode.WORKSPACE_DELETED, E.workspace_deleted(name))
    if pid != p.project_id:
        raise refuse(ErrorCode.WORKSPACE_FORBIDDEN, E.WORKSPACE_FORBIDDEN)
    return Workspace(str(wid), name, str(pid))


def ensure_workspace(tx: Tx, p: Principal, name: str) -> Workspace:
    """Find the workspace or create it in the key's project (first use)."""
    ws = find_workspace(tx, p, name)
    if ws is not None:
        return ws
    wid = str(uuid.uuid4())
    tx.execute(
        "INSERT INTO workspaces (id, tenant_id, project_id, name, namespace, created_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (tenant_id, namespace) DO NOTHING",
        (wid, p.tenant_id, p.project_id, name, namespace(p.project_id, name), utcnow()),
    )
    ws = find_workspace(tx, p, name)
    assert ws is not None  # inserted now or by a concurrent writer a moment ago
    return ws


def delete_workspace(
    backend: Backend, name: str, project: str, tenant: str | None = DEFAULT_TENANT, *, tenant_id: str | None = None
) -> WorkspaceInfo:
    """Delete a workspace: its records are forgotten (journaled) and its name is never reused."""
    from gno.service import record_sql

    with backend.write() as tx:
        tid, _, _ = _tenant(tx, tenant, create=False, tenant_id=tenant_id)
        pid = _project(tx, tid, project, create=False)
        tx.lock(f"project:{pid}")
        rows = tx.execute(
            "SELECT id, deleted_at FROM workspaces WHERE tenant_id = ? AND namespace = ? AND project_id = ?",
            (tid, namespace(pid, name), pid),
        )
        if not rows:
            raise NotFoundError(f"project {project!r} has no workspace {name!r}")
        wid, deleted_at = str(rows[0][0]), rows[0][1]
        count = 0
        if deleted_at is None:
            deleted_at = utcnow()
            seqs = [
                int(r[0])
                for r in tx.execute("SELECT seq FROM memories WHERE workspace_id = ? AND forgotten_at IS NULL", (wid,))
            ]
            count = record_sql.forget_rows(tx, seqs, key_id=None, reason="workspace_deleted", when=deleted_at)
            tx.execute("UPDATE workspaces SET deleted_at = ? WHERE id = ?", (deleted_at, wid))
    return WorkspaceInfo(
        workspace=name, workspace_id=wid, project=project, project_id=pid, deleted_at=str(deleted_at), forgotten=count
    )
