"""Capture and edit write only what the index will hold: refused before anything is written.

The indexer reads a NUL byte as the mark of a binary file and skips it, and it never reads a path
the collection's pattern, include or exclude leave out; a note saved like that would drop out of
the index, so refusing it up front keeps "written" and "indexed" the same thing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from gno.engine import Engine
from gno.errors import ErrorCode, ValidationError
from gno.writes.capture import CaptureRequest


def test_capture_refuses_a_nul_byte_and_writes_nothing(engine: Engine, corpus: Path) -> None:
    before = sorted(p.relative_to(corpus) for p in corpus.rglob("*"))
    with pytest.raises(ValidationError) as info:
        engine.capture(CaptureRequest(content="half text\x00half binary", collection="notes", path="x.md"))
    assert info.value.code is ErrorCode.VALIDATION
    assert "NUL" in info.value.message
    assert sorted(p.relative_to(corpus) for p in corpus.rglob("*")) == before


def test_edit_refuses_a_nul_byte_and_keeps_the_file(engine: Engine, corpus: Path) -> None:
    row = engine.ls().entries[0]
    path = corpus / row.rel_path
    original = path.read_bytes()
    with pytest.raises(ValidationError) as info:
        engine.update_doc(row.uri, "new\x00text", hashlib.sha256(original).hexdigest())
    assert info.value.code is ErrorCode.VALIDATION
    assert path.read_bytes() == original


@pytest.mark.parametrize("path", ["node_modules/x.md", "build/sub/x.md", "deep/dist/x.md"])
def test_capture_refuses_a_path_the_collection_leaves_out(engine: Engine, corpus: Path, path: str) -> None:
    before = sorted(p.relative_to(corpus) for p in corpus.rglob("*"))
    with pytest.raises(ValidationError) as info:
        engine.capture(CaptureRequest(content="an excluded note", collection="notes", path=path))
    assert info.value.code is ErrorCode.VALIDATION and "leave it out" in info.value.message
    assert sorted(p.relative_to(corpus) for p in corpus.rglob("*")) == before
    assert engine.search("excluded").results == []
