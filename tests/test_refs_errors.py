"""Refs (`#docid`, `gno://…`, `coll/path:line`), get/multi-get/ls, the error table, config errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gno.cli.main import cli
from gno.config import Settings, load_config
from gno.engine import Engine
from gno.errors import (
    ERROR_TABLE,
    AuthError,
    BusyError,
    ConflictError,
    ErrorCode,
    GnoError,
    NotFoundError,
    RuntimeFailure,
    ValidationError,
    error_class_for,
    from_body,
    make_error,
)
from gno.refs import Ref, docid_for, make_uri, parse_ref, parse_uri

# -- parse_ref --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("#f11f25ef", Ref(docid="#f11f25ef")),
        ("#F11F25EF", Ref(docid="#f11f25ef")),
        ("  #abcdef  ", Ref(docid="#abcdef")),
        ("gno://notes/deploy.md", Ref(collection="notes", rel_path="deploy.md")),
        ("gno://notes/deploy.md:7", Ref(collection="notes", rel_path="deploy.md", line=7)),
        (
            "gno://Notes/projects/runbook.md:12",
            Ref(collection="notes", rel_path="projects/runbook.md", line=12),
        ),
        ("notes/deploy.md", Ref(collection="notes", rel_path="deploy.md")),
        ("notes/deploy.md:15", Ref(collection="notes", rel_path="deploy.md", line=15)),
        ("NOTES/projects/runbook.md", Ref(collection="notes", rel_path="projects/runbook.md")),
        ("gno://notes/my%20notes/a%20b%23c.md", Ref(collection="notes", rel_path="my notes/a b#c.md")),
        ("gno://notes/deploy.md?x=1", Ref(collection="notes", rel_path="deploy.md")),
        ("notes/ratio:2.md", Ref(collection="notes", rel_path="ratio:2.md")),
    ],
)
def test_parse_ref(ref: str, expected: Ref) -> None:
    assert parse_ref(ref) == expected


@pytest.mark.parametrize(
    "ref",
    [
        "",
        "   ",
        "#abc",
        "#xyzxyzxy",
        "#",
        "deploy.md",
        "notes/",
        "gno://",
        "gno:///deploy.md",
        "notes/x.md:0",
        "gno://notes/",
    ],
)
def test_parse_ref_rejects(ref: str) -> None:
    with pytest.raises(ValidationError) as ei:
        parse_ref(ref)
    assert ei.value.code == ErrorCode.INVALID_REF
    assert ei.value.exit_code == 1


def test_docid_for() -> None:
    assert docid_for("f11f25ef0123456789") == "#f11f25ef"


@pytest.mark.parametrize(
    ("rel", "uri"),
    [
        ("deploy.md", "gno://notes/deploy.md"),
        ("my notes/a b.md", "gno://notes/my%20notes/a%20b.md"),
        ("q?.md", "gno://notes/q%3F.md"),
        ("hash#tag.md", "gno://notes/hash%23tag.md"),
        ("100%.md", "gno://notes/100%25.md"),
        ("café/naïve.md", "gno://notes/café/naïve.md"),
        ("a+b (c)&d.md", "gno://notes/a+b%20(c)&d.md"),
        ("tab\tname.md", "gno://notes/tab%09name.md"),
    ],
)
def test_make_uri_and_round_trip(rel: str, uri: str) -> None:
    assert make_uri("notes", rel) == uri
    assert parse_uri(uri) == ("notes", rel)
    r = parse_ref(uri)
    assert (r.collection, r.rel_path, r.line) == ("notes", rel, None)
    r = parse_ref(uri + ":3")
    assert (r.collection, r.rel_path, r.line) == ("notes", rel, 3)


def test_parse_uri_rejects_other_schemes() -> None:
    for bad in ("http://notes/x.md", "notes/x.md", "gno://"):
        with pytest.raises(ValidationError) as ei:
            parse_uri(bad)
        assert ei.value.code == ErrorCode.INVALID_REF
    assert parse_uri("gno://notes") == ("notes", "")


# -- refs against a real index ----------------------------------------------------------------


@pytest.fixture
def odd(engine: Engine, corpus: Path) -> Engine:
    """The fixture engine plus files whose names need URI encoding."""
    (corpus / "my notes").mkdir()
    (corpus / "my notes" / "a b#c?.md").write_text("# Odd name\n\nline two\nmarmot three\n", encoding="utf-8")
    (corpus / "my notes" / "café.md").write_text("# Accent\n\nnarwhal\n", encoding="utf-8")
    engine.update()
    return engine


def test_refs_resolve_to_the_same_document(odd: Engine) -> None:
    hit = odd.search("marmot").results[0]
    assert hit.uri == "gno://notes/my%20notes/a%20b%23c%3F.md"
    assert hit.rel_path == "my notes/a b#c?.md"
    for ref in (
        hit.docid,
        hit.docid.upper(),
        hit.uri,
        "notes/my notes/a b#c?.md",
        "gno://notes/my notes/a b%23c%3F.md",
    ):
        d = odd.get(ref)
        assert (d.docid, d.uri, d.rel_path) == (hit.docid, hit.uri, hit.rel_path), ref
    assert odd.get(f"{hit.uri}:{hit.line}").content == "marmot three"
    accent = odd.search("narwhal").results[0]
    assert accent.uri == "gno://notes/my%20notes/café.md"
    assert odd.get("gno://notes/my%20notes/caf%C3%A9.md").docid == accent.docid
    assert odd.get(accent.uri).docid == accent.docid


def test_docid_prefix_longer_than_eight(engine: Engine, corpus: Path) -> None:
    import hashlib

    full = hashlib.sha256((corpus / "deploy.md").read_bytes()).hexdigest()
    assert engine.get("#" + full[:12]).uri == "gno://notes/deploy.md"
    assert engine.get("#" + full).uri == "gno://notes/deploy.md"
    assert engine.get("#" + full[:6]).uri == "gno://notes/deploy.md"
    with pytest.raises(NotFoundError):
        engine.get("#" + full[:8] + "0000")  # a different hash with the same short docid


def test_get_line_windows(engine: Engine, corpus: Path) -> None:
    lines = (corpus / "deploy.md").read_text(encoding="utf-8").split("\n")[:-1]
    d = engine.get("notes/deploy.md")
    assert (d.total_lines, d.returned_lines.start, d.returned_lines.end) == (15, 1, 15)
    assert d.content == "\n".join(lines)
    d = engine.get("notes/deploy.md", from_line=7, line_count=3)
    assert d.content == "\n".join(lines[6:9])
    assert (d.returned_lines.start, d.returned_lines.end) == (7, 9)
    d = engine.get("gno://notes/deploy.md:9")
    assert d.content == "\n".join(lines[8:])
    assert (d.returned_lines.start, d.returned_lines.end) == (9, 15)
    d = engine.get("notes/deploy.md:9", line_count=1)
    assert d.content == "Staging is deployed with the systemd unit app-staging."
    d = engine.get("notes/deploy.md:9", from_line=11, line_count=1)  # --from wins over :line
    assert d.content == lines[10]
    d = engine.get("notes/deploy.md", from_line=14, line_count=50)
    assert (d.returned_lines.start, d.returned_lines.end) == (14, 15)
    with pytest.raises(ValidationError) as past:  # past the end: an error that says so, never an empty answer
        engine.get("notes/deploy.md", from_line=99)
    assert past.value.message == "line 99 is past the end of gno://notes/deploy.md (15 lines)"
    for kw in ({"line_count": 0}, {"from_line": -1}):
        with pytest.raises(ValidationError) as ei:
            engine.get("notes/deploy.md", **kw)  # type: ignore[arg-type]
        assert ei.value.code == ErrorCode.VALIDATION


def test_get_from_zero_is_rejected(engine: Engine) -> None:
    with pytest.raises(ValidationError):
        engine.get("notes/deploy.md", from_line=0)


def test_get_unknown_refs(engine: Engine) -> None:
    for ref in ("notes/nope.md", "#00000000", "gno://nope/deploy.md", "nope/deploy.md"):
        with pytest.raises(NotFoundError) as ei:
            engine.get(ref)
        assert ei.value.code == ErrorCode.NOT_FOUND
        assert ei.value.details == {"ref": ref}
    with pytest.raises(ValidationError) as vi:
        engine.get("deploy.md")
    assert vi.value.code == ErrorCode.INVALID_REF


def test_multi_get_comma_lists_and_missing_refs(engine: Engine) -> None:
    r = engine.multi_get(["notes/deploy.md, notes/nope.md", "gno://notes/rollback.md,", "bad", "#00000000"])
    assert [d.uri for d in r.documents] == ["gno://notes/deploy.md", "gno://notes/rollback.md"]
    assert [(e.ref, e.code) for e in r.errors] == [
        ("notes/nope.md", "NOT_FOUND"),
        ("bad", "INVALID_REF"),
        ("#00000000", "NOT_FOUND"),
    ]
    assert r.truncated is False


def test_multi_get_truncates_each_document(engine: Engine) -> None:
    """Each document is cut after its last whole line within the budget, and says which lines it kept."""
    r = engine.multi_get(["notes/deploy.md", "notes/archive/old.md"], max_bytes=20)
    assert r.truncated is True
    for d in r.documents:
        full = engine.get(d.uri).content
        kept = full.encode()[:21].rsplit(b"\n", 1)[0].decode()
        assert d.content == kept and len(d.content.encode()) <= 20
        assert (d.returned_lines.start, d.returned_lines.end) == (1, kept.count("\n") + 1)
    assert r.documents[0].content == "---"
    r = engine.multi_get(["notes/projects/languages.md"], max_bytes=0)
    assert r.truncated is False


def test_multi_get_truncation_never_splits_utf8(engine: Engine, corpus: Path) -> None:
    # a first line longer than the budget is cut inside the line: "café" straddles the cut, and the
    # partial character is dropped
    (corpus / "long.md").write_text("Le café " * 40 + "\n\nsecond line\n", encoding="utf-8")
    engine.update()
    text = engine.get("notes/long.md").content
    cut = text.encode().index("é".encode()) + 1
    r = engine.multi_get(["notes/long.md"], max_bytes=cut)
    assert r.documents[0].content == text.encode()[: cut - 1].decode()
    assert (r.documents[0].returned_lines.start, r.documents[0].returned_lines.end) == (1, 1)


def test_ls_scopes(engine: Engine) -> None:
    every = ["archive/old.md", "deploy.md", "projects/languages.md", "projects/runbook.md", "rollback.md"]
    assert [e.rel_path for e in engine.ls().entries] == every
    assert [e.rel_path for e in engine.ls("notes").entries] == every
    assert [e.rel_path for e in engine.ls("NOTES").entries] == every
    assert [e.rel_path for e in engine.ls("gno://notes").entries] == every
    assert [e.rel_path for e in engine.ls("gno://notes/projects/").entries] == [
        "projects/languages.md",
        "projects/runbook.md",
    ]
    assert [e.rel_path for e in engine.ls("notes/projects/").entries] == [
        "projects/languages.md",
        "projects/runbook.md",
    ]
    assert [e.rel_path for e in engine.ls("notes/archive").entries] == ["archive/old.md"]
    assert engine.ls("notes/nothing-here/").entries == []
    res = engine.ls("gno://notes/projects/")
    assert res.total == 2
    assert res.scope == "gno://notes/projects/"
    e0 = res.entries[0]
    assert (e0.uri, e0.title, e0.collection) == ("gno://notes/projects/languages.md", "Languages", "notes")
    with pytest.raises(NotFoundError) as ei:
        engine.ls("nope")
    assert ei.value.code == ErrorCode.COLLECTION_NOT_FOUND


# -- the error table --------------------------------------------------------------------------


def test_every_code_has_exactly_one_row() -> None:
    assert set(ERROR_TABLE) == set(ErrorCode)
    for code, m in ERROR_TABLE.items():
        assert m.exit_code in {1, 2, 3, 4}, code
        assert 400 <= m.http_status <= 599, code
        assert m.kind in {"VALIDATION", "NOT_FOUND", "CONFLICT", "BUSY", "RUNTIME", "AUTH"}, code


@pytest.mark.parametrize(
    ("code", "cls", "exit_code", "http"),
    [
        (ErrorCode.VALIDATION, ValidationError, 1, 400),
        (ErrorCode.INVALID_QUERY, ValidationError, 1, 400),
        (ErrorCode.INVALID_REF, ValidationError, 1, 400),
        (ErrorCode.CONFIG_INVALID, ValidationError, 1, 400),
        (ErrorCode.NOT_FOUND, NotFoundError, 1, 404),
        (ErrorCode.COLLECTION_NOT_FOUND, NotFoundError, 1, 404),
        (ErrorCode.COLLECTION_EXISTS, ConflictError, 1, 409),
        (ErrorCode.LOCKED, BusyError, 4, 409),
        (ErrorCode.RUNTIME, RuntimeFailure, 2, 500),
        (ErrorCode.NOT_RUNNING, RuntimeFailure, 3, 503),
        (ErrorCode.ALREADY_RUNNING, BusyError, 4, 409),
        (ErrorCode.MEMORY_WRITE_LEASE_BUSY, BusyError, 4, 409),
        (ErrorCode.MEMORY_SUPERSEDE_CONFLICT, BusyError, 4, 409),
        (ErrorCode.UNAUTHORIZED, AuthError, 1, 401),
    ],
)
def test_codes_map_to_class_exit_and_status(
    code: ErrorCode, cls: type[GnoError], exit_code: int, http: int
) -> None:
    err = make_error(code, "msg", {"k": 1})
    assert type(err) is cls
    assert (err.code, err.exit_code, err.http_status) == (code, exit_code, http)


def test_busy_codes_exit_4() -> None:
    busy = {c for c, m in ERROR_TABLE.items() if m.exit_code == 4}
    assert busy == {
        ErrorCode.LOCKED,
        ErrorCode.ALREADY_RUNNING,
        ErrorCode.MEMORY_SUPERSEDE_CONFLICT,
        ErrorCode.MEMORY_WRITE_LEASE_BUSY,
        ErrorCode.ADDRESS_IN_USE,
        ErrorCode.RATE_LIMITED,
        ErrorCode.REQUEST_PENDING,
    }
    for c in busy:
        assert issubclass(error_class_for(c), BusyError)


@pytest.mark.parametrize("code", list(ErrorCode))
def test_make_error_from_body_round_trip(code: ErrorCode) -> None:
    err = make_error(code, f"message for {code}", {"n": 1, "s": "x"})
    body = err.to_body()
    assert body == {
        "error": {"code": str(code), "message": f"message for {code}", "details": {"n": 1, "s": "x"}}
    }
    back = from_body(json.loads(json.dumps(body)))
    assert type(back) is type(err)
    assert (back.code, back.message, back.details, back.exit_code) == (
        code,
        err.message,
        err.details,
        err.exit_code,
    )


def test_from_body_unknown_and_garbage() -> None:
    e = from_body({"error": {"code": "NO_SUCH_CODE", "message": "m"}})
    assert type(e) is RuntimeFailure and e.code == ErrorCode.RUNTIME and e.message == "m"
    for garbage in ({}, [], "x", {"error": {}}):
        g = from_body(garbage)  # type: ignore[arg-type]
        assert type(g) is RuntimeFailure and g.code == ErrorCode.RUNTIME


@pytest.mark.parametrize(
    "body", [{"error": None}, {"error": "Bad Gateway"}, {"error": {"code": "X", "details": [1]}}]
)
def test_from_body_never_raises(body: dict[str, object]) -> None:
    g = from_body(body)
    assert g.code == ErrorCode.RUNTIME


def test_default_codes_of_classes() -> None:
    assert ValidationError("x").code == ErrorCode.VALIDATION
    assert NotFoundError("x").code == ErrorCode.NOT_FOUND
    assert BusyError("x").code == ErrorCode.LOCKED
    assert RuntimeFailure("x").code == ErrorCode.RUNTIME
    assert ConflictError("x").code == ErrorCode.CONFLICT
    assert GnoError("x").details == {}


# -- malformed config -------------------------------------------------------------------------


def _cfg(settings: Settings, text: str) -> Path:
    settings.config_path.parent.mkdir(parents=True, exist_ok=True)
    settings.config_path.write_text(text, encoding="utf-8")
    return settings.config_path


BAD_CONFIGS = [
    # (name, text, line, problem fragment)
    (
        "bad-yaml",
        'version: "1.0"\ncollections:\n  - name: notes\n    path: /tmp\n   bad: [\n',
        5,
        "did not find expected",
    ),
    (
        "unknown-key",
        'version: "1.0"\ncollections:\n  - name: ok\n    path: /tmp\n  - name: notes\n'
        "    path: /tmp\n    colour: blue\n",
        7,
        "colour",
    ),
    (
        "bad-name",
        'version: "1.0"\ncollections:\n  - name: ok\n    path: /tmp\n  - name: Bad Name\n    path: /tmp\n',
        5,
        "collection names are lowercase",
    ),
    (
        "bad-egress",
        'version: "1.0"\ncollections:\n  - name: ok\n    path: /tmp\n    egressPolicy: internet\n',
        5,
        "egressPolicy",
    ),
    (
        "duplicate",
        'version: "1.0"\ncollections:\n  - name: ok\n    path: /tmp\n  - name: ok\n    path: /tmp\n',
        5,
        "duplicate collection 'ok'",
    ),
    ("not-a-mapping", "- a\n- b\n", 1, "must be a mapping"),
    ("tab", "\tversion: 1\n", 1, "cannot start any token"),
]


@pytest.mark.parametrize(("name", "text", "line", "fragment"), BAD_CONFIGS, ids=[b[0] for b in BAD_CONFIGS])
def test_malformed_config_names_file_and_line(
    settings: Settings, name: str, text: str, line: int, fragment: str
) -> None:
    path = _cfg(settings, text)
    with pytest.raises(ValidationError) as ei:
        load_config(settings)
    err = ei.value
    assert err.code == ErrorCode.CONFIG_INVALID
    assert err.details["file"] == str(path)
    assert err.details["line"] == line
    assert err.message.startswith(f"invalid config {path}:{line}: ")
    assert fragment in err.message


@pytest.mark.parametrize(
    ("name", "text", "line", "fragment"), BAD_CONFIGS[:3], ids=[b[0] for b in BAD_CONFIGS[:3]]
)
def test_malformed_config_cli_exit_1_no_traceback(
    settings: Settings, name: str, text: str, line: int, fragment: str
) -> None:
    path = _cfg(settings, text)
    runner = CliRunner()
    res = runner.invoke(cli, ["status", "--json"])
    assert res.exit_code == 1
    body = json.loads(res.stdout)
    assert body["error"]["code"] == "CONFIG_INVALID"
    assert body["error"]["details"]["file"] == str(path)
    assert body["error"]["details"]["line"] == line
    assert "Traceback" not in res.output
    res = runner.invoke(cli, ["status"])
    assert res.exit_code == 1
    assert res.stderr.startswith(f"error [CONFIG_INVALID]: invalid config {path}:{line}: ")
    assert "Traceback" not in res.stderr
    assert res.stdout == ""


def test_config_flag_points_at_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "elsewhere.yml"
    bad.write_text("version: [\n", encoding="utf-8")
    res = CliRunner().invoke(cli, ["--config", str(bad), "collection", "list", "--json"])
    assert res.exit_code == 1
    body = json.loads(res.stdout)
    assert body["error"]["code"] == "CONFIG_INVALID"
    assert body["error"]["details"]["file"] == str(bad)
    assert isinstance(body["error"]["details"]["line"], int)


def test_unsupported_version_is_config_invalid(settings: Settings) -> None:
    _cfg(settings, 'version: "2.0"\n')
    with pytest.raises(ValidationError) as ei:
        load_config(settings)
    assert ei.value.code == ErrorCode.CONFIG_INVALID
    assert "unsupported version '2.0'" in ei.value.message


@pytest.mark.parametrize(
    ("text", "line"),
    [('version: "1.0"\ncollections: 5\n', 2), ('version: "1.0"\nchunking:\n  maxTokens: 3\n', 3)],
)
def test_config_errors_outside_collections_name_the_line(settings: Settings, text: str, line: int) -> None:
    _cfg(settings, text)
    with pytest.raises(ValidationError) as ei:
        load_config(settings)
    assert ei.value.details["line"] == line


def test_missing_config_is_not_initialized(settings: Settings) -> None:
    with pytest.raises(ValidationError) as ei:
        load_config(settings)
    assert ei.value.code == ErrorCode.NOT_INITIALIZED
    res = CliRunner().invoke(cli, ["status", "--json"])
    assert res.exit_code == 1
    assert json.loads(res.stdout)["error"]["code"] == "NOT_INITIALIZED"
