"""`pip install gno` without extras, for real: a fresh venv, the commands a core user runs.

The venv is built once per test session (shared by the xdist workers under a file lock) from
this checkout, non-editable, so it is exactly what a user gets: the core dependencies only,
byte-compiled by pip. Every command must either work, degrade with a reason, or fail with
EXTRA_MISSING naming the extra; a ModuleNotFoundError or a traceback is a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
README = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
FIXTURES = Path(__file__).parent / "fixtures"
CORE_MAX_PACKAGES = 20
CORE_MAX_MB = 60.0

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    shared = tmp_path_factory.getbasetemp().parent  # the same folder for every xdist worker
    venv = shared / "core-venv"
    with FileLock(str(shared / "core-venv.lock")):
        if not (venv / "ok").exists():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            # a copy of the sources: building in place would leave build/ and egg-info behind
            src = shared / "core-src"
            shutil.rmtree(src, ignore_errors=True)
            shutil.copytree(
                ROOT,
                src,
                ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", "build", "node_modules"),
            )
            pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            subprocess.run([*pip, str(src)], check=True, timeout=900)
            (venv / "ok").write_text("built\n")
    return venv


def distributions(venv: Path) -> dict[str, float]:
    """name → installed MB of every distribution in the venv except its own pip and setuptools."""
    site = next((venv / "lib").glob("python*/site-packages"))
    out: dict[str, float] = {}
    for dist in metadata.distributions(path=[str(site)]):
        name = dist.metadata["Name"].lower()
        if name in ("pip", "setuptools"):
            continue
        size = sum((site / f).stat().st_size for f in dist.files or [] if (site / f).is_file())
        out[name] = size / 1e6
    return out


@pytest.fixture
def gno(core_venv: Path, tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(
        GNO_CONFIG_DIR=str(home / "config"),
        GNO_DATA_DIR=str(home / "data"),
        GNO_CACHE_DIR=str(home / "cache"),
        NO_COLOR="1",
        PATH=f"{core_venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
    )
    yield core_venv / "bin" / "gno", env


def run(
    gno: tuple[Path, dict[str, str]], *args: str, code: int = 0, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    exe, env = gno
    proc = subprocess.run(
        [str(exe), *args], capture_output=True, text=True, env=env, timeout=120, check=False, cwd=cwd
    )
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and "ModuleNotFoundError" not in out, (args, out)
    assert proc.returncode == code, (args, proc.returncode, out)
    return proc


def test_core_is_small(core_venv: Path) -> None:
    dists = distributions(core_venv)
    assert "gno" in dists
    for extra_only in ("numpy", "onnxruntime", "fastapi", "uvicorn", "mcp", "detect-secrets", "markdown-it-py"):
        if extra_only == "markdown-it-py" and "rich" in dists:
            continue  # rich's own dependency; gno itself does not require it
        assert extra_only not in dists
    assert len(dists) <= CORE_MAX_PACKAGES, sorted(dists)
    assert sum(dists.values()) <= CORE_MAX_MB, {k: round(v, 1) for k, v in dists.items()}
    # the README's figures are this measurement, not a guess
    claim = re.search(r"gno and the (\d+) packages it pulls in, about (\d+) MB installed", README)
    assert claim is not None, "README states the core install's package count and size"
    assert int(claim.group(1)) == len(dists) - 1, sorted(dists)
    assert abs(int(claim.group(2)) - sum(dists.values())) <= 0.1 * sum(dists.values()), round(sum(dists.values()), 1)
    site = next((core_venv / "lib").glob("python*/site-packages"))
    assert list((site / "gno" / "retrieve" / "__pycache__").glob("search.*.pyc")), "pip byte-compiles gno"


def test_core_commands_work_degrade_or_name_the_extra(gno: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    shutil.copytree(FIXTURES / "corpus", notes)
    memory = tmp_path / "memory"
    memory.mkdir()
    assert run(gno, "--version").stdout.startswith("gno, version ")
    run(gno, "init", str(notes), "--name", "notes")
    run(gno, "collection", "add", str(memory), "--name", "memory")
    config = Path(gno[1]["GNO_CONFIG_DIR"]) / "index.yml"
    config.write_text(config.read_text().replace("name: memory\n", "name: memory\n  memoryManaged: true\n"))
    run(gno, "update")

    # lexical search, memory, capture, changes: the core features
    assert "deploy" in run(gno, "search", "deploy").stdout.lower()
    assert json.loads(run(gno, "search", "deploy", "--json").stdout)["results"]
    run(gno, "remember", "Deploys go out on Tuesdays.", "-s", "team", "--add")
    recall = json.loads(run(gno, "recall", "deploys", "-s", "team", "--json").stdout)
    assert recall["facts"] and recall["retrieval"]["mode"] == "lexical"
    run(gno, "capture", "-c", "notes", "--title", "Core note", "Captured without extras.")
    assert "Core note" in run(gno, "search", "captured").stdout
    assert run(gno, "changes", "--jsonl").stdout.strip()

    # the skill's references come from the CLI tree and the capability table: no serve extra needed
    project = tmp_path / "project"
    project.mkdir()
    run(gno, "skill", "install", "--scope", "project", "--target", "claude", cwd=project)
    skill = project / ".claude" / "skills" / "gno"
    assert "gno_remember" in (skill / "mcp-reference.md").read_text()
    assert (skill / "recipes" / "memory-scoped-recall.md").is_file()

    # degrade: index syncs and skips embedding; status and query work, and say what to install
    (notes / "later.md").write_text("# Later\n\nIndexed without the semantic extra.\n")
    indexed = run(gno, "index").stdout
    assert "1 added" in indexed and "Embedding skipped" in indexed and "gno[semantic]" in indexed, indexed
    status = json.loads(run(gno, "status", "--json").stdout)
    assert status["vectors"]["available"] is False and "gno[semantic]" in status["vectors"]["reason"]
    query = json.loads(run(gno, "query", "deploy", "--json").stdout)
    assert query["results"]

    # need an extra: one code, the exact install command
    for args, extra in (
        (["embed", "--json"], "semantic"),
        (["vsearch", "deploy", "--json"], "semantic"),
        (["serve", "--port", "0"], "serve"),
        (["mcp"], "serve"),
    ):
        failed = run(gno, *args, code=2)
        body = failed.stdout + failed.stderr
        assert "EXTRA_MISSING" in body and f"pip install 'gno[{extra}]'" in body, (args, body)


def test_readme_lists_every_extra() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in extras:
        if name != "dev":
            assert f"| `{name}` |" in readme, f"README's extras table lacks {name}"
