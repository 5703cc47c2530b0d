"""Every error code of the local engine, end to end, through every surface that can produce it.

`test_contract.py` drives bad *input*; this file drives bad *state*: no config, a malformed one,
an emptied one, a held write lease, a damaged full-text index, a memory folder that cannot take a
fact, a missing model or extra, vectors of another model, an expired journal cursor, a generator
the evidence may not travel to, two memory collections, a blank identity. Each case builds that
state for real (real files, a real SQLite index, real locks) and makes one call on each surface;
`drive.expect_error` checks the code, exit code / HTTP status and envelope; a refused write
leaves every file as it was (a `*_SYNC_FAILED` write keeps exactly the one file it names).
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gno.errors import ErrorCode as E

from .code_table import LOCAL
from .conftest import CALLER, SESSION, SurfaceEnv
from .drive import DRIVEN, Call, expect_error

ID = ("--caller", CALLER, "--session", SESSION)
SCOPE = "project:gno"
GENERATOR = "http://203.0.113.7/v1"  # TEST-NET-3: never this machine, never the LAN


@dataclass(frozen=True)
class Case:
    code: E
    call: Call
    setup: Callable[[SurfaceEnv], dict[str, str] | None] | None = None  # may add request fields
    hold: Callable[[SurfaceEnv], AbstractContextManager[object]] | None = None  # held during the call
    environ: dict[str, str] = field(default_factory=dict)
    keeps_file: bool = False  # the write reached the disk, the index did not: the file is kept, and named
    surfaces: tuple[str, ...] = LOCAL


# -- states -----------------------------------------------------------------------------------------


def _no_config(env: SurfaceEnv) -> None:
    env.settings.config_path.unlink()
    env.engine._config = None


def _bad_config(env: SurfaceEnv) -> None:
    env.settings.config_path.write_text('version: "1.0"\ncollections:\n  - name: Not A Name\n', encoding="utf-8")
    env.engine._config = None


def _emptied_config(env: SurfaceEnv) -> None:
    env.settings.config_path.write_text('version: "1.0"\ncollections: []\n', encoding="utf-8")
    env.engine._config = None


def _lease(env: SurfaceEnv) -> AbstractContextManager[object]:
    return env.engine.lease(0)  # another writer (this test) holds the cross-process lease


def _damaged_index(env: SurfaceEnv) -> None:
    """The full-text index loses a shadow table (disk damage, a foreign tool): FTS5 cannot open it."""
    with contextlib.closing(sqlite3.connect(env.settings.db_path)) as db:
        db.execute("DROP TABLE documents_fts_data")
        db.commit()


def _facts_is_a_file(env: SurfaceEnv) -> None:
    (env.memory / "facts").write_text("a file where the facts folder belongs\n", encoding="utf-8")


def _models(**models: str) -> Callable[[SurfaceEnv], None]:
    def setup(env: SurfaceEnv) -> None:
        env.models.update(models)
        env.write_config()

    return setup


def _stale_vectors(env: SurfaceEnv) -> None:
    _models(embed="fake:64")(env)
    assert env.engine.embed().embedded > 0
    _models(embed="fake:32")(env)


@contextlib.contextmanager
def _no_onnxruntime() -> Iterator[None]:
    """The semantic extra is absent: `import onnxruntime` fails (as in a core-only install)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "onnxruntime", None)
        yield


def _expired_cursor(env: SurfaceEnv) -> None:
    (env.notes / "third.md").write_text("# Third\n\nA third note.\n", encoding="utf-8")
    env.engine.update()
    with contextlib.closing(sqlite3.connect(env.settings.db_path)) as db:  # c1, c2 left the retention window
        db.execute("DELETE FROM document_changes WHERE id <= 2")
        db.commit()


def _edge_not_projected(env: SurfaceEnv) -> dict[str, str]:
    """The index silently drops `supersedes` edges (a trigger stands in for a damaged or foreign-edited
    index): the successor file is written and indexed, but nothing says it replaces its predecessor."""
    old = env.add_fact("Staging deploys happen on Mondays")
    with contextlib.closing(sqlite3.connect(env.settings.db_path)) as db:
        db.execute(
            "CREATE TRIGGER lose_supersedes AFTER INSERT ON doc_edges WHEN NEW.edge_type = 'supersedes' "
            "BEGIN DELETE FROM doc_edges WHERE rowid = NEW.rowid; END"
        )
        db.commit()
    return {"predecessor_uri": old.uri, "predecessor_hash": old.content_hash}


def _two_memory_collections(env: SurfaceEnv) -> None:
    second = env.tmp / "memory-two"
    second.mkdir()
    env.extra.append({"name": "memory2", "path": str(second), "pattern": "**/*.md", "memoryManaged": True})
    env.write_config()


# -- the cases ----------------------------------------------------------------------------------------

COLLECTIONS = Call("collections", {}, ("collection", "list", "--json"))
SEARCH = Call("search", {"query": "deploy"}, ("search", "--json", "--", "deploy"))
RECALL = Call(
    "recall", {"query": "deploys", "scopes": [SCOPE]}, ("recall", "--json", *ID, "-s", SCOPE, "--", "deploys")
)
CAPTURE = Call(
    "capture",
    {"content": "A new note", "collection": "notes"},
    ("capture", "--json", "-c", "notes", "--", "A new note"),
)
REMEMBER = Call(
    "remember",
    {"text": "Staging deploys happen on Mondays", "scopes": [SCOPE], "decision": "add"},
    ("remember", "--json", *ID, "-s", SCOPE, "--decision", "add", "--", "Staging deploys happen on Mondays"),
)
VSEARCH = Call("vsearch", {"query": "deploy"}, ("vsearch", "--json", "--", "deploy"))
FAST_LEASE = {"GNO_LOCK_WAIT": "0.2s"}

CASES: list[Case] = [
    Case(E.NOT_INITIALIZED, COLLECTIONS, _no_config),
    Case(E.CONFIG_INVALID, COLLECTIONS, _bad_config),
    Case(E.PRUNE_REQUIRED, Call("update", {}, ("update", "--json")), _emptied_config),
    Case(E.LOCKED, CAPTURE, hold=_lease, environ=FAST_LEASE),
    Case(E.MEMORY_WRITE_LEASE_BUSY, REMEMBER, hold=_lease, environ=FAST_LEASE),
    Case(E.RUNTIME, SEARCH, _damaged_index),
    Case(E.MEMORY_QUERY_FAILED, RECALL, _damaged_index),
    Case(E.CAPTURE_SYNC_FAILED, CAPTURE, _damaged_index, keeps_file=True),
    Case(E.MEMORY_SYNC_FAILED, REMEMBER, _facts_is_a_file),
    Case(E.EXTRA_MISSING, VSEARCH, _models(embed="minilm"), hold=lambda env: _no_onnxruntime()),
    Case(E.VECTORS_UNAVAILABLE, VSEARCH, _models(embed="no-such-model")),
    Case(E.VECTORS_STALE, VSEARCH, _stale_vectors),
    Case(E.CURSOR_EXPIRED, Call("changes", {"since": "c1"}, ("changes", "--json", "--since", "c1")), _expired_cursor),
    Case(
        E.EGRESS_DENIED,
        Call("ask", {"question": "When do we deploy?"}, ("ask", "--json", "--", "When do we deploy?")),
        _models(gen=GENERATOR),
    ),
    Case(
        E.MEMORY_SUPERSEDE_PROJECTION_FAILED,
        Call(
            "remember",
            {"text": "Staging deploys happen on Fridays", "scopes": [SCOPE], "decision": "supersede"},
            (
                *("remember", "--json", *ID, "-s", SCOPE, "--decision", "supersede"),
                *("--predecessor", "{predecessor_uri}", "--predecessor-hash", "{predecessor_hash}"),
                *("--", "Staging deploys happen on Fridays"),
            ),
        ),
        _edge_not_projected,
        keeps_file=True,
    ),
    Case(E.MEMORY_COLLECTION_REQUIRED, RECALL, _two_memory_collections),
    Case(
        E.MEMORY_IDENTITY_REQUIRED,
        Call(
            "recall",
            {"query": "deploys", "scopes": [SCOPE], "caller": "  "},
            ("recall", "--json", "--caller", "  ", "--session", SESSION, "-s", SCOPE, "--", "deploys"),
        ),
        surfaces=("cli", "rest", "sdk_local", "sdk_remote"),
    ),
]
DRIVEN.update((c.code, s) for c in CASES for s in c.surfaces)


def _params() -> list[object]:
    return [pytest.param(c, s, id=f"{c.code}-{s}") for c in CASES for s in c.surfaces]


@pytest.mark.parametrize(("case", "surface"), _params())
def test_state_error_contract(
    case: Case, surface: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in case.environ.items():  # before the home is built: its settings read them
        monkeypatch.setenv(key, value)
    env: SurfaceEnv = request.getfixturevalue("env")
    extra = (case.setup(env) if case.setup is not None else None) or {}
    call = Call(case.call.capability, {**case.call.args, **extra}, tuple(w.format(**extra) for w in case.call.cli))
    before = env.files()
    with case.hold(env) if case.hold is not None else contextlib.nullcontext():
        body = expect_error(surface, call, case.code, request)
    after = env.files()
    if case.keeps_file:
        new = set(after) - set(before)
        assert len(new) == 1 and {k: after[k] for k in before} == before, sorted(new)
        assert Path(body["error"]["details"]["absPath"]) == env.tmp / new.pop()
    else:
        assert after == before
