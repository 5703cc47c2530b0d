"""`gno agents install|update|verify|uninstall`: put the protocol block into instruction files.

These files belong to the user; gno only rents the lines between its markers. So every
operation is planned for all targets first and only then applied: a malformed block in any one
file fails the whole command before a byte is written (fail closed), and `--dry-run` is the
plan without the apply. Writes are atomic (temp file, fsync, rename) and go to a symlink's
target, never replacing the link. Before the first change to an existing file one backup
`<file>.gno-agents.bak.<timestamp>` is made beside it; later changes keep that first backup as
the user's original rather than piling up copies of gno's own edits.

Results are pydantic models (`AgentsResult`) so `--json` prints the same shape as every other
gno command.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from gno.agents.block import VERSION, block_state, body_hash, insert_block, remove_block, render_block
from gno.agents.targets import RUNTIME_ADAPTERS, Target, resolve_agent_targets
from gno.errors import ErrorCode, RuntimeFailure, ValidationError
from gno.fsio import atomic_write_bytes, exclusive_create
from gno.models import GnoModel

Operation = Literal["install", "update", "verify", "uninstall"]
BACKUP_TAG = ".gno-agents.bak."


class AgentFileResult(GnoModel):
    """One instruction file: what was (or, with --dry-run, would be) done to it."""

    target: str
    path: str
    write_path: str
    action: str  # created | updated | unchanged | removed | absent | skipped | checked
    state: str | None = None  # verify: current | missing | outdated | malformed | unreadable
    detail: str | None = None
    backup: str | None = None
    #: the harness's runtime memory adapter, when gno ships one (install and update only)
    adapter: str | None = None


class AgentsResult(GnoModel):
    operation: str
    dry_run: bool
    version: int
    block_hash: str
    block_chars: int
    changed: int
    ok: bool
    files: list[AgentFileResult]

    @property
    def exit_code(self) -> int:
        """verify: 0 all current, 2 any file unreadable, 1 otherwise; other operations: 0."""
        if self.operation != "verify":
            return 0
        states = {f.state for f in self.files}
        if "unreadable" in states:
            return 2
        return 0 if states <= {"current"} else 1


@dataclass
class _Plan:
    target: Target
    real: Path
    old: str | None  # None: the file does not exist
    new: str | None  # None: leave the file as is
    action: str
    detail: str | None = None
    state: str | None = None


def _real_path(path: Path) -> Path:
    """The file a write must land in: the final target of a symlink chain (it may not exist)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise RuntimeFailure(
            f"cannot read {path}: {exc}; gno edits only readable UTF-8 instruction files",
            code=ErrorCode.RUNTIME,
            details={"file": str(path)},
        ) from exc


def _plan(op: Operation, t: Target) -> _Plan:
    real = _real_path(t.file)
    if op == "verify":
        try:
            content = _read(real)
        except RuntimeFailure as err:
            return _Plan(t, real, None, None, "checked", err.message, "unreadable")
        if content is None:
            return _Plan(t, real, None, None, "checked", "file does not exist", "missing")
        try:
            state, detail = block_state(content, t.file)
        except ValidationError as err:
            return _Plan(t, real, content, None, "checked", err.message, "malformed")
        return _Plan(t, real, content, None, "checked", detail, state)
    content = _read(real)
    if op == "install":
        new = insert_block(content or "", t.file)
        if content is None:
            return _Plan(t, real, None, new, "created")
        return _Plan(t, real, content, new, "unchanged" if new == content else "updated")
    if op == "update":
        if content is None or block_state(content, t.file)[0] == "missing":
            return _Plan(t, real, content, None, "skipped", "no gno block here; run `gno agents install`")
        new = insert_block(content, t.file)
        return _Plan(t, real, content, None if new == content else new, "unchanged" if new == content else "updated")
    if content is None:
        return _Plan(t, real, None, None, "absent", "file does not exist")
    removed = remove_block(content, t.file)
    if removed is None:
        return _Plan(t, real, content, None, "absent", "no gno block")
    return _Plan(t, real, content, removed, "removed")


def _backup(real: Path, old: str) -> Path | None:
    """Copy the original once, before gno's first change to it (later runs keep that copy)."""
    if any(real.parent.glob(real.name + BACKUP_TAG + "*")):
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    for n in range(100):
        dst = real.with_name(f"{real.name}{BACKUP_TAG}{stamp}" + (f".{n}" if n else ""))
        try:
            exclusive_create(dst, old.encode("utf-8"))
        except FileExistsError:
            continue
        return dst
    raise RuntimeFailure(f"cannot create a backup of {real}", details={"file": str(real)})


def _apply(p: _Plan) -> str | None:
    """Write one planned change; returns the backup path when one was made."""
    assert p.new is not None
    backup = None
    try:
        mode = stat.S_IMODE(p.real.stat().st_mode) if p.old is not None else 0o644
        created_by_gno = not any(p.real.parent.glob(p.real.name + BACKUP_TAG + "*"))
        if p.action == "removed" and p.new == "" and created_by_gno and not p.target.file.is_symlink():
            p.real.unlink()  # gno created this file (no backup of an original exists): take it away
            p.detail = "the file held only the gno block; removed it"
            return None
        if p.old is not None:
            made = _backup(p.real, p.old)
            backup = str(made) if made else None
        atomic_write_bytes(p.real, p.new.encode("utf-8"))
        os.chmod(p.real, mode)
    except OSError as exc:
        raise RuntimeFailure(f"cannot write {p.real}: {exc}", details={"file": str(p.real)}) from exc
    return backup


def run_agents(
    op: Operation,
    *,
    targets: Sequence[str],
    extra_dirs: Sequence[str | Path],
    env: Mapping[str, str],
    dry_run: bool = False,
) -> AgentsResult:
    """Plan `op` for every target, then (unless `dry_run` or verify) apply the changes."""
    plans = [_plan(op, t) for t in resolve_agent_targets(targets, extra_dirs, env)]
    files: list[AgentFileResult] = []
    changed = 0
    for p in plans:
        backup = None
        if p.new is not None and p.new != p.old:
            changed += 1
            if not dry_run:
                backup = _apply(p)
        files.append(
            AgentFileResult(
                target=p.target.name,
                path=str(p.target.file),
                write_path=str(p.real),
                action=p.action,
                state=p.state,
                detail=p.detail,
                backup=backup,
                adapter=RUNTIME_ADAPTERS.get(p.target.name) if op in ("install", "update") else None,
            )
        )
    result = AgentsResult(
        operation=op,
        dry_run=dry_run,
        version=VERSION,
        block_hash=body_hash(),
        block_chars=len(render_block()),
        changed=changed,
        ok=True,
        files=files,
    )
    result.ok = result.exit_code == 0
    return result
