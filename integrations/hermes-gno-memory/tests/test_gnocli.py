"""The version pin and the failure handling of the gno runner, without Hermes."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hermes_gno_memory"))

from gnocli import MIN_GNO_VERSION, GnoCli, GnoUnavailable, parse_version  # noqa: E402


def fake(tmp_path: Path, body: str) -> GnoCli:
    p = tmp_path / "gno"
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return GnoCli("gno", env={"PATH": str(tmp_path)}, timeout=10)


def test_parse_version() -> None:
    assert parse_version("gno, version 0.1.0") == (0, 1, 0)
    assert parse_version("gno 2.5") == (2, 5, 0)
    assert parse_version("no digits") is None


def test_missing_below_pin_and_unreadable(tmp_path: Path) -> None:
    with pytest.raises(GnoUnavailable, match="not on PATH"):
        GnoCli("gno", env={"PATH": str(tmp_path / "empty")}).check()
    with pytest.raises(GnoUnavailable, match="older than"):
        fake(tmp_path, 'echo "gno, version 0.0.9"\n').check()
    with pytest.raises(GnoUnavailable, match="no version"):
        fake(tmp_path, 'echo "hello"\n').check()
    pin = ".".join(map(str, MIN_GNO_VERSION))
    assert fake(tmp_path, f'echo "gno, version {pin}"\n').check() == pin


def test_error_envelope_is_returned_and_garbage_is_unavailable(tmp_path: Path) -> None:
    envelope = '{"error": {"code": "MEMORY_FENCED_REPLAY", "message": "m", "details": {}}}'
    cli = fake(tmp_path, f"echo '{envelope}'; exit 1\n")
    assert cli.run_json(["remember", "x"])["error"]["code"] == "MEMORY_FENCED_REPLAY"
    with pytest.raises(GnoUnavailable, match="malformed JSON"):
        fake(tmp_path, "echo '<html>'\n").run_json(["recall", "x"])
    with pytest.raises(GnoUnavailable, match="no error envelope"):
        fake(tmp_path, "echo '{\"facts\": []}'; exit 2\n").run_json(["recall", "x"])
