"""A retry-safe write survives `kill -9` of its writer at every step, and a retry writes nothing twice.

Each case runs the write in a real child process (`python -c`, the SDK in-process on the test's
gno home) that SIGKILLs itself at one step of the protocol: right after the plan is recorded,
after the file is written, after it is indexed, just before the outcome is committed, and just
after. The step is reached through the real functions (the child wraps them; nothing in gno
knows about the test). The test then retries the same request in-process and checks: exactly one
file for the request, the ledger committed, the retry's result naming that file, and a third call
replaying it. A retry of the same request under another ID would write a second note: the
uncrashed control at the end shows the ledger is what prevents it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from typing import Any

import pytest

import gno

from .conftest import CALLER, SCOPE, SESSION, SurfaceEnv

CHILD = textwrap.dedent(
    """
    import json, os, signal, sys
    import gno
    from gno.store import requests as rq
    import gno.writes.capture, gno.writes.edit, gno.memory.remember, gno.engine

    stage, call = sys.argv[1], json.loads(sys.argv[2])

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    def after(owner, name, when=lambda *a, **k: True):
        real = getattr(owner, name)
        def wrapped(*a, **k):
            out = real(*a, **k)
            if when(*a, **k):
                die()
            return out
        setattr(owner, name, wrapped)

    def before(owner, name):
        real = getattr(owner, name)
        def wrapped(*a, **k):
            die()
            return real(*a, **k)
        setattr(owner, name, wrapped)

    if stage == "planned":
        after(rq.LedgerDb, "put_pending", lambda self, rid, op, intent, plan, at: plan is not None)
    elif stage == "written":
        for mod in (gno.writes.capture, gno.memory.remember):
            after(mod, "exclusive_create")
        after(gno.writes.edit, "atomic_write_bytes")
    elif stage == "indexed":
        after(gno.engine.Engine, "sync_paths")
    elif stage == "before_commit":
        before(rq.LedgerDb, "commit")
    elif stage == "committed":
        after(rq.LedgerDb, "commit")
    client = gno.Client.open(caller=call.pop("caller"), session=call.pop("session"))
    client.call(call.pop("capability"), **call)
    sys.exit(3)  # the stage was never reached
    """
)

STAGES = ("planned", "written", "indexed", "before_commit", "committed")


def _crash(env: SurfaceEnv, stage: str, capability: str, fields: dict[str, Any]) -> None:
    call = {"capability": capability, "caller": CALLER, "session": SESSION, **fields}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, stage, json.dumps(call)],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stderr[-2000:])


def _retry(env: SurfaceEnv, capability: str, fields: dict[str, Any]) -> Any:
    with gno.Client.open(caller="another-caller", session="another-session") as client:
        return client.call(capability, **fields)


@pytest.mark.parametrize("stage", STAGES)
def test_a_capture_killed_at_any_step_is_written_once(env: SurfaceEnv, stage: str) -> None:
    fields = {"content": f"Crash-safe capture at {stage}", "collection": "notes", "request_id": f"cap-{stage}"}
    before = set(env.files())
    _crash(env, stage, "capture", fields)
    first = _retry(env, "capture", fields)
    new = set(env.files()) - before
    assert len(new) == 1, sorted(new)
    assert first.uri == f"gno://notes/{first.rel_path}" and new == {f"notes-src/{first.rel_path}"}
    assert first.request.request_id == f"cap-{stage}"
    assert first.request.replayed is (stage != "planned")  # planned: the file never existed, this call wrote it
    again = _retry(env, "capture", fields)
    assert again.request.replayed is True and again.uri == first.uri
    assert set(env.files()) - before == new
    assert env.engine.request_status(f"cap-{stage}").status == "committed"
    assert env.engine.get(first.uri).content.rstrip().endswith(f"Crash-safe capture at {stage}")


@pytest.mark.parametrize("stage", STAGES)
def test_a_remember_killed_at_any_step_adds_one_fact(env: SurfaceEnv, stage: str) -> None:
    fields = {"text": f"Deploy windows close at {stage}", "scopes": [SCOPE], "decision": "add"}
    fields["request_id"] = f"mem-{stage}"
    _crash(env, stage, "remember", fields)
    first = _retry(env, "remember", fields)
    assert len(env.fact_files()) == 1
    assert first.outcome == "added" and first.request.replayed is (stage != "planned")
    again = _retry(env, "remember", fields)
    assert again.record.uri == first.record.uri and again.request.replayed is True
    assert len(env.fact_files()) == 1


@pytest.mark.parametrize("stage", ("written", "before_commit"))
def test_a_supersede_killed_mid_write_supersedes_once(env: SurfaceEnv, stage: str) -> None:
    old = env.add_fact("Staging deploys happen on Mondays")
    fields = {
        "text": "Staging deploys happen on Fridays",
        "scopes": [SCOPE],
        "decision": "supersede",
        "predecessor_uri": old.uri,
        "predecessor_hash": old.content_hash,
        "request_id": f"sup-{stage}",
    }
    _crash(env, stage, "remember", fields)
    first = _retry(env, "remember", fields)  # not MEMORY_SUPERSEDE_CONFLICT: the request already did it
    assert first.outcome == "superseded" and first.request.replayed is True
    assert len(env.fact_files()) == 2
    assert [f.uri for f in env.recall("staging deploys").facts] == [first.record.uri]


@pytest.mark.parametrize("stage", ("planned", "written", "indexed"))
def test_an_edit_killed_mid_write_is_applied_once(env: SurfaceEnv, stage: str) -> None:
    doc = env.engine.get("notes/deploy.md")
    fields = {
        "ref": doc.docid,
        "content": "# Deploys\n\nWe deploy on Thursdays.\n",
        "expected_source_hash": doc.source_hash,
        "request_id": f"edit-{stage}",
    }
    _crash(env, stage, "update_doc", fields)
    first = _retry(env, "update_doc", fields)  # not CONFLICT: the file holds this request's bytes
    assert first.previous_source_hash == doc.source_hash
    assert (env.notes / "deploy.md").read_text(encoding="utf-8") == fields["content"]
    assert first.request.replayed is (stage != "planned")


def test_without_a_request_id_the_same_retry_writes_twice(env: SurfaceEnv) -> None:
    """The control: what the ledger prevents (a retried capture without an ID makes a second note)."""
    fields = {"content": "A capture retried without an ID", "collection": "notes"}
    fields["collision_policy"] = "create_with_suffix"
    before = set(env.files())
    _crash(env, "indexed", "capture", fields)
    _retry(env, "capture", fields)
    assert len(set(env.files()) - before) == 2
