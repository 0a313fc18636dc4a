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
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e ".[dev,embed]"
  echo "$want" > "$stamp"
fi
.venv/bin/graphmem neo4j fetch
