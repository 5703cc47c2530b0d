"""Symlinks never lead a read or a write out of a collection (real symlinks, every door).

The attacker's material: a note `passwd.md -> <outside>/secret.md` (think `~/.ssh/id_rsa` in a
cloned repo), a folder `linked -> <outside dir>`, and a folder `out -> <outside dir>` used as a
capture target. Sync skips what leaves the root with the warning PATH_OUTSIDE_COLLECTION in `gno status`; `get` (CLI,
REST, MCP) refuses a file swapped for an escaping link after it was indexed; capture (CLI and
`/api/capture`) and edit (`PUT /api/docs`, the SDK) refuse with VALIDATION and write
nothing outside. Edit keeps the file's mode and writes through an in-root symlink.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest

import gno

from .conftest import CliRun, McpDriver, SurfaceEnv, gno_serve

SECRET = "zanzibar-secret-canary"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the collections, holding what an attacker wants read or overwritten."""
    root = tmp_path / "outside"
    (root / "dir").mkdir(parents=True)
    (root / "secret.md").write_text(f"# Secret\n\n{SECRET} root password\n", encoding="utf-8")
    (root / "dir" / "inner.md").write_text(f"# Inner\n\n{SECRET} inner key\n", encoding="utf-8")
    return root


def _search_uris(cli: CliRun, word: str) -> list[str]:
    r = cli("search", word, "--json")
    assert r.exit_code == 0, r.stdout + r.stderr
    return [h["uri"] for h in r.json["results"]]


def test_sync_skips_file_and_folder_links_that_leave_the_root(env: SurfaceEnv, cli: CliRun, outside: Path) -> None:
    (env.notes / "sub").mkdir()
    (env.notes / "sub" / "real.md").write_text("# Real\n\nquokka inside\n", encoding="utf-8")
    os.symlink(outside / "secret.md", env.notes / "passwd.md")
    os.symlink(outside / "dir", env.notes / "linked")
    os.symlink(outside / "gone.md", env.notes / "dangling.md")  # dangling, and outside
    os.symlink("sub/real.md", env.notes / "alias.md")  # stays inside: followed

    r = cli("update", "--json")
    assert r.exit_code == 0, r.stdout + r.stderr
    notes = next(c for c in r.json["collections"] if c["name"] == "notes")
    assert notes["warnings"] == 3 and notes["errors"] == 0, notes
    assert _search_uris(cli, SECRET.split("-")[0]) == []
    assert sorted(_search_uris(cli, "quokka")) == ["gno://notes/alias.md", "gno://notes/sub/real.md"]

    status = cli("status", "--json").json
    warned = {e["relPath"]: e for e in status["ingestErrors"] if e["collection"] == "notes"}
    assert set(warned) == {"passwd.md", "linked", "dangling.md"}
    assert {e["code"] for e in warned.values()} == {"PATH_OUTSIDE_COLLECTION"}
    assert str(outside / "secret.md") in warned["passwd.md"]["message"]
    text = cli("status").stdout
    assert "PATH_OUTSIDE_COLLECTION" in text and "passwd.md" in text

    r = cli("get", "notes/passwd.md", "--json")
    assert r.exit_code == 1 and r.error_code == "NOT_FOUND"

    # the link removed: the warning goes with it at the next sync
    (env.notes / "passwd.md").unlink()
    cli("update")
    status = cli("status", "--json").json
    assert "passwd.md" not in {e["relPath"] for e in status["ingestErrors"]}


def test_reads_refuse_a_note_swapped_for_an_escaping_link(
    env: SurfaceEnv, cli: CliRun, mcp_rw: McpDriver, outside: Path
) -> None:
    note = env.notes / "deploy.md"
    note.unlink()
    os.symlink(outside / "secret.md", note)  # after indexing, before the next sync

    r = cli("get", "notes/deploy.md", "--json")
    assert r.exit_code == 1 and r.error_code == "VALIDATION", r.stdout
    assert r.json["error"]["details"]["reason"] == "outside_collection"
    out = mcp_rw.call("gno_get", {"ref": "notes/deploy.md"})
    assert out.is_error and out.error_code == "VALIDATION"
    out = mcp_rw.call("gno_multi_get", {"refs": ["notes/deploy.md"]})
    assert not out.is_error and out.structured is not None
    assert out.structured["documents"] == [] and out.structured["errors"][0]["code"] == "VALIDATION"
    # --no-watch: the swap must meet the read before any sync does (a watcher would skip the file first)
    with gno_serve(env.tmp, "--no-watch") as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        for path in ("/api/doc", "/api/web/source"):
            r = http.get(path, params={"uri": "notes/deploy.md"})
            assert r.status_code == 400 and r.json()["error"]["code"] == "VALIDATION", (path, r.text)
            assert SECRET not in r.text
    r = cli("update", "--json")
    assert cli("get", "notes/deploy.md", "--json").error_code == "NOT_FOUND"  # now skipped and inactive


def test_capture_refuses_a_folder_link_out_of_the_root(env: SurfaceEnv, cli: CliRun, outside: Path) -> None:
    os.symlink(outside / "dir", env.notes / "out")
    before = sorted(p.name for p in outside.rglob("*"))
    for args in (("--path", "out/x.md"), ("--folder", "out"), ("--path", "out/new/deeper.md")):
        r = cli("capture", "pwned", "-c", "notes", "--title", "Pwned", *args, "--json")
        assert r.exit_code == 1, (args, r.stdout)
        assert r.error_code == "VALIDATION" and r.json["error"]["details"]["reason"] == "outside_collection"
    with gno_serve(env.tmp) as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        for body in ({"path": "out/x.md"}, {"folderPath": "out"}):
            r = http.post("/api/capture", json={"content": "pwned", "collection": "notes", "title": "Pwned", **body})
            assert r.status_code == 400 and r.json()["error"]["code"] == "VALIDATION", r.text
        # a capture into an ordinary folder still works, and gets ordinary permissions
        r = http.post("/api/capture", json={"content": "fine", "collection": "notes", "path": "inbox/fine.md"})
        assert r.status_code == 201, r.text
    assert sorted(p.name for p in outside.rglob("*")) == before
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE((env.notes / "inbox" / "fine.md").stat().st_mode) == 0o666 & ~umask


def _put(http: httpx.Client, rel: str, content: str, path: Path) -> httpx.Response:
    old = hashlib.sha256(path.read_bytes()).hexdigest()
    return http.put(f"/api/docs/notes/{rel}", json={"content": content, "expectedSourceHash": old})


def test_edit_keeps_mode_writes_through_inside_links_and_refuses_outside_ones(
    env: SurfaceEnv, cli: CliRun, sdk_local: Any, outside: Path
) -> None:
    (env.notes / "shared").mkdir()
    target = env.notes / "shared" / "target.md"
    target.write_text("# Target\n\nold body\n", encoding="utf-8")
    os.symlink("shared/target.md", env.notes / "link.md")
    (env.notes / "deploy.md").chmod(0o644)
    (env.notes / "handbook.md").chmod(0o640)
    cli("update")
    with gno_serve(env.tmp, "--no-watch") as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        r = _put(http, "deploy.md", "# Deploys\n\nmode kept\n", env.notes / "deploy.md")
        assert r.status_code == 200, r.text
        assert stat.S_IMODE((env.notes / "deploy.md").stat().st_mode) == 0o644
        r = _put(http, "handbook.md", "# Handbook\n\nstill 640\n", env.notes / "handbook.md")
        assert r.status_code == 200, r.text
        assert stat.S_IMODE((env.notes / "handbook.md").stat().st_mode) == 0o640

        r = _put(http, "link.md", "# Target\n\nnew body via the link\n", env.notes / "link.md")
        assert r.status_code == 200, r.text
        assert (env.notes / "link.md").is_symlink()
        assert target.read_text(encoding="utf-8") == "# Target\n\nnew body via the link\n"

        # swap an indexed note for a link leading outside: the edit is refused, nothing written there
        secret_before = (outside / "secret.md").read_bytes()
        (env.notes / "deploy.md").unlink()
        os.symlink(outside / "secret.md", env.notes / "deploy.md")
        r = _put(http, "deploy.md", "overwritten", env.notes / "deploy.md")
        assert r.status_code == 400 and r.json()["error"]["code"] == "VALIDATION", r.text
    with pytest.raises(gno.ValidationError) as ei:
        sdk_local.update_doc("notes/deploy.md", "overwritten", hashlib.sha256(secret_before).hexdigest())
    assert ei.value.code == "VALIDATION"
    assert (outside / "secret.md").read_bytes() == secret_before
