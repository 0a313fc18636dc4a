#!/usr/bin/env bash
# Installs everything graphmem needs on a fresh machine: a virtualenv with the package and its extras,
# and the Neo4j server jars (from Maven Central, cached under ~/.cache/graphmem). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
command -v java >/dev/null || { echo "setup: java not found (need a JDK 17+)" >&2; exit 1; }
command -v mvn >/dev/null || { echo "setup: mvn not found (need Maven 3.6+)" >&2; exit 1; }
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
  || { echo "setup: Python 3.11+ needed ($PYTHON is $("$PYTHON" --version))" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.graphmem-installed
want=$(cat pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing graphmem and its Python packages into .venv (first time: 3-5 minutes) ..."
  .venv/bin/pip install -q --upgrade pip
  log=$(mktemp)
  if ! .venv/bin/pip install --progress-bar off -e ".[dev,embed]" 2>&1 | tee "$log" \
      | awk '/^Collecting /{print "setup:   package " $2; fflush()}'; then
    tail -30 "$log" >&2; echo "setup: pip install failed (full log: $log)" >&2; exit 1
  fi
  rm -f "$log"
  echo "$want" > "$stamp"
else
  echo "setup: Python packages up to date (.venv)"
fi
echo "setup: Neo4j server jars (Maven Central, cached in ${GRAPHMEM_CACHE_DIR:-$HOME/.cache/graphmem}) ..."
.venv/bin/graphmem neo4j fetch
CACHE=${GRAPHMEM_CACHE_DIR:-$HOME/.cache/graphmem}
echo "setup: GraphiQL's scripts and styles (npm registry, hash-checked, served by the app: no CDN at run time) ..."
.venv/bin/python -m graphmem.api.graphiql --into "$CACHE/graphiql" \
  || echo "setup: GraphiQL will not load in a browser (the API itself works); see the message above" >&2
