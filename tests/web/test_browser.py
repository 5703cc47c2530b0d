"""The Web UI in a real browser: Debian's chromium driven by Playwright against `gno serve`.

One real `gno serve` subprocess per module, on a free loopback port, over a copy of the fixture
corpus in its own gno home. The flows are the ones a user depends on: search → open → edit →
save → the new text is searchable; a save over a file that changed meanwhile shows a conflict
and leaves the file alone; capture creates a note; status syncs. Every request the page makes
is recorded, and none may leave the server's origin.

Skipped only when /usr/bin/chromium is missing, and then only outside CI (CI installs it:
`apt-get install -y chromium`; under `CI=true` a missing browser fails the run).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from components import missing_component
from servers import announced_port, file_reader

CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    missing_component("chromium is not installed (apt-get install -y chromium)", module_level=True)

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
OLD_FACT = "The quorlax review meets in room four"
NEW_FACT = "The quorlax review meets in room seven"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@dataclass
class Server:
    base: str
    notes: Path
    env: dict[str, str]
    requests: list[str] = field(default_factory=list)
    superseded: tuple[str, str] = ("", "")  # (old fact uri, the fact that replaced it)

    def gno(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gno", *args], env=self.env, capture_output=True, text=True, timeout=120
        )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("web-ui")
    notes = root / "notes"
    shutil.copytree(FIXTURES, notes)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(
        GNO_CONFIG_DIR=str(root / "config"),
        GNO_DATA_DIR=str(root / "data"),
        GNO_CACHE_DIR=str(root / "cache"),
        HOME=str(root),
        HF_HUB_OFFLINE="1",
        NO_COLOR="1",
    )
    srv = Server("", notes, env)
    (root / "memory").mkdir()
    for args in (
        ("init",),
        ("collection", "add", str(notes), "--name", "notes"),
        ("collection", "add", str(root / "memory"), "--name", "memory", "--memory"),
        ("update",),
    ):
        cp = srv.gno(*args)
        assert cp.returncode == 0, cp.stderr
    ident = ("--scope", "team", "--caller", "web-test", "--session", "s1", "--json")
    old = json.loads(srv.gno("remember", OLD_FACT, "--add", *ident).stdout)["record"]
    new = srv.gno("remember", NEW_FACT, "--supersede", old["uri"], "--predecessor-hash", old["contentHash"], *ident)
    assert json.loads(new.stdout)["outcome"] == "superseded", new.stdout + new.stderr
    srv.superseded = (old["uri"], json.loads(new.stdout)["record"]["uri"])
    log = (root / "serve.log").open("w")
    proc = subprocess.Popen(
        # --no-watch: these tests drive the Sync button; the watcher has its own tests (tests/daemon)
        [sys.executable, "-m", "gno", "serve", "--port", "0", "--no-watch"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:  # the port the server bound (--port 0): no race for a port picked in advance
        srv.base = f"http://127.0.0.1:{announced_port(proc, file_reader(root / 'serve.log'))}"
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(srv.base + "/api/health", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("gno serve did not start: " + (root / "serve.log").read_text()) from None
                time.sleep(0.1)
        yield srv
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(15000)
    pg.on("request", lambda req: server.requests.append(req.url))
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    ctx.close()
    assert not errors, errors
    foreign = [u for u in server.requests if not u.startswith(server.base + "/")]
    assert not foreign, f"requests left the origin: {foreign}"


def search(page: Page, text: str) -> None:
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def test_search_open_edit_save_then_search_finds_the_new_text(page: Page, server: Server) -> None:
    page.goto(server.base + "/")
    search(page, "revert job")
    first = page.locator(".result h3 a").first
    expect(first).to_have_text("Rollback")
    first.click()
    expect(page.locator("#doc-body h1")).to_have_text("Rollback")
    expect(page.locator("#doc-uri")).to_have_text("gno://notes/rollback.md")
    expect(page.locator(".side")).to_contain_text("Deploy process")  # backlink from deploy.md
    page.click("#edit-link")
    editor = page.locator("#editor")
    expect(editor).to_have_value((server.notes / "rollback.md").read_text())
    editor.press("End")
    editor.fill(editor.input_value() + "\nThe quokkaflux drill runs monthly.\n")
    page.click("#save")
    expect(page.locator("#doc-body")).to_contain_text("quokkaflux drill")
    assert page.url.startswith(server.base + "/doc?uri=")
    assert "The quokkaflux drill runs monthly." in (server.notes / "rollback.md").read_text()
    page.fill("#q", "quokkaflux")
    page.keyboard.press("Enter")
    expect(page.locator(".result h3 a").first).to_have_text("Rollback")
    expect(page.locator("#result-count")).to_contain_text("1 of 1")


def test_a_conflicting_save_shows_a_conflict_and_does_not_overwrite(page: Page, server: Server) -> None:
    target = server.notes / "projects" / "languages.md"
    page.goto(server.base + "/edit?uri=" + "gno://notes/projects/languages.md")
    editor = page.locator("#editor")
    expect(editor).to_have_value(target.read_text())
    theirs = target.read_text() + "\nChanged by someone else on disk.\n"
    target.write_text(theirs)
    editor.fill("# Languages\n\nMy edit from the browser.\n")
    page.click("#save")
    expect(page.locator("#conflict")).to_contain_text("changed on disk")
    assert target.read_text() == theirs
    assert "/edit?uri=" in page.url
    expect(editor).to_have_value("# Languages\n\nMy edit from the browser.\n")  # the user's text survives
    page.click("#conflict button")
    expect(editor).to_have_value(theirs)


def test_a_change_that_was_reindexed_meanwhile_is_still_a_conflict(page: Page, server: Server) -> None:
    target = server.notes / "archive" / "old.md"
    page.goto(server.base + "/edit?uri=" + "gno://notes/archive/old.md")
    editor = page.locator("#editor")
    expect(editor).to_have_value(target.read_text())
    theirs = target.read_text() + "\nSynced edit from another machine.\n"
    target.write_text(theirs)
    assert server.gno("update").returncode == 0  # the docid the editor holds is gone now
    editor.fill("# Old notes\n\nMine.\n")
    page.click("#save")
    expect(page.locator("#conflict")).to_be_visible()
    assert target.read_text() == theirs


def test_capture_creates_a_note(page: Page, server: Server) -> None:
    page.goto(server.base + "/capture")
    page.fill("#cap-title", "Zebra standup")
    page.fill("#cap-tags", "meeting, zebra")
    page.fill("#cap-content", "# Zebra standup\n\nWe agreed the xylograph rollout starts Monday.\n")
    page.click("#cap-submit")
    link = page.locator("#cap-link")
    expect(link).to_contain_text("gno://notes/")
    created = list(server.notes.rglob("*.md"))
    assert any("xylograph rollout" in p.read_text() for p in created)
    link.click()
    expect(page.locator("#doc-body")).to_contain_text("xylograph rollout starts Monday")
    expect(page.locator(".doc-head .facets")).to_contain_text("#zebra")
    search(page, "xylograph")
    expect(page.locator(".result h3 a").first).to_have_text("Zebra standup")


def test_status_page_syncs(page: Page, server: Server) -> None:
    (server.notes / "synced-later.md").write_text("# Synced later\n\nA note the index has not seen.\n")
    page.goto(server.base + "/status")
    expect(page.locator("#status-collections")).to_contain_text("notes")
    page.click("#sync-now")
    expect(page.locator("#flash")).to_contain_text("1 added")
    cp = server.gno("search", "index has not seen", "--files")
    assert "synced-later.md" in cp.stdout


def test_browse_filters_and_safe_markdown(page: Page, server: Server) -> None:
    (server.notes / "unsafe.md").write_text(
        "# Unsafe\n\n<script>window.pwned = 1</script>\n\n[click](javascript:window.pwned=2) and "
        '<img src=x onerror="window.pwned=3"> and [[rollback]] and [ext](https://example.com/x)\n\n'
        "- [ ] todo\n- **bold** `code`\n\n```\n<b>not bold</b>\n```\n"
    )
    assert server.gno("update").returncode == 0
    page.goto(server.base + "/browse?c=notes")
    page.click("text=Unsafe")
    body = page.locator("#doc-body")
    expect(body.locator("h1")).to_have_text("Unsafe")
    assert page.evaluate("window.pwned") is None
    assert body.locator("script").count() == 0 and body.locator("img").count() == 0
    assert body.locator("a[href^='javascript']").count() == 0
    expect(body.locator("a.wikilink")).to_have_attribute("href", "/doc?uri=" + "gno%3A%2F%2Fnotes%2Frollback.md")
    expect(body.locator("a[href='https://example.com/x']")).to_have_attribute("rel", "noopener noreferrer")
    expect(body.locator("pre code")).to_have_text("<b>not bold</b>")
    expect(body.locator("strong")).to_have_text("bold")
    page.click("a.wikilink")
    expect(page.locator("#doc-uri")).to_have_text("gno://notes/rollback.md")


def test_a_superseded_fact_is_marked_in_the_results(page: Page, server: Server) -> None:
    old_uri, new_uri = server.superseded
    page.goto(server.base + "/")
    search(page, "quorlax review")
    results = page.locator(".result")
    expect(results).to_have_count(2)
    old = results.filter(has_text=old_uri)
    expect(old.locator(".superseded")).to_have_text("superseded")
    expect(old.locator(".superseded-by a")).to_have_text(new_uri)
    expect(results.filter(has_text="room seven").locator(".superseded")).to_have_count(0)
    old.locator(".superseded-by a").click()
    expect(page.locator("#doc-uri")).to_have_text(new_uri)


def test_mode_collection_and_tag_filters(page: Page, server: Server) -> None:
    page.goto(server.base + "/")
    expect(page.locator("#collection option[value='notes']")).to_have_count(1)
    page.select_option("#mode", "hybrid")
    page.select_option("#collection", "notes")
    page.fill("#tags", "release")
    page.fill("#q", "deploy")
    page.press("#q", "Enter")
    expect(page.locator(".result h3 a")).to_have_text(["Deploy process"])
    assert "mode=hybrid" in page.url and "c=notes" in page.url and "tags=release" in page.url
    page.fill("#tags", "")
    page.select_option("#mode", "lexical")
    expect(page.locator(".result")).not_to_have_count(1)
    page.locator(".facets .tag", has_text="#release").first.click()
    expect(page.locator(".result h3 a")).to_have_text(["Deploy process"])
    assert "tags=release" in page.url


def test_a_vault_note_renders_its_dialect_and_lists_each_link_once(page: Page, server: Server) -> None:
    """Obsidian-style syntax renders (callouts, embeds, block refs, highlights, footnotes, tables,
    task lists), the sidebar lists each linked page once, and search snippets read as text."""
    folder = server.notes / "Linking notes"
    folder.mkdir(exist_ok=True)
    (folder / "Internal links.md").write_text(
        "# Internal links\n\n"
        "> [!tip]- Aliases help\n> Write [[Views and editing|an alias]] for ==the zebrafinch== words.\n\n"
        "> [!warning]\n> Renames rewrite [[Views and editing]].\n\n"
        "A block worth citing. ^b15695\n\n"
        "See [[#Internal links]], [[Views and editing#Modes]] and [[Views and editing]] again.\n\n"
        "![[Views and editing#^modes-block]]\n\n"
        "| Syntax | Result |\n| --- | --- |\n| `[[x]]` | link |\n\n"
        "- [ ] open task\n- [x] done task\n\n"
        "A claim.[^1]\n\n[^1]: The footnote text.\n",
        encoding="utf-8",
    )
    (server.notes / "Views and editing.md").write_text(
        "# Views and editing\n\n## Modes\n\nReading mode. ^modes-block\n\n"
        "Back to [[Internal links]], [[Internal links#Internal links]] and [[Internal links|links]].\n",
        encoding="utf-8",
    )
    assert server.gno("update").returncode == 0
    page.goto(server.base + "/doc?uri=" + "gno%3A%2F%2Fnotes%2FLinking%2520notes%2FInternal%2520links.md")
    body = page.locator("#doc-body")
    expect(page.locator("#doc-uri")).to_have_text("gno://notes/Linking notes/Internal links.md")
    tip = body.locator("details.callout-tip")
    expect(tip.locator("summary")).to_have_text("Aliases help")
    expect(body.locator(".callout-warning .callout-title")).to_have_text("Warning")
    expect(body.locator("mark")).to_have_text("the zebrafinch")
    expect(body.locator("#\\^b15695")).to_have_text("A block worth citing.")
    expect(body.locator(".embed a")).to_have_attribute(
        "href", "/doc?uri=gno%3A%2F%2Fnotes%2FViews%2520and%2520editing.md#^modes-block"
    )
    expect(body.locator("a.wikilink", has_text="Internal links").first).to_have_attribute("href", "#internal-links")
    expect(body.locator("table td").first).to_have_text("[[x]]")
    expect(body.locator("input.task-list-item-checkbox")).to_have_count(2)
    expect(body.locator(".footnotes")).to_contain_text("The footnote text.")
    text = body.inner_text()
    for raw in ("[!tip]", "[!warning]", "==", "^b15695", "![[", "[[Views"):
        assert raw not in text, (raw, text)
    links = page.locator(".side section", has=page.locator("h2", has_text=re.compile("^Links$"))).locator("li")
    expect(links).to_have_text(["Views and editing"])  # four links to one page: listed once
    page.goto(server.base + "/doc?uri=" + "gno%3A%2F%2Fnotes%2FViews%2520and%2520editing.md")
    backlinks = page.locator(".side section", has=page.locator("h2", has_text=re.compile("^Backlinks$"))).locator("li")
    expect(backlinks).to_have_text(["Internal links"])  # three links from one page: one backlink
    page.screenshot(path=str(server.notes.parent / "vault-note.png"), full_page=True)
    search(page, "zebrafinch")
    snippet = page.locator(".result .snippet").first
    expect(snippet).to_contain_text("Write an alias for the zebrafinch words.")
    for raw in ("[[", "]]", "==", "[!tip]", "> "):
        assert raw not in snippet.inner_text()
    expect(page.locator(".result .uri").first).to_have_text("gno://notes/Linking notes/Internal links.md:4")


def test_the_graph_view_draws_filters_highlights_and_opens_notes(page: Page, server: Server) -> None:
    """The graph page draws `GET /api/graph` with the vendored library (from this origin): every node the
    API returns is on the canvas, the collection and tag filters hide nodes, `?uri=` highlights a note's
    neighbourhood, and a click on a node opens its note."""
    vault = server.notes / "Graph vault"
    vault.mkdir(exist_ok=True)
    (vault / "Hub.md").write_text(
        "---\ntags: [graphhub]\n---\n# Hub\n\nSee [[Spoke one]], [[Spoke two]] and [three](Spoke%20three.md).\n"
    )
    for name in ("one", "two", "three"):
        back = "Back to [[Hub]].\n" if name == "one" else ""
        (vault / f"Spoke {name}.md").write_text(f"---\ntags: [spoke]\n---\n# Spoke {name}\n\n{back}")
    assert server.gno("update").returncode == 0
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    page.goto(server.base + "/graph")
    expect(page.locator("body")).to_have_attribute("data-graph-ready", "1")
    api = page.evaluate("fetch('/api/graph?limit=500').then((r) => r.json())")
    drawn = page.evaluate("window.gnoGraph.cy.nodes().map((n) => n.id())")
    assert sorted(drawn) == sorted(n["uri"] for n in api["nodes"]) and len(drawn) >= 6
    hub = "gno://notes/Graph%20vault/Hub.md"
    spokes = [f"gno://notes/Graph%20vault/Spoke%20{n}.md" for n in ("one", "two", "three")]
    assert {hub, *spokes} <= set(drawn)
    assert page.evaluate("window.gnoGraph.cy.edges().length") == len(api["edges"]) > 0
    box = page.locator("#graph").bounding_box()
    assert box is not None
    spots = page.evaluate("window.gnoGraph.cy.nodes().map((n) => [n.renderedPosition().x, n.renderedPosition().y])")
    assert len({(round(x), round(y)) for x, y in spots}) == len(spots)  # laid out, not piled up
    assert all(0 <= x <= box["width"] and 0 <= y <= box["height"] for x, y in spots)
    assert any("/api/graph?" in u for u in server.requests)  # the public route, not a private one
    assert any(u.endswith("/static/vendor/cytoscape.min.js") for u in server.requests)

    visible = "window.gnoGraph.cy.nodes().filter((n) => n.visible()).length"

    def shows(n: int) -> None:
        """Cytoscape applies a filter's style on its own schedule: wait for the count, then hold it."""
        for _ in range(100):  # at most 5 s; page.wait_for_function would evaluate a string, which the CSP refuses
            if page.evaluate(visible) == n:
                break
            page.wait_for_timeout(50)
        assert page.evaluate(visible) == n

    page.select_option("#graph-tag", "spoke")
    shows(3)
    expect(page.locator("#graph-count")).to_contain_text("3 notes")
    assert "tag=spoke" in page.url
    page.select_option("#graph-tag", "")
    memory = [n for n in api["nodes"] if n["collection"] == "memory"]
    assert memory, "the superseded fact's relation puts the memory collection in the graph"
    page.select_option("#graph-collection", "notes")
    shows(len(drawn) - len(memory))
    page.select_option("#graph-collection", "memory")
    shows(len(memory))

    page.goto(server.base + "/graph?uri=" + hub.replace("%", "%25"))
    expect(page.locator("body")).to_have_attribute("data-graph-ready", "1")
    near = page.evaluate("window.gnoGraph.cy.nodes('.near').map((n) => n.id())")
    assert sorted(near) == sorted(spokes)
    assert page.evaluate(f"window.gnoGraph.cy.getElementById({json.dumps(hub)}).hasClass('focus')")
    assert page.evaluate("window.gnoGraph.cy.nodes('.faded').length") == len(drawn) - 4
    expect(page.locator("#graph-neighbours li")).to_have_count(3)
    shot = server.notes.parent / "graph-view.png"
    page.locator("#graph").screenshot(path=str(shot))
    assert shot.stat().st_size > 8000
    inked = page.evaluate(
        """() => { let n = 0; const colours = new Set();
        for (const c of document.querySelectorAll('#graph canvas')) {
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          for (let i = 0; i < d.length; i += 4) {
            if (d[i + 3] > 0) { n++; colours.add(d[i] << 16 | d[i + 1] << 8 | d[i + 2]); }
          }
        } return [n, colours.size]; }"""
    )
    assert inked[0] > 2000 and inked[1] > 8, inked  # nodes, edges and labels drawn, not a blank canvas

    box = page.locator("#graph").bounding_box()
    assert box is not None
    where = f"window.gnoGraph.cy.getElementById({json.dumps(spokes[1])}).renderedPosition()"
    assert not console, console  # nothing refused by the CSP (the library's inline style is pre-empted)
    x, y = page.evaluate(f"(() => {{ const p = {where}; return [p.x, p.y]; }})()")
    page.mouse.click(box["x"] + x, box["y"] + y)
    expect(page.locator("#doc-uri")).to_have_text("gno://notes/Graph vault/Spoke two.md")
    page.click("#graph-link")
    expect(page.locator("body")).to_have_attribute("data-graph-ready", "1")
    assert page.evaluate("window.gnoGraph.cy.nodes('.focus').map((n) => n.id())") == [spokes[1]]
