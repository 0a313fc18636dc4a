#!/usr/bin/env bash
# The test command: sets up (scripts/setup.sh, and the local LLM with scripts/llm-server.sh setup), lints,
# type-checks, then runs the unit tests and the integration tests. The integration tests start their own Neo4j
# (or use GRAPHMEM_NEO4J_URI when set); the reflection tests need an LLM: GRAPHMEM_LLM_BASE_URL when set,
# otherwise the local one (Qwen2.5-Coder-1.5B on llama.cpp), started here and stopped at the end.
# Exits non-zero on any failure, including a test run that collected no tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/browser-setup.sh   # Debian's chromium + chromedriver for the GraphiQL browser test
./scripts/graphiti-setup.sh  # graphiti-core in .graphiti-venv, for the Graphiti import test (cached)
if [ -z "${GRAPHMEM_LLM_BASE_URL:-}" ]; then
  ./scripts/llm-server.sh setup   # first time: builds llama-cpp-python (11-35 min); then cached
fi

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

if [ -z "${GRAPHMEM_LLM_BASE_URL:-}" ]; then
  if ! ./scripts/llm-server.sh status >/dev/null 2>&1; then
    ./scripts/llm-server.sh start >/dev/null
    trap './scripts/llm-server.sh stop >/dev/null 2>&1 || true' EXIT
  fi
  GRAPHMEM_LLM_BASE_URL=$(./scripts/llm-server.sh url)
  export GRAPHMEM_LLM_BASE_URL
fi
run_pytest tests/integration -q
