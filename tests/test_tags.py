"""Tags: counts over the index, and `tags add` / `tags rm` as front-matter edits that never touch
the body (byte for byte), go through the edit path (hash check, lease, request IDs, re-index) and
refuse bad tags and converted documents."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from gno.engine import Engine
from gno.errors import ErrorCode, GnoError
from gno.settings import Settings

BLOCK = (
    "---\ntitle: Plan\ntags:\n  - alpha\n  - beta\n# a comment stays\nstatus: draft\n---\n\n# Plan\n\nBody #gamma.\n"
)
CRLF = "# Windows note\r\n\r\nWritten on Windows.\r\n"
STRING = "---\ntag: one two\n---\nBody.\n"
EMPTY_FM = "---\n---\nJust a body.\n"


def _body(raw: bytes) -> bytes:
    """Everything from the line after the front matter's closing fence (the whole file without one)."""
    text = raw.decode("utf-8")
    if not text.startswith("---"):
        return raw
    lines = text.splitlines(keepends=True)
    close = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    return "".join(lines[close + 1 :]).encode("utf-8")


@pytest.fixture
def vault(engine: Engine, corpus: Path) -> Iterator[tuple[Engine, Path]]:
    (corpus / "plan.md").write_text(BLOCK, encoding="utf-8")
    (corpus / "windows.md").write_bytes(CRLF.encode("utf-8"))
    (corpus / "string.md").write_text(STRING, encoding="utf-8")
    (corpus / "empty.md").write_text(EMPTY_FM, encoding="utf-8")
    engine.update()
    yield engine, corpus


def test_tag_counts_come_from_front_matter_and_inline_tags(vault: tuple[Engine, Path]) -> None:
    e, _ = vault
    counts = {t.tag: (t.count, t.frontmatter, t.inline) for t in e.tags().tags}
    assert counts["ops"] == (3, 2, 1)  # deploy.md and runbook.md in front matter; rollback.md inline
    assert counts["alpha"] == (1, 1, 0) and counts["gamma"] == (1, 0, 1)
    assert counts["one"] == counts["two"] == (1, 1, 0)  # `tag: one two`
    assert [t.tag for t in e.tags().tags][0] == "ops"  # most used first
    assert e.tags("notes").tags == e.tags().tags
    with pytest.raises(GnoError) as ei:
        e.tags("nope")
    assert ei.value.code == ErrorCode.COLLECTION_NOT_FOUND


def test_add_and_rm_rewrite_only_the_tags_entry(vault: tuple[Engine, Path]) -> None:
    e, root = vault
    path = root / "plan.md"
    before = path.read_bytes()
    r = e.tags_edit("notes/plan.md", add=["Delta", "#alpha"], remove=["beta"])
    after = path.read_bytes()
    assert (r.changed, r.added, r.removed) == (True, ["delta"], ["beta"])
    assert r.tags == ["alpha", "delta", "gamma"]  # gamma is inline, from the body
    assert _body(after) == _body(before)
    assert after.decode() == BLOCK.replace("tags:\n  - alpha\n  - beta\n", 'tags: ["alpha", "delta"]\n')
    assert r.source_hash == hashlib.sha256(after).hexdigest() == e.get("notes/plan.md").source_hash
    assert r.previous_source_hash == hashlib.sha256(before).hexdigest()
    assert [h.uri for h in e.search("plan", tags_all=["delta"]).results] == ["gno://notes/plan.md"]
    assert e.search("plan", tags_all=["beta"]).results == []
    gone = e.tags_edit("notes/plan.md", remove=["alpha", "delta"])
    assert gone.tags == ["gamma"] and "tags" not in path.read_text().split("\n---\n")[0]
    assert _body(path.read_bytes()) == _body(before)


def test_a_note_without_front_matter_gets_one_and_keeps_its_crlf_body(vault: tuple[Engine, Path]) -> None:
    e, root = vault
    r = e.tags_edit("notes/windows.md", add=["os/windows"])
    raw = (root / "windows.md").read_bytes()
    assert raw == b'---\r\ntags: ["os/windows"]\r\n---\r\n' + CRLF.encode()
    assert r.tags == ["os/windows"]
    e.tags_edit("notes/empty.md", add=["x"])
    assert (root / "empty.md").read_text() == '---\ntags: ["x"]\n---\nJust a body.\n'


def test_a_string_tag_entry_becomes_a_list(vault: tuple[Engine, Path]) -> None:
    e, root = vault
    r = e.tags_edit("notes/string.md", remove=["one"])
    assert (root / "string.md").read_text() == '---\ntags: ["two"]\n---\nBody.\n'
    assert r.tags == ["two"]


def test_an_inline_tag_is_kept_and_nothing_is_written(vault: tuple[Engine, Path]) -> None:
    e, root = vault
    path = root / "rollback.md"
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    r = e.tags_edit("notes/rollback.md", remove=["incident"])
    assert (r.changed, r.kept_inline, r.sync) == (False, ["incident"], {"status": "unchanged"})
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert e.tags_edit("notes/deploy.md", add=["ops"]).changed is False  # already there


@pytest.mark.parametrize("bad", ["Bad Tag", "#", "-lead", "a" * 101, "x!"])
def test_bad_tags_are_tag_invalid_and_write_nothing(vault: tuple[Engine, Path], bad: str) -> None:
    e, root = vault
    before = (root / "deploy.md").read_bytes()
    with pytest.raises(GnoError) as ei:
        e.tags_edit("notes/deploy.md", add=["fine", bad])
    assert ei.value.code == ErrorCode.TAG_INVALID and ei.value.details == {"tag": bad}
    assert (root / "deploy.md").read_bytes() == before


def test_no_tags_and_bad_front_matter_are_validation(vault: tuple[Engine, Path]) -> None:
    e, root = vault
    with pytest.raises(GnoError) as ei:
        e.tags_edit("notes/deploy.md")
    assert ei.value.code == ErrorCode.VALIDATION
    (root / "broken.md").write_text("---\ntitle: [unclosed\n---\nBody.\n", encoding="utf-8")
    e.update()
    with pytest.raises(GnoError) as ei:
        e.tags_edit("notes/broken.md", add=["x"])
    assert ei.value.code == ErrorCode.VALIDATION and "not valid YAML" in ei.value.message


def test_a_converted_document_is_refused(settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "code"
    root.mkdir()
    (root / "tool.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    e = Engine(settings)
    e.init(str(root), name="code", include=[".py"])
    e.update()
    with pytest.raises(GnoError) as ei:
        e.tags_edit("code/tool.py", add=["python"])
    assert ei.value.code == ErrorCode.VALIDATION and "converted from a .py file" in ei.value.message
    assert (root / "tool.py").read_text() == "def main():\n    return 1\n"
    e.close()


def test_a_request_id_replays_and_refuses_another_intent(vault: tuple[Engine, Path]) -> None:
    e, root = vault
    first = e.tags_edit("notes/deploy.md", add=["retry"], request_id="tag-1")
    raw = (root / "deploy.md").read_bytes()
    again = e.tags_edit("notes/deploy.md", add=["retry"], request_id="tag-1")
    assert again.request is not None and again.request.replayed is True
    assert again.source_hash == first.source_hash and (root / "deploy.md").read_bytes() == raw
    with pytest.raises(GnoError) as ei:
        e.tags_edit("notes/deploy.md", add=["other"], request_id="tag-1")
    assert ei.value.code == ErrorCode.REQUEST_ID_CONFLICT
    assert e.request_status("tag-1").status == "committed"


def test_a_change_after_the_read_is_a_conflict_and_the_lease_is_taken(
    vault: tuple[Engine, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    e, root = vault
    path = root / "deploy.md"
    taken = e.lease

    def racing_lease(*args: object, **kwargs: object) -> object:
        path.write_text("---\ntags: [ops]\n---\nAnother writer was first.\n", encoding="utf-8")
        return taken(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(e, "lease", racing_lease)
    with pytest.raises(GnoError) as ei:
        e.tags_edit("notes/deploy.md", add=["mine"])
    assert ei.value.code == ErrorCode.CONFLICT
    assert path.read_text() == "---\ntags: [ops]\n---\nAnother writer was first.\n"
    monkeypatch.undo()
    with e.lease(), pytest.raises(GnoError) as busy:
        e.tags_edit("notes/rollback.md", add=["mine"], lock_wait=0)
    assert busy.value.code == ErrorCode.LOCKED
