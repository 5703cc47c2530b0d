"""`gno agents`: the protocol block lands in the user's instruction files without harming them.

Driven through the real CLI (click's runner) with HOME and the harness variables monkeypatched,
so target resolution, exit codes and JSON are what a user gets. The user's bytes are the thing
under test: outside the markers they must never change, whatever the line endings.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gno.agents.block import BEGIN, BODY, END, VERSION, body_hash, render_block
from gno.cli.main import cli

MINE = "# My own rules\n\nAlways write tests first.\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    for key in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "HERMES_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(key, raising=False)
    return h


def gno(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def claude_md(home: Path, content: bytes | None = MINE.encode()) -> Path:
    p = home / ".claude" / "CLAUDE.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    if content is not None:
        p.write_bytes(content)
    return p


def backups(p: Path) -> list[Path]:
    return sorted(p.parent.glob(p.name + ".gno-agents.bak.*"))


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- the block -----------------------------------------------------------------------------------
def test_block_is_short_and_carries_the_protocol() -> None:
    block = render_block()
    assert len(BODY) < 1500 and len(block) < 1500
    assert block.startswith(BEGIN) and block.endswith(END)
    assert f"<!-- gno-agents block v{VERSION} sha256:{body_hash()} -->" in block
    order = [
        'gno search "',
        'gno recall "<query>" --scope <scope>',
        'gno query "<question>" --fast -n 10',
        "gno context build",
        "--budget 12000",
        "gno changes",
        "gno ask",
        "--verify",
        "gno query diagnose",
    ]
    positions = [BODY.index(s) for s in order]
    assert positions == sorted(positions), "recall sits after exact search and before the document rungs"
    for needle in (
        "gno capture",
        "gno remember",
        "--add",
        "--supersede <uri> --predecessor-hash <hash>",
        "--receipt",
        "gno://",
        "`gno` skill",
        "edit the canonical file in place",
        "reindex",
        "not needed while `gno daemon`/`serve` runs",
    ):
        assert needle in BODY, needle


# -- install, idempotence, user text ---------------------------------------------------------------
def test_install_is_idempotent_and_keeps_user_text(home: Path) -> None:
    p = claude_md(home)
    r = gno("agents", "install", "--target", "claude")
    assert r.exit_code == 0, r.output
    first = p.read_bytes()
    assert first.startswith(MINE.encode())
    assert b"gno recall" in first and BEGIN.encode() in first
    r2 = gno("agents", "install", "--target", "claude", "--json")
    assert r2.exit_code == 0
    assert p.read_bytes() == first
    assert json.loads(r2.output)["files"][0]["action"] == "unchanged"


@pytest.mark.parametrize(
    "original",
    [
        b"",
        b"abc",
        b"abc\n",
        b"abc\n\n",
        b"# Rules\r\n\r\nUse CRLF.\r\n",
        b"# Rules\r\nno final newline",
        "\ufeff# BOM and caf\u00e9\n".encode(),
    ],
    ids=["empty", "no-newline", "lf", "trailing-blank", "crlf", "crlf-no-newline", "bom"],
)
def test_uninstall_restores_the_original_bytes(home: Path, original: bytes) -> None:
    p = claude_md(home, original)
    assert gno("agents", "install", "--target", "claude").exit_code == 0
    installed = p.read_bytes()
    assert installed.startswith(original)
    if b"\r\n" in original:  # the block follows the file's line endings: no bare LF anywhere
        assert b"\n" not in installed.replace(b"\r\n", b"")
    assert gno("agents", "verify", "--target", "claude").exit_code == 0
    assert gno("agents", "install", "--target", "claude").exit_code == 0
    assert p.read_bytes() == installed
    assert gno("agents", "uninstall", "--target", "claude").exit_code == 0
    assert p.read_bytes() == original


def test_block_in_the_middle_is_replaced_in_place(home: Path) -> None:
    p = claude_md(home)
    gno("agents", "install", "--target", "claude")
    tail = "\n## Added later by hand\n\nKeep me.\n"
    stale = p.read_text().replace("Retrieval ladder", "Old ladder") + tail
    p.write_text(stale)
    assert gno("agents", "verify", "--target", "claude").exit_code == 1
    assert gno("agents", "update", "--target", "claude").exit_code == 0
    text = p.read_text()
    assert text.startswith(MINE) and text.endswith(tail) and "Old ladder" not in text
    assert gno("agents", "verify", "--target", "claude").exit_code == 0


def test_backup_is_made_once_before_the_first_change(home: Path) -> None:
    p = claude_md(home)
    gno("agents", "install", "--target", "claude")
    (b,) = backups(p)
    assert b.read_bytes() == MINE.encode()
    p.write_text(p.read_text().replace("Retrieval ladder", "Old ladder"))
    gno("agents", "install", "--target", "claude")
    gno("agents", "uninstall", "--target", "claude")
    assert backups(p) == [b]
    assert b.read_bytes() == MINE.encode()


def test_a_new_file_needs_no_backup_and_uninstall_removes_it(home: Path) -> None:
    (home / ".codex").mkdir()
    r = gno("agents", "install", "--target", "codex", "--json")
    assert json.loads(r.output)["files"][0]["action"] == "created"
    p = home / ".codex" / "AGENTS.md"
    assert p.read_text().startswith(BEGIN) and not backups(p)
    gno("agents", "uninstall", "--target", "codex")
    assert not p.exists()


# -- failing closed --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "content",
    [
        f"{MINE}\n{BEGIN}\nhalf a block\n",
        f"{MINE}\n{BEGIN}\n{BEGIN}\n{END}\n",
        f"{MINE}\n{END}\nx\n{BEGIN}\n",
        f"{MINE}\n{END}\n",
        f"{MINE}\n{BEGIN}\n{END}\n{BEGIN}\n{END}\n",
    ],
    ids=["begin-without-end", "two-begins", "end-before-begin", "end-without-begin", "two-blocks"],
)
def test_malformed_markers_fail_closed(home: Path, content: str) -> None:
    p = claude_md(home, content.encode())
    (home / ".codex").mkdir()
    before = snapshot(home)
    for op in ("install", "update", "uninstall"):
        r = gno("agents", op, "--target", "claude", "--target", "codex")
        assert r.exit_code == 1, (op, r.output)
        assert "malformed gno block" in r.output and str(p) in r.output
        assert snapshot(home) == before, "nothing written, not even to the healthy target"
    r = gno("agents", "verify", "--target", "claude", "--json")
    assert r.exit_code == 1
    assert json.loads(r.output)["files"][0]["state"] == "malformed"


def test_json_error_envelope_for_malformed(home: Path) -> None:
    claude_md(home, f"{BEGIN}\n".encode())
    r = gno("agents", "install", "--target", "claude", "--json")
    assert r.exit_code == 1
    assert json.loads(r.output)["error"]["code"] == "VALIDATION"


# -- verify ----------------------------------------------------------------------------------------
def test_verify_exit_codes(home: Path) -> None:
    p = claude_md(home)
    r = gno("agents", "verify", "--target", "claude")
    assert r.exit_code == 1 and "missing" in r.output
    gno("agents", "install", "--target", "claude")
    r = gno("agents", "verify", "--target", "claude")
    assert r.exit_code == 0 and "current" in r.output
    p.write_text(p.read_text().replace(f"block v{VERSION} sha256:{body_hash()}", "block v2 sha256:0123456789abcdef"))
    r = gno("agents", "verify", "--target", "claude")
    assert r.exit_code == 1 and "outdated" in r.output and "v2" in r.output
    p.unlink()
    assert gno("agents", "verify", "--target", "claude").exit_code == 1


def test_verify_unreadable_exits_2(home: Path) -> None:
    claude_md(home, b"\xff\xfe not utf-8 \x80")
    r = gno("agents", "verify", "--target", "claude", "--json")
    assert r.exit_code == 2
    assert json.loads(r.output)["files"][0]["state"] == "unreadable"
    assert gno("agents", "install", "--target", "claude").exit_code == 2


# -- dry run, targets, environment -----------------------------------------------------------------
def test_dry_run_writes_nothing(home: Path) -> None:
    claude_md(home)
    (home / ".codex").mkdir()
    before = snapshot(home)
    r = gno("agents", "install", "--target", "all", "--dry-run", "--json")
    assert r.exit_code == 0
    body = json.loads(r.output)
    assert body["dryRun"] is True and body["changed"] == 6
    assert {f["action"] for f in body["files"]} == {"updated", "created"}
    assert snapshot(home) == before
    assert not (home / ".config").exists()


def test_all_targets_use_the_documented_paths(home: Path) -> None:
    r = gno("agents", "install", "--target", "all", "--json")
    paths = {f["target"]: f["path"] for f in json.loads(r.output)["files"]}
    assert paths == {
        "claude": str(home / ".claude" / "CLAUDE.md"),
        "codex": str(home / ".codex" / "AGENTS.md"),
        "cursor": str(home / "AGENTS.md"),
        "opencode": str(home / ".config" / "opencode" / "AGENTS.md"),
        "hermes": str(home / ".hermes" / "SOUL.md"),
        "openclaw": str(home / ".openclaw" / "workspace" / "AGENTS.md"),
    }
    assert all(Path(p).read_text().startswith(BEGIN) for p in paths.values())


def test_default_targets_are_the_detected_harnesses(home: Path) -> None:
    r = gno("agents", "install")
    assert r.exit_code == 1 and "no agent harness detected" in r.output
    (home / ".claude").mkdir()
    (home / ".hermes").mkdir()
    r = gno("agents", "install", "--json")
    assert r.exit_code == 0
    assert [f["target"] for f in json.loads(r.output)["files"]] == ["claude", "hermes"]
    assert not (home / ".codex").exists() and not (home / "AGENTS.md").exists()


def test_env_overrides_claude_config_dir_and_codex_home(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cdir, xdir = tmp_path / "claude-cfg", tmp_path / "codex-home"
    cdir.mkdir()
    xdir.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(cdir))
    monkeypatch.setenv("CODEX_HOME", str(xdir))
    r = gno("agents", "install", "--json")
    assert r.exit_code == 0, r.output
    assert [f["path"] for f in json.loads(r.output)["files"]] == [str(cdir / "CLAUDE.md"), str(xdir / "AGENTS.md")]
    assert (cdir / "CLAUDE.md").exists() and (xdir / "AGENTS.md").exists()
    assert not (home / ".claude").exists()


def test_extra_dir(home: Path, tmp_path: Path) -> None:
    extra = tmp_path / "work" / "repo"
    r = gno("agents", "install", "--target", "claude", "--extra-dir", str(extra), "--json")
    assert r.exit_code == 0
    assert [f["target"] for f in json.loads(r.output)["files"]] == ["claude", "extra"]
    assert (extra / "AGENTS.md").read_text().startswith(BEGIN)
    assert gno("agents", "verify", "--extra-dir", str(extra), "--target", "claude").exit_code == 0


def test_symlinked_file_writes_the_target(home: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "CLAUDE.md"
    real.parent.mkdir()
    real.write_text(MINE)
    link = claude_md(home, None)
    link.symlink_to(real)
    r = gno("agents", "install", "--target", "claude", "--json")
    f = json.loads(r.output)["files"][0]
    assert f["writePath"] == str(real)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().startswith(MINE) and BEGIN in real.read_text()
    assert backups(real) and not backups(link)
    gno("agents", "uninstall", "--target", "claude")
    assert link.is_symlink() and real.read_text() == MINE


def test_update_skips_files_without_a_block(home: Path) -> None:
    p = claude_md(home)
    r = gno("agents", "update", "--target", "claude", "--json")
    assert r.exit_code == 0
    assert json.loads(r.output)["files"][0]["action"] == "skipped"
    assert p.read_text() == MINE and not backups(p)


def test_file_mode_is_kept(home: Path) -> None:
    p = claude_md(home)
    p.chmod(0o640)
    gno("agents", "install", "--target", "claude")
    assert p.stat().st_mode & 0o777 == 0o640


def test_install_points_hermes_and_openclaw_at_their_adapters(home: Path) -> None:
    r = gno("agents", "install", "--target", "hermes", "--target", "openclaw", "--target", "claude", "--json")
    assert r.exit_code == 0, r.output
    files = {f["target"]: f for f in json.loads(r.output)["files"]}
    assert "integrations/hermes-gno-memory" in files["hermes"]["adapter"]
    assert "integrations/openclaw-gno-memory" in files["openclaw"]["adapter"]
    assert "adapter" not in files["claude"]
    text = gno("agents", "install", "--target", "hermes").output
    assert "runtime adapter: memory provider integrations/hermes-gno-memory" in text
