#!/usr/bin/env bash
# The test command: sets up (scripts/setup.sh), lints, type-checks, then runs the unit tests and the
# integration tests. The integration tests start their own Neo4j (or use GRAPHMEM_NEO4J_URI when set).
# Exits non-zero on any failure, including a test run that collected no tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

.venv/bin/ruff check .
.venv/bin/mypy

run_pytest() {
  local rc=0
  .venv/bin/python -m pytest "$@" || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "test: pytest collected no tests in $* (treated as a failure)" >&2
    return 1
  fi
  return "$rc"
}

run_pytest tests/unit -q
run_pytest tests/integration -q
