#!/usr/bin/env bash
# The main job: sets up, starts Neo4j (with auth; password from GRAPHMEM_NEO4J_PASSWORD) and applies the
# schema. Ctrl-C or `./scripts/run.sh stop` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "stop" ]; then
  exec .venv/bin/graphmem neo4j stop
fi

./scripts/setup.sh
.venv/bin/graphmem neo4j start
.venv/bin/graphmem db migrate
echo
echo "graphmem is up. Neo4j Browser: http://127.0.0.1:${GRAPHMEM_NEO4J_HTTP_PORT:-7474}/browser/"
echo "  (user ${GRAPHMEM_NEO4J_USER:-neo4j}; password from GRAPHMEM_NEO4J_PASSWORD, default graphmem-dev-password)"
echo "Stop with: ./scripts/run.sh stop"
