"""`gno completion bash|zsh|fish`: click's completion scripts, and a real bash completing a real `gno`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gno.cli.main import cli


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_calls_gno_back_with_clicks_variable(shell: str) -> None:
    r = CliRunner().invoke(cli, ["completion", shell])
    assert r.exit_code == 0, r.output
    assert f"_GNO_COMPLETE={shell}_complete" in r.output
    assert "gno" in r.output.split("_GNO_COMPLETE", 1)[1]


def test_an_unknown_shell_is_validation() -> None:
    from gno.cli.main import main

    with pytest.raises(SystemExit) as ei:
        main(["completion", "tcsh"])
    assert ei.value.code == 1


def test_bash_completes_commands_subcommands_and_options(gno_home: Path) -> None:
    bash = shutil.which("bash")
    assert bash is not None, "bash is needed to run the completion script"
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}

    def complete(*words: str) -> list[str]:
        line = " ".join(words)
        script = (
            'eval "$(gno completion bash)"; '
            f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _gno_completion gno; "
            'printf "%s\\n" "${COMPREPLY[@]}"'
        )
        out = subprocess.run([bash, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    assert complete("gno", "rec") == ["recall"]
    assert "history" in complete("gno", "memory", "")
    assert complete("gno", "recall", "--as") == ["--as-of"]
    assert complete("gno", "completion", "") == ["bash", "zsh", "fish"]
