"""`gno skill`: the skill installs, its references match the real CLI and MCP server, and the
memory recipes are runnable exactly as written.

The recipe test is the strong one: every ```bash block of every recipe is executed, in order,
with the installed `gno`, in a fresh gno home that has the collections the recipe's "Before you
start" section asks for. A renamed flag or a changed JSON field breaks it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner, Result

from gno.agents.skill import show_skill
from gno.cli.main import cli

RECIPES = ("memory-file-decision.md", "memory-supersede-fact.md", "memory-scoped-recall.md")
SKILL = Path(__file__).resolve().parents[2] / "src" / "gno" / "agents" / "skill"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for key in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "HERMES_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(key, raising=False)
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return proj


def gno(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_install_writes_the_skill(project: Path) -> None:
    r = gno("skill", "install", "--json")
    assert r.exit_code == 0, r.output
    body = json.loads(r.output)
    root = project / ".claude" / "skills" / "gno"
    assert body["dirs"] == [{"target": "claude", "path": str(root), "action": "installed"}]
    names = {str(p.relative_to(root)) for p in root.rglob("*.md")}
    assert names == {"SKILL.md", "cli-reference.md", "mcp-reference.md", "examples.md"} | {
        f"recipes/{r}" for r in RECIPES
    }
    front = (root / "SKILL.md").read_text().split("---")[1]
    meta = yaml.safe_load(front)
    assert meta["name"] == "gno" and 20 < len(meta["description"]) < 160
    assert json.loads(gno("skill", "install", "--json").output)["dirs"][0]["action"] == "unchanged"


def test_cli_reference_lists_every_command() -> None:
    ref = show_skill("cli-reference.md").content
    ctx = click.Context(cli)
    top = cli.list_commands(ctx)
    assert {"search", "recall", "remember", "capture", "agents", "skill", "serve"} <= set(top)
    for name in top:
        assert f"\n## gno {name}\n" in ref, name
    for nested in ("gno agents install", "gno skill install", "gno query diagnose", "gno collection add"):
        assert f"\n## {nested}\n" in ref
    assert "`--predecessor-hash HASH`" in ref and "`--receipt FILE`" in ref


def test_mcp_reference_lists_the_memory_tools() -> None:
    ref = show_skill("mcp-reference.md").content
    assert "## gno_recall (read)" in ref and "## gno_remember (write)" in ref
    recall = ref.split("## gno_recall (read)")[1].split("\n## ")[0]
    assert "| `scopes` |" in recall and "| `query` |" in recall
    remember = ref.split("## gno_remember (write)")[1].split("\n## ")[0]
    for arg in ("text", "decision", "predecessorHash", "receipt"):
        assert f"| `{arg}` |" in remember


def test_reinstall_refuses_to_clobber_user_changes(project: Path) -> None:
    gno("skill", "install")
    skill_md = project / ".claude" / "skills" / "gno" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nMy own note.\n")
    r = gno("skill", "install")
    assert r.exit_code == 1 and "SKILL.md" in r.output and "--force" in r.output
    assert "My own note." in skill_md.read_text()
    assert gno("skill", "uninstall").exit_code == 1
    r = gno("skill", "install", "--force", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["dirs"][0]["action"] == "updated"
    assert "My own note." not in skill_md.read_text()


def test_uninstall_keeps_files_gno_did_not_write(project: Path) -> None:
    gno("skill", "install")
    root = project / ".claude" / "skills" / "gno"
    (root / "mine.txt").write_text("keep")
    r = gno("skill", "uninstall", "--json")
    assert r.exit_code == 0
    assert [p.name for p in root.rglob("*")] == ["mine.txt"]
    gno("skill", "uninstall", "--force")
    assert not root.exists()
    assert json.loads(gno("skill", "uninstall", "--json").output)["dirs"][0]["action"] == "absent"


def test_user_scope_and_all_targets(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    r = gno("skill", "install", "--scope", "user", "--target", "all", "--json")
    assert r.exit_code == 0, r.output
    home = tmp_path / "home"
    assert {d["target"]: d["path"] for d in json.loads(r.output)["dirs"]} == {
        "claude": str(tmp_path / "cc" / "skills" / "gno"),
        "codex": str(home / ".codex" / "skills" / "gno"),
        "opencode": str(home / ".config" / "opencode" / "skills" / "gno"),
        "openclaw": str(home / ".openclaw" / "skills" / "gno"),
        "hermes": str(home / ".hermes" / "skills" / "gno"),
    }
    assert not (project / ".claude").exists()


def test_show(project: Path) -> None:
    r = gno("skill", "show")
    assert r.exit_code == 0 and r.output.startswith("---\nname: gno\n")
    r = gno("skill", "show", "--file", "recipes/memory-supersede-fact.md")
    assert "--predecessor-hash" in r.output
    r = gno("skill", "show", "--file", "nope.md")
    assert r.exit_code == 1 and "recipes/memory-scoped-recall.md" in r.output
    assert not (project / ".claude").exists()


# -- the recipes are real ------------------------------------------------------------------------
def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def gno_lines(block: str) -> list[list[str]]:
    """Each `gno …` command of a bash block (continuations joined, shell syntax stripped)."""
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        line = line.split(" || ")[0].split(" > ")[0].strip()
        if line.startswith("gno "):
            out.append(shlex.split(line, comments=True)[1:])
    return out


@pytest.mark.parametrize("name", ["examples.md", *(f"recipes/{r}" for r in RECIPES)])
def test_every_documented_command_parses(name: str) -> None:
    text = (SKILL / name).read_text()
    commands = [c for b in bash_blocks(text) for c in gno_lines(b)]
    assert commands, name
    known = set(cli.list_commands(click.Context(cli)))
    for args in commands:
        if args[0] not in known:  # evidence rungs, documented as "when your gno has them"
            assert name == "examples.md" and args[0] in {"context", "changes", "diff", "impact", "ask"}, args
            continue
        r = gno(*args, "--help")
        assert r.exit_code == 0, (args, r.output)
        assert "Usage:" in r.output


def _memory_home(tmp_path: Path) -> dict[str, str]:
    """A gno home with `memory` (memoryManaged) and `notes` collections, as the recipes assume."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "hello.md").write_text("# Hello\n\nA first note.\n")
    assert gno("init").exit_code == 0
    assert gno("collection", "add", str(tmp_path / "memory"), "--name", "memory", "--memory").exit_code == 0
    assert gno("collection", "add", str(tmp_path / "notes"), "--name", "notes").exit_code == 0
    assert gno("update").exit_code == 0
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(GNO_MEMORY_CALLER="recipe-test", GNO_MEMORY_SESSION="recipe-session", HF_HUB_OFFLINE="1")
    return env


@pytest.mark.parametrize("recipe", RECIPES)
def test_recipe_runs_as_written(recipe: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = _memory_home(tmp_path)
    script = "set -euo pipefail\n" + "\n".join(bash_blocks((SKILL / "recipes" / recipe).read_text()))
    cp = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert cp.returncode == 0, cp.stdout[-3000:] + cp.stderr[-3000:]
    if recipe == "memory-supersede-fact.md":
        last_recall = cp.stdout.rsplit("Superseded:", 1)[1]
        assert "- Prod deploys from release branches" in last_recall
        assert "- Prod deploys from the main branch" not in last_recall, "the old fact is no longer current"
    if recipe == "memory-scoped-recall.md":
        assert "refused: that text came from the recall" in cp.stdout
        assert "MEMORY_FENCED_REPLAY" in cp.stderr
    if recipe == "memory-file-decision.md":
        assert "The event store runs on PostgreSQL" in cp.stdout


def test_the_mcp_reference_is_what_the_mcp_server_lists(tmp_path: Path) -> None:
    """The reference is built from the capability table without the MCP SDK (the skill installs
    without the serve extra); the real server's `tools/list` must say exactly the same."""
    import anyio

    from gno.agents.skill import mcp_tools
    from gno.config import build_settings
    from gno.engine import Engine
    from gno.mcp.server import WRITE_TOOLS, build_mcp

    env = dict.fromkeys(("HOME", "GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR"), str(tmp_path))
    engine = Engine(build_settings(env=env))
    try:
        listed = anyio.run(build_mcp(engine, enable_write=True, instance_id="t").list_tools)
    finally:
        engine.close()
    served = sorted((str(t.name), t.description, t.input_schema, t.name in WRITE_TOOLS) for t in listed)
    assert sorted(mcp_tools()) == served and len(served) >= 20
