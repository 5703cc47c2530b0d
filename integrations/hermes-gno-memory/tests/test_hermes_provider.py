"""The gno provider inside the real Hermes Agent (hermes-agent from PyPI).

Each test installs the plugin into a temporary HERMES_HOME, selects it with `memory.provider:
gno`, and runs `hermes -z` (Hermes's own one-shot turn: config loading, plugin discovery,
MemoryManager, prefetch injection, tool dispatch) against a real `gno` with its own temporary
home. Only the language model is scripted (see fake_llm.py), and the test reads what Hermes sent
it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

from fake_llm import fake_llm, final, tool_call
from harness import PLUGIN_DIR, Env, copy_plugin

SEED = "Prod deploys from main only"


def _tool_results(request: dict) -> list[dict]:
    return [json.loads(m["content"]) for m in request["messages"] if m.get("role") == "tool"]


def _user_text(request: dict) -> str:
    return "\n".join(str(m.get("content")) for m in request["messages"] if m.get("role") == "user")


def _tools(request: dict) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools", [])}


def test_installed_with_hermes_plugins_install_and_discovered(env: Env, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["cp", "-r", str(PLUGIN_DIR.parent), str(repo / "hermes-gno-memory")], check=True)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "plugin"], check=True)
    cp = subprocess.run(
        [env.hermes, "plugins", "install", f"file://{repo}#hermes-gno-memory/hermes_gno_memory", "--enable"],
        env=env.env, capture_output=True, text=True, timeout=300,
    )
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert (env.hermes_home / "plugins" / "gno" / "plugin.yaml").exists()
    env.write_config("http://127.0.0.1:9/v1")
    probe = (
        "from plugins.memory import discover_memory_providers, load_memory_provider\n"
        "import json\n"
        "found = {n: a for n, _, a in discover_memory_providers()}\n"
        "p = load_memory_provider('gno')\n"
        "print(json.dumps({'available': found.get('gno'), 'name': p.name, 'cls': type(p).__mro__[1].__name__}))\n"
    )
    hermes_python = str(Path(env.hermes).resolve().parent / "python")
    out = subprocess.run([hermes_python, "-c", probe], env=env.env, capture_output=True, text=True, timeout=120)
    probed = json.loads(out.stdout.strip().splitlines()[-1])
    assert probed == {"available": True, "name": "gno", "cls": "MemoryProvider"}


def test_prefetch_remember_fence_and_no_builtin_writes(env: Env) -> None:
    copy_plugin(env.hermes_home)
    seeded = env.gno_json("remember", SEED, "--scope", "project:test", "--add")
    assert seeded["outcome"] == "added"
    script = [
        tool_call("gno_remember", {"text": "The staging database is db-7"}),  # propose
        tool_call("gno_remember", {"text": "The staging database is db-7", "decision": "add"}),
        tool_call("gno_remember", {"text": SEED, "decision": "add"}),  # replay of a recalled fact
        tool_call("memory", {"action": "add", "target": "memory", "content": "User likes tea"}),  # Hermes builtin
        final("done"),
    ]
    with fake_llm(script) as (url, llm):
        env.write_config(url)
        cp = env.hermes_run("Where do prod deploys come from? Also, the staging db is db-7.")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert cp.stdout.strip() == "done"
    first = llm.requests[0]
    assert "gno_remember" in _tools(first)
    assert "<memory-context>" in _user_text(first) and SEED in _user_text(first)  # answered on the first turn
    assert seeded["record"]["uri"] in _user_text(first)
    results = _tool_results(llm.requests[-1])
    propose, added, fenced = results[:3]
    assert propose["outcome"] == "candidates" and "record" not in propose
    assert added["outcome"] == "added" and added["record"]["scopes"] == ["project:test"]
    assert added["record"]["caller"].startswith("hermes:") and added["sync"]["status"] == "completed"
    assert fenced["error"]["code"] == "MEMORY_FENCED_REPLAY"
    facts = env.facts()
    assert len(facts) == 2  # the seed and the one explicit add; Hermes's own memory tool wrote elsewhere
    assert not any("tea" in f.read_text() for f in facts)
    recall = env.gno_json("recall", "staging database", "--scope", "project:test")
    assert [f["text"] for f in recall["facts"]] == ["The staging database is db-7"]


def test_supersede_through_the_tool(env: Env) -> None:
    copy_plugin(env.hermes_home)
    old = env.gno_json("remember", SEED, "--scope", "project:test", "--add")["record"]
    script = [
        tool_call("gno_remember", {
            "text": "Prod deploys from release branches",
            "decision": "supersede",
            "predecessor_uri": old["uri"],
            "predecessor_hash": old["contentHash"],
        }),
        final("superseded"),
    ]
    with fake_llm(script) as (url, llm):
        env.write_config(url)
        cp = env.hermes_run("Prod now deploys from release branches.")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    (result,) = _tool_results(llm.requests[-1])
    assert result["outcome"] == "superseded", result
    facts = env.gno_json("recall", "prod deploys", "--scope", "project:test")["facts"]
    assert [f["text"] for f in facts] == ["Prod deploys from release branches"]


def _fake_gno(bin_dir: Path, body: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    p = bin_dir / "gno"
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IEXEC)


def test_session_continues_when_gno_is_missing_old_or_broken(env: Env, tmp_path: Path) -> None:
    copy_plugin(env.hermes_home)
    env.gno_json("remember", SEED, "--scope", "project:test", "--add")
    # hermes runs by its absolute path (its venv may hold gno too): no PATH entry may lead to gno
    bare_path = os.pathsep.join(p for p in env.env["PATH"].split(os.pathsep) if not (Path(p) / "gno").exists())
    cases = {  # below the pin is covered without Hermes in test_gnocli.py
        "missing": None,
        "malformed JSON": 'case "$1" in --version) echo "gno, version 9.9.9";; *) echo "<html>oops";; esac\n',
    }
    for name, script_body in cases.items():
        path = bare_path
        if script_body is not None:
            fake_dir = tmp_path / name.replace(" ", "-")
            _fake_gno(fake_dir, script_body)
            path = str(fake_dir) + os.pathsep + path
        with fake_llm([final("fine without memory")]) as (url, llm):
            env.write_config(url)
            cp = env.hermes_run("Where do prod deploys come from?", env={**env.env, "PATH": path})
        assert cp.returncode == 0, (name, cp.stdout + cp.stderr)
        assert cp.stdout.strip() == "fine without memory", name
        first = llm.requests[0]
        assert SEED not in _user_text(first), name
        if name == "malformed JSON":  # available at start, then reported unavailable, no context injected
            assert "<memory-context>" not in _user_text(first)
        else:
            assert "gno_remember" not in _tools(first), name
