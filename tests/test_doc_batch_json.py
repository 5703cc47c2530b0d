"""The journal's and headings' JSON, written out for speed, is byte for byte what `json` writes.

`doc_id_by_past_docid` matches the journal's exact spelling (`"docid": "…`), and readers parse it
with `json`: so the fast writer must agree with the encoder on every string, including quotes,
backslashes, control characters, non-ASCII and line separators, and hand any other shape back."""

from __future__ import annotations

import json

import pytest

from gno.store.doc_batch import _headings_json, _snapshot_json
from gno.store.documents import snapshot

NAMES = ["notes/a.md", 'q "quoted" \\ back.md', "tab\tnl\ncr\r.md", "é/ü/日本.md", "\u2028sep\u2029.md", "\x00\x1f"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("active", [True, False])
def test_snapshot_json_is_the_encoders(name: str, active: bool) -> None:
    snap = snapshot(name, "#" + name, "gno://notes/" + name, "h" * 64, "m" * 64, active)
    assert _snapshot_json(snap) == json.dumps(snap)
    assert json.loads(_snapshot_json(snap)) == snap


@pytest.mark.parametrize("name", NAMES)
def test_headings_json_is_the_encoders(name: str) -> None:
    rows = [{"level": 1, "text": name, "line": 1}, {"level": 3, "text": "x", "line": 40}]
    assert _headings_json(rows) == json.dumps(rows, ensure_ascii=False)
    assert _headings_json([]) == "[]"


def test_other_shapes_go_to_the_encoder() -> None:
    odd = {"relPath": "a", "active": 1}
    assert _snapshot_json(odd) == json.dumps(odd)
    rows = [{"level": True, "text": "a", "line": 1}, {"text": "b", "level": 2, "line": 2}]
    assert _headings_json(rows) == json.dumps(rows, ensure_ascii=False)
