"""Take the screenshots the README shows of the Web UI: search results, document, editor, capture, status, graph.

Why a script: screenshots rot. This one rebuilds them from the real app on a real collection
(the dwarves-brain vault from ../shared/datasets when present, else gno's bundled sample notes)
in a throwaway gno home, with Debian's chromium driven by Playwright, so refreshing them after
a UI change is one command:

    python scripts/screenshots.py [--out docs/screenshots] [--dataset PATH]

Nothing outside the temp home is written except the PNG files.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
DWARVES = ROOT.parent / "shared" / "datasets" / "dwarves-brain"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def gno_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(
        GNO_CONFIG_DIR=str(home / "config"),
        GNO_DATA_DIR=str(home / "data"),
        GNO_CACHE_DIR=str(home / "cache"),
        HF_HUB_OFFLINE="1",
        NO_COLOR="1",
    )
    return env


def gno(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "-m", "gno", *args], env=env, check=True, capture_output=True, text=True)


def serve(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gno", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2)
            return proc
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("gno serve did not start")


def shoot(page: Page, out: Path, name: str) -> None:
    page.wait_for_timeout(150)
    page.screenshot(path=str(out / f"{name}.png"), full_page=False)
    print(f"wrote {out / name}.png")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    ap.add_argument("--dataset", default=str(DWARVES if DWARVES.is_dir() else ROOT / "src" / "gno" / "sample"))
    ap.add_argument("--query", default="vector database")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gno-shots-") as tmp:
        home = Path(tmp)
        notes = home / "notes"
        shutil.copytree(args.dataset, notes)
        env = gno_env(home)
        gno(env, "init")
        gno(env, "collection", "add", str(notes), "--name", "brain")
        gno(env, "update")
        port = free_port()
        proc = serve(env, port)
        base = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(base + "/")
                page.keyboard.press("/")
                page.keyboard.type(args.query)
                page.keyboard.press("Enter")
                page.wait_for_selector(".result")
                shoot(page, out, "search")
                page.click(".result h3 a")
                page.wait_for_selector("#doc-body")
                shoot(page, out, "document")
                page.click("#edit-link")
                page.wait_for_selector("#editor")
                shoot(page, out, "editor")
                page.goto(base + "/capture")
                page.wait_for_selector("#capture-form")
                page.fill("#cap-title", "Design review notes")
                page.fill("#cap-tags", "meeting, design")
                page.fill("#cap-content", "# Design review\n\n- Agreed on the [[Vector Database]] shortlist.\n")
                shoot(page, out, "capture")
                page.goto(base + "/status")
                page.wait_for_selector("#status-collections")
                shoot(page, out, "status")
                page.goto(base + "/graph")
                page.wait_for_selector("body[data-graph-ready='1']")
                shoot(page, out, "graph")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
