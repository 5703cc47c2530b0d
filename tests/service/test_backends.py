"""The dialect-specific parts of both backends behave alike: full text, vectors, migrations."""

from __future__ import annotations

import numpy as np

from gno.service.backend import Filter, for_dialect, migration_files
from gno.service.backend_postgres import tsquery

from .conftest import Http, Team


def _ids(team: Team, pairs: list[tuple[int, float]]) -> list[str]:
    with team.runtime.db.backend.read() as tx:
        by_seq = {int(s): str(i) for s, i in tx.execute("SELECT seq, id FROM memories")}
    return [by_seq[s] for s, _ in pairs]


def _filter(team: Team, workspace: str = "default", scope: str | None = None) -> Filter:
    p = team.who("alpha")
    with team.runtime.db.backend.read() as tx:
        wid = tx.execute("SELECT id FROM workspaces WHERE project_id = ? AND name = ?", (p.project_id, workspace))
    return Filter(p.project_id, str(wid[0][0]), scope)


def test_nearest_follows_appends_forgets_and_scope(http: Http, team: Team) -> None:
    emb = team.svc.embedder
    fp = team.svc.fingerprint
    a = http.call("remember", {"content": "alpha beta gamma"})[1]["id"]
    filt = _filter(team)
    q = emb.embed_query("alpha beta gamma")
    with team.runtime.db.backend.read() as tx:
        first = tx.nearest(q, filt, 5, fp)
    assert _ids(team, first) == [a]
    b = http.call("remember", {"content": "alpha beta gamma delta", "scope": "private"})[1]["id"]
    with team.runtime.db.backend.read() as tx:
        got = tx.nearest(q, filt, 5, fp)
        private = tx.nearest(q, Filter(filt.project_id, filt.workspace_id, "private"), 5, fp)
        other_model = tx.nearest(q, filt, 5, "another-model")
    assert _ids(team, got) == [a, b] and got[0][1] > got[1][1] and abs(got[0][1] - 1.0) < 1e-4
    assert _ids(team, private) == [b] and other_model == []
    http.call("forget", {"memory_id": a})
    with team.runtime.db.backend.read() as tx:
        after = tx.nearest(q, filt, 5, fp)
        stored = tx.execute("SELECT embedding FROM memories WHERE id = ?", (b,))[0][0]
        vec = tx.decode_vector(stored)
    assert _ids(team, after) == [b]
    assert vec is not None and np.allclose(vec, emb.embed_documents(["alpha beta gamma delta"])[0], atol=1e-5)


def test_lexical_stems_ranks_and_filters(http: Http, team: Team) -> None:
    run = http.call("remember", {"content": "the nightly job is running late"})[1]["id"]
    http.call("remember", {"content": "lunch is at noon"})
    http.call("remember", {"content": "running running running job", "scope": "private"})
    filt = _filter(team)
    with team.runtime.db.backend.read() as tx:
        hits = tx.lexical("run", Filter(filt.project_id, filt.workspace_id, "shared"), 10)
        assert len(tx.lexical("running -lunch", filt, 10)) == 2
        assert tx.lexical("???", filt, 10) == []
        assert tx.lexical('AND OR NOT "unbalanced', filt, 10) == []
    assert _ids(team, hits) == [run]


def test_tsquery_is_safe() -> None:
    assert tsquery("gpt-4 C++ -legacy") == "('gpt':* | '4':* | 'c':*) & !'legacy'"
    assert tsquery("'; DROP TABLE x; --") == "('drop':* | 'table':* | 'x':*)"
    assert tsquery("-only") is None and tsquery("  ") is None


def test_one_schema_source_gives_each_dialect_its_lines() -> None:
    script = "--postgres: CREATE EXTENSION v;\nCREATE TABLE t (\n--sqlite:   a BLOB\n--postgres:   a vector\n);\n"
    script += "--sqlite:"
    assert for_dialect(script, "postgres") == "CREATE EXTENSION v;\nCREATE TABLE t (\n  a vector\n);"
    assert for_dialect(script, "sqlite") == "CREATE TABLE t (\n  a BLOB\n);\n"
    assert for_dialect("--sqlite:x\n-- sqlite: y", "postgres") == "--sqlite:x\n-- sqlite: y"  # not marks
    for dialect in ("sqlite", "postgres"):
        lines = "\n".join(m.sql for m in migration_files(dialect)).split("\n")
        assert not [line for line in lines if line.startswith(("--sqlite:", "--postgres:"))]
    sqlite, postgres = migration_files("sqlite")[0].sql, migration_files("postgres")[0].sql
    assert "USING fts5" in sqlite and "USING fts5" not in postgres
    assert "tsv tsvector" in postgres and "tsv tsvector" not in sqlite
