"""A new user, walking the README as printed, on a vault nobody here wrote.

A temp copy of `../shared/datasets/silverbullet-docs` (the SilverBullet manual: 225 notes, page
names with spaces and folders, wikilinks, front matter) is `~/notes` in a scratch HOME. One bash
shell per README block runs its lines verbatim with the `gno` of this checkout on PATH: the quick
start's `gno demo`, the own-notes block, the memory-in-the-vault and MCP block, then the Memory
section's remember/recall/supersede block (its `…` and `<contentHash>` placeholders filled from the
saved recall, as a reader would). The printed MCP configuration is then started exactly as a
client would start it (command, args, env) and driven by the MCP SDK's stdio client, and `gno
serve` (on a free port instead of 3000) is opened in Chromium for a screenshot of a note.

Everything a person reads must be clean: no traceback, no pydantic text, no `%20` in human
output (JSON keeps exact URIs), every command exit 0.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from components import missing_component
from servers import announced_port, file_reader

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DATASET = ROOT.parent / "shared" / "datasets" / "silverbullet-docs" / "docs"
CHROMIUM = "/usr/bin/chromium"
WIKILINK = re.compile(r"\[\[[^\]`\n]")  # a link as written (`[[` alone, in code, is the manual's text)
BAD = ("Traceback", "pydantic", "validation error", "%20")


def bash_blocks(section: str) -> list[str]:
    body = README.split(section, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", body, flags=re.S)


class NewUser:
    def __init__(self, tmp: Path) -> None:
        self.home = tmp / "home"
        self.notes = self.home / "notes"
        shutil.copytree(DATASET, self.notes)
        bin_dir = Path(sys.executable).parent
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "VIRTUAL_ENV"))}
        env.update(HOME=str(self.home), NO_COLOR="1", PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}")
        env["TMPDIR"] = str(tmp / "tmp")
        (tmp / "tmp").mkdir()
        self.env = env
        self.transcript: list[str] = []

    def shell(self, line: str) -> str:
        """One README line in bash, as a person types it; human output checked line by line."""
        cp = subprocess.run(
            ["bash", "-c", line], env=self.env, cwd=self.home, capture_output=True, text=True, timeout=180, check=False
        )
        out = cp.stdout + cp.stderr
        self.transcript.append(f"$ {line}\n{out}")
        assert cp.returncode == 0, (line, out)
        human = out if "--json" not in line else cp.stderr
        for bad in BAD:
            assert bad not in human, (line, bad, out)
        return cp.stdout


@pytest.fixture
def user(tmp_path: Path) -> NewUser:
    if not DATASET.is_dir():
        missing_component(f"the SilverBullet vault is not at {DATASET}")
    return NewUser(tmp_path)


def test_a_new_user_walks_the_readme_on_a_vault_nobody_here_wrote(
    user: NewUser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick = bash_blocks("## Quick start")
    demo = quick[0].splitlines()[0].split("   #", 1)[0].rsplit("&&", 1)[1].strip()
    assert demo == "gno demo"
    out = user.shell(demo)
    assert "Added: " in out and "(1 facts, " in out
    assert list((tmp_path / "tmp").iterdir()) == []  # the demo cleaned up after itself

    own, agents = quick[1], quick[2]
    for line in own.strip().splitlines():
        out = user.shell(line)
    assert "1. " in out  # `gno search "deploy staging"` finds something in the manual
    for line in agents.strip().splitlines():
        out = user.shell(line)
    config = json.loads(out)["mcpServers"]["gno"]  # `gno mcp config` prints what a client pastes
    assert (user.notes / "memory" / "facts").is_dir()

    status = user.shell("gno status")
    assert "notes: 225 active" in status and "memory [memory]: 1 active" in status
    hits = json.loads(user.shell('gno search "Prod deploys from main only" --json'))["results"]
    assert [h["collection"] for h in hits if "mem-" in h["uri"]] == ["memory"]  # the fact indexed once

    memory = bash_blocks("## Memory")[0]
    lines = [ln for ln in memory.replace("\\\n", " ").splitlines() if ln.strip()]
    for line in lines[:3]:
        user.shell(line)
    recall = json.loads((user.home / "recall.json").read_text(encoding="utf-8"))
    fact = recall["facts"][0]
    supersede = lines[3].replace("gno://memory/facts/2026-11-30/mem-….md", fact["uri"])
    out = user.shell(supersede.replace("<contentHash>", fact["contentHash"]))
    assert out.startswith("Superseded: Prod deploys from release branches")

    # human output of a page whose name has spaces reads as the name
    out = user.shell('gno search "aspiring page"')
    assert "gno://notes/Aspiring Pages.md" in out
    user.shell('gno get "gno://notes/Aspiring Pages.md" -l 3')
    user.shell('gno impact "notes/Aspiring Pages.md"')

    # the user's MCP client runs in the user's HOME and hands a server the SDK's default environment
    # (HOME, PATH, …) plus the configuration's own `env`
    monkeypatch.setenv("HOME", str(user.home))
    asyncio.run(_mcp_as_configured(config, user))
    _web_ui(user, tmp_path)


async def _mcp_as_configured(config: dict[str, Any], user: NewUser) -> None:
    """The printed configuration, started as an MCP client starts it: its command, args and env only."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    import gno

    params = StdioServerParameters(command=config["command"], args=config["args"], env=config.get("env"))
    with (user.home / "mcp.log").open("w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w), ClientSession(r, w) as sess:
            init = await sess.initialize()
            assert (init.server_info.name, init.server_info.version) == ("gno", gno.__version__)
            found = await sess.call_tool("gno_search", {"query": "aspiring page"})
            assert not found.is_error and found.structured_content is not None
            assert "gno://notes/Aspiring%20Pages.md" in [h["uri"] for h in found.structured_content["results"]]
            recalled = await sess.call_tool("gno_recall", {"query": "deploys", "scopes": ["project:notes"]})
            assert not recalled.is_error
            refused = await sess.call_tool("gno_recall", {"query": "deploys"})
            message = (refused.structured_content or {})["error"]["message"]
            assert refused.is_error and "`scopes`" in message and "--scope" not in message
    assert "Traceback" not in (user.home / "mcp.log").read_text(encoding="utf-8")


def _web_ui(user: NewUser, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        missing_component("chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            ["gno", "serve", "--port", "0", "--no-watch"], env=user.env, cwd=user.home, stdout=log, stderr=log
        )
    try:
        base = f"http://127.0.0.1:{announced_port(proc, file_reader(log_path))}"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/api/health", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, log_path.read_text()
                time.sleep(0.1)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(base + "/search?q=aspiring+pages")
            page.locator(".result h3 a").first.wait_for()
            results = page.locator("main").inner_text()
            assert "%20" not in results and not WIKILINK.search(results), results
            page.goto(base + "/doc?uri=" + urllib.request.quote("gno://notes/Aspiring%20Pages.md", safe=""))
            page.locator("#doc-body h1").first.wait_for()
            shot = tmp_path / "aspiring-pages.png"
            page.screenshot(path=str(shot), full_page=True)
            text = page.locator("main").inner_text()
            # the note's prose, without its code (where `[[link]]` is the manual's own example)
            prose = page.evaluate(
                "() => { const b = document.getElementById('doc-body').cloneNode(true);"
                " b.querySelectorAll('code, pre').forEach((n) => n.remove()); return b.innerText; }"
            )
            wikilinks = page.locator("#doc-body a.wikilink").count()
            browser.close()
        assert shot.stat().st_size > 10_000
        assert not errors, errors
        assert "gno://notes/Aspiring Pages.md" in text and "%20" not in text
        assert wikilinks >= 2 and not WIKILINK.search(prose.replace("${query[[", "")), prose
        assert "Traceback" not in text
    finally:
        proc.terminate()
        proc.wait(10)
    assert "Traceback" not in log_path.read_text()
