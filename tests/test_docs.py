"""The references in docs/ are generated from the code and current; the README links to them (drift tests)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click
import pytest

from gno.cli.main import cli
from gno.errors import ERROR_MEANINGS, ERROR_TABLE, ErrorCode

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
REFERENCES = ("docs/cli.md", "docs/errors.md")
#: the README is the pitch, the quick start, the ladder and links; the rest lives in docs/
README_MAX_BYTES = 20_000
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _commands(group: click.Group, prefix: str = "gno") -> list[str]:
    out: list[str] = []
    ctx = click.Context(group)
    for name in sorted(group.list_commands(ctx)):
        cmd = group.get_command(ctx, name)
        if cmd is None or cmd.hidden or name == "run":
            continue
        full = f"{prefix} {name}"
        out.append(full)
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, full))
    return out


def test_the_generated_references_are_current() -> None:
    """`cog --check` regenerates docs/cli.md and docs/errors.md and compares them with what is committed."""
    from cogapp import Cog

    cog = Cog()
    cog.options.include_path = [str(ROOT / "scripts")]
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        status = cog.main(["cog", "--check", "-I", str(ROOT / "scripts"), *(str(ROOT / r) for r in REFERENCES)])
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert status == 0, "docs/ is stale: run `cog -r -I scripts docs/cli.md docs/errors.md`"


def test_every_command_is_in_the_command_reference() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = [c for c in _commands(cli) if f"\n## {c}\n" not in text]
    assert not missing, f"docs/cli.md lacks: {missing}"


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_error_code_is_in_the_error_reference_with_its_mapping(code: ErrorCode) -> None:
    m = ERROR_TABLE[code]
    assert ERROR_MEANINGS[code].strip(), f"{code.value} has no meaning in gno.errors.ERROR_MEANINGS"
    text = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    assert f"| `{code.value}` | {m.exit_code} | {m.http_status} | {m.kind} |" in text


def test_the_readme_links_the_references() -> None:
    for ref in REFERENCES:
        assert f"]({ref})" in README, f"README does not link {ref}"


def test_quick_start_has_two_commands_and_ci_calls_the_test_command() -> None:
    root = Path(__file__).resolve().parents[1]
    section = README.split("## Quick start", 1)[1].split("```", 2)[1]
    lines = [ln for ln in section.splitlines()[1:] if ln.strip()]
    assert len(lines) == 2
    assert "bash scripts/test.sh" in lines[1]
    assert "scripts/test.sh" in (root / ".ci" / "run").read_text(encoding="utf-8")


def test_what_enable_write_gates_on_gno_serve_is_written_down() -> None:
    """`--enable-write` gates MCP's write tools; REST writes stay on (the Web UI edits through them):
    a user reading either the command overview or `gno serve --help` learns both halves."""
    row = next(ln for ln in COMMANDS.splitlines() if ln.startswith("| `gno serve "))
    assert "`--enable-write` gates the MCP write tools only" in row and "REST writes" in row
    from click.testing import CliRunner

    from gno.cli.main import cli

    help_text = " ".join(CliRunner().invoke(cli, ["serve", "--help"]).output.split())
    assert "REST writes are always on" in help_text


def test_the_readme_stays_an_entry_page() -> None:
    size = len(README.encode("utf-8"))
    assert size <= README_MAX_BYTES, f"README is {size} bytes: move detail into a page under docs/"


@pytest.mark.parametrize("page", ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))])
def test_every_relative_link_resolves(page: str) -> None:
    """A page moved into docs/ keeps working links: each relative target (and its #anchor) exists."""
    path = ROOT / page
    broken = []
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(target)
    assert not broken, f"{page}: {broken}"


def _anchors(md: Path) -> set[str]:
    """GitHub's heading anchors: lower-cased, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in md.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out
