"""`python -m hermes_gno_memory install [--hermes-home DIR] [--force]`: put the plugin folder in place.

For a pip install (no git checkout): copies this package's plugin files into
`$HERMES_HOME/plugins/gno/`, where Hermes discovers memory providers, and prints the config to add.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

PLUGIN_FILES = ("__init__.py", "provider.py", "gnocli.py", "plugin.yaml")


def install(hermes_home: Path, force: bool) -> Path:
    target = hermes_home / "plugins" / "gno"
    if target.exists() and not force:
        raise SystemExit(f"{target} exists; pass --force to replace it")
    target.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).resolve().parent
    for name in PLUGIN_FILES:
        shutil.copy2(here / name, target / name)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hermes_gno_memory")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("install", help="copy the plugin into $HERMES_HOME/plugins/gno")
    p.add_argument("--hermes-home", default=os.environ.get("HERMES_HOME") or str(Path.home() / ".hermes"))
    p.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    target = install(Path(args.hermes_home).expanduser(), args.force)
    print(f"installed {target}\nadd to {Path(args.hermes_home) / 'config.yaml'}:\n"
          "memory:\n  provider: gno\n  gno:\n    scopes: [project:myproject]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
