"""The README's quick start, run as printed from a clean clone (slow: a real `pip install`).

A `git clone` of this checkout into a temp folder, then one bash shell that runs the quick
start's first command verbatim and, in the same shell, the README's next block verbatim (`gno
init`, `gno collection add ~/notes …`, …). PATH holds no gno of the test's own venv, HOME is a
scratch home with a `~/notes` folder, so the block passes only if the first command really
leaves `gno` usable for what follows.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from components import missing_component

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

pytestmark = pytest.mark.slow


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def quick_start_commands() -> tuple[str, list[str]]:
    """The quick start's first command (its comment dropped) and the lines of the next block."""
    section = README.split("## Quick start", 1)[1]
    blocks = _bash_blocks(section)
    first = blocks[0].strip().splitlines()[0].split("   #", 1)[0].strip()
    follow = [ln for ln in blocks[1].strip().splitlines() if ln.strip()]
    return first, follow


def test_the_readme_names_a_first_command_and_a_next_block() -> None:
    first, follow = quick_start_commands()
    assert "pip install" in first and "gno demo" in first
    assert follow[0] == "gno init" and any(ln.startswith("gno search ") for ln in follow)
    assert "~/notes" in " ".join(follow)


def _clean_path() -> str:
    """PATH without this test run's venv (or any activated one): `gno` must come from the clone."""
    venvs = {Path(sys.prefix).resolve(), *(Path(v).resolve() for v in [os.environ.get("VIRTUAL_ENV")] if v)}
    keep = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not any(
        Path(p).resolve().is_relative_to(v) for v in venvs
    )]
    return os.pathsep.join(keep)


def test_quick_start_runs_as_printed_from_a_clean_clone(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        missing_component("the quick-start test clones the checkout: it needs git and a git checkout")
    clone = tmp_path / "gno"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "staging.md").write_text(
        "# Staging\n\nWe deploy staging from the release branch every Thursday.\n", encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "VIRTUAL_ENV", "PYTHONHOME"))}
    env.update(HOME=str(home), PATH=_clean_path(), TMPDIR=str(tmp_path), NO_COLOR="1")
    assert shutil.which("gno", path=env["PATH"]) is None, "a gno on PATH would hide a broken quick start"
    assert shutil.which("python3", path=env["PATH"]) is not None

    first, follow = quick_start_commands()
    script = "\n".join(["set -euo pipefail", first, 'echo "=== next block"', *follow])
    cp = subprocess.run(
        ["bash", "-c", script], cwd=clone, env=env, capture_output=True, text=True, timeout=1800
    )
    out = cp.stdout + cp.stderr
    assert cp.returncode == 0, out[-6000:]
    demo, _, after = cp.stdout.partition("=== next block")
    assert "Indexed 6 sample notes" in demo and "$ gno recall " in demo, demo[-3000:]
    assert "Added collection notes" in after, after
    assert "gno://notes/staging.md" in after, after  # `gno search "deploy staging"` found the note
    assert (home / ".config" / "gno" / "index.yml").is_file()  # the user's own config, by default paths
