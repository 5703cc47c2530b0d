#!/usr/bin/env bash
# The project's one test command (README quick start step 2; .ci/run calls exactly this).
# Creates .venv if needed, installs gno with its dev extras, then runs lint, types and tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]' 2>&1 | grep -v "is ignored" || true
.venv/bin/python -m pip check >/dev/null
echo "== ruff"
.venv/bin/ruff check src tests bench
echo "== mypy (strict)"
.venv/bin/mypy
echo "== pytest"
.venv/bin/python -m pytest -n 2 "$@"
