#!/usr/bin/env bash
# Creates .graphiti-venv: graphiti-core in its own virtualenv (it is NOT a graphmem dependency), with only what
# tests/integration/graphiti_writer.py needs: graphiti-core and httpx (graphiti imports it without declaring it).
# No torch and no sentence-transformers: the writer embeds with a tiny deterministic EmbedderClient.
# Cached: does nothing when the venv already holds these pins. Safe to run again.
# benchmarks/graphiti_peer adds its embedding packages on top (see its README).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=.graphiti-venv
PINS=("graphiti-core==0.31.2" "httpx")

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
stamp=$VENV/.graphmem-installed
want=$(printf '%s\n' "${PINS[@]}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "graphiti-setup: installing ${PINS[*]} into $VENV (first time: about a minute) ..."
  log=$(mktemp)
  if ! "$VENV/bin/pip" install -q --progress-bar off "${PINS[@]}" >"$log" 2>&1; then
    tail -30 "$log" >&2; echo "graphiti-setup: pip install failed (full log: $log)" >&2; exit 1
  fi
  rm -f "$log"
  GRAPHITI_TELEMETRY_ENABLED=false "$VENV/bin/python" -c 'import graphiti_core.utils.bulk_utils' \
    || { echo "graphiti-setup: graphiti_core does not import in $VENV" >&2; exit 1; }
  echo "$want" > "$stamp"
else
  echo "graphiti-setup: graphiti-core up to date ($VENV)"
fi
