"""Capture and edit write text notes only: a NUL byte is refused before anything is written.

The indexer reads a NUL byte as the mark of a binary file and skips it, so a note saved with one
would drop out of the index; refusing it up front keeps "written" and "indexed" the same thing.
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
