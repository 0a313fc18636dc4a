#!/usr/bin/env bash
# The main job: sets up, starts Neo4j (auth on), applies the schema, imports the LoCoMo demo conversation,
# and serves the GraphQL API in the foreground (Ctrl-C stops the API and Neo4j).
#   ./scripts/run.sh          run it          ./scripts/run.sh stop     stop a Neo4j left running
# The LLM (reflection, LLM rerank): GRAPHMEM_LLM_BASE_URL when set; otherwise the local model of
# scripts/llm-server.sh is set up (first time: an 11-35 min build) and started; GRAPHMEM_DEMO_LLM=0 skips it.
# Settings: GRAPHMEM_* environment variables (see README). Demo data: GRAPHMEM_DEMO_DATA (a LoCoMo JSON file,
# default ../shared/data/locomo/locomo-dev.json) and GRAPHMEM_DEMO_SAMPLES (default conv-26; "all" for every one).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "stop" ]; then
  exec .venv/bin/graphmem neo4j stop
fi

./scripts/setup.sh
GM=.venv/bin/graphmem
CACHE=${GRAPHMEM_CACHE_DIR:-$HOME/.cache/graphmem}
mkdir -p "$CACHE"
export GRAPHMEM_TOKENS_FILE=${GRAPHMEM_TOKENS_FILE:-$CACHE/demo-tokens.yaml}
# Memories are signed (README, Security): the demo's key is made once and kept beside the demo's Neo4j data,
# so the memories written before a restart still verify. GRAPHMEM_SIGNING_KEYS of your own wins.
if [ -z "${GRAPHMEM_SIGNING_KEYS:-}" ]; then
  if [ ! -s "$CACHE/demo-signing-key" ]; then
    (umask 077; $GM integrity new-key --id demo > "$CACHE/demo-signing-key")
    echo "run: made a signing key for the demo in $CACHE/demo-signing-key"
  fi
  GRAPHMEM_SIGNING_KEYS=$(cat "$CACHE/demo-signing-key")
  export GRAPHMEM_SIGNING_KEYS
fi

stop_llm=
if [ -z "${GRAPHMEM_LLM_BASE_URL:-}" ] && [ "${GRAPHMEM_DEMO_LLM:-1}" != 0 ]; then
  echo "run: the local LLM for reflection (first time: builds llama.cpp, 11-35 min; GRAPHMEM_DEMO_LLM=0 skips it) ..."
  ./scripts/llm-server.sh setup
  if ! ./scripts/llm-server.sh status >/dev/null 2>&1; then
    ./scripts/llm-server.sh start >/dev/null
    stop_llm='./scripts/llm-server.sh stop >/dev/null 2>&1 || true;'
  fi
  GRAPHMEM_LLM_BASE_URL=$(./scripts/llm-server.sh url)
  export GRAPHMEM_LLM_BASE_URL
fi

echo "run: starting Neo4j (first start: about a minute) ..."
$GM neo4j start
trap "$stop_llm"' $GM neo4j stop >/dev/null 2>&1 || true' EXIT
echo "run: applying the schema (constraints, vector and full-text indexes) ..."
$GM db migrate

DATA=${GRAPHMEM_DEMO_DATA:-../shared/data/locomo/locomo-dev.json}
SAMPLES=${GRAPHMEM_DEMO_SAMPLES:-conv-26}
namespaces=demo
if [ -f "$DATA" ]; then
  echo "run: importing the LoCoMo demo conversations ($SAMPLES) with their graph (idempotent) ..."
  if [ "$SAMPLES" = "all" ]; then
    namespaces=demo,locomo-conv-26,locomo-conv-30,locomo-conv-41,locomo-conv-42,locomo-conv-43
  else
    args=()
    for s in ${SAMPLES//,/ }; do args+=(--sample "$s"); namespaces="$namespaces,locomo-$s"; done
  fi
  # Demo data written under another signing key (a demo key made again, keys of your own before) fails
  # verification, and an import leaves stored ids as they are: every search would hide it. The file is its
  # source, so such a demo namespace is wiped and imported again.
  for ns in ${namespaces//,/ }; do
    [ "$ns" != demo ] || continue
    # its last line, "checked N memories, F failed" (it exits 1 when F > 0; no such line: it could not check)
    out=$($GM integrity check --namespace "$ns" 2>&1) || true
    failed=$(printf '%s\n' "$out" | tail -n 1 | sed -n 's/^checked [0-9]* memories, \([0-9]*\) failed$/\1/p')
    if [ -z "$failed" ]; then
      printf 'run: could not check the signatures of %s:\n%s\n' "$ns" "$out" >&2; exit 1
    elif [ "$failed" != 0 ]; then
      echo "run: $failed memories of $ns fail verification under the current signing key; wiping it to import it again"
      $GM db wipe-namespace "$ns" --yes
    fi
  done
  if [ "$SAMPLES" = "all" ]; then
    $GM import locomo "$DATA"
  else
    $GM import locomo "$DATA" "${args[@]}"
  fi
else
  echo "run: no demo data at $DATA (set GRAPHMEM_DEMO_DATA); serving an empty graph" >&2
fi
first_ns=${namespaces#demo,}
first_ns=${first_ns%%,*}

# A fresh demo token each run, in a token file of its own (unless GRAPHMEM_TOKENS_FILE names yours).
if [ "$GRAPHMEM_TOKENS_FILE" = "$CACHE/demo-tokens.yaml" ]; then rm -f "$GRAPHMEM_TOKENS_FILE"; fi
token=$($GM token create --name "demo-$(date +%s)" --read "$namespaces" --write demo --shared \
          --file "$GRAPHMEM_TOKENS_FILE" 2>/dev/null)
export GRAPHMEM_GRAPHIQL_TOKEN=$token   # GraphiQL's headers editor starts with it (demo only)
port=${GRAPHMEM_API_PORT:-8000}
neo4j_user=$(.venv/bin/python -c 'from graphmem.config import Settings; print(Settings().neo4j_user)')
neo4j_password=$(.venv/bin/python -c \
  'from graphmem.config import Settings; print(Settings().neo4j_password.get_secret_value())')

echo "run: starting the API on port $port (loading the embedder) ..."
$GM serve &
api=$!
trap "kill $api 2>/dev/null || true; $stop_llm"' $GM neo4j stop >/dev/null 2>&1 || true' EXIT
# Ready, then warm: the first search loads the ONNX session and the index pages; a user should not wait for it.
.venv/bin/python - "$port" "$token" "$api" <<'PY'
import os, sys, time
import httpx
port, token, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = f"http://127.0.0.1:{port}"
while True:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("run: the API exited before it was ready (see its message above)")
    try:
        if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
            break
    except httpx.HTTPError:
        pass
    time.sleep(0.5)
print("run: warming up (first searches) ...", flush=True)
for q in ("What did Caroline research?", "When did Melanie paint a sunrise?"):
    httpx.post(f"{base}/graphql", headers={"Authorization": f"Bearer {token}"}, timeout=60,
               json={"query": "query($q: String!) { search(query: $q, k: 5) { results { score } } }",
                     "variables": {"q": q}})
PY
cat <<MSG

graphmem is ready.
  GraphiQL:       http://127.0.0.1:$port/graphql   (the demo token is already in its Headers tab)
  MCP:            http://127.0.0.1:$port/mcp   (streamable HTTP, header Authorization: Bearer <demo token>; stdio: graphmem mcp)
  demo token:     $token   (reads: $namespaces; writes: demo)
  Neo4j Browser:  http://127.0.0.1:${GRAPHMEM_NEO4J_HTTP_PORT:-7474}/browser/   user $neo4j_user, password $neo4j_password
                  try:  MATCH (m:Memory {namespace: '$first_ns'}) WHERE m.content CONTAINS 'pottery' WITH m LIMIT 1
                        MATCH p = (m)-[:FOLLOWS|SIMILAR_TO|ABOUT|DERIVED_FROM|FROM_TASK]-() RETURN p
                  guide:  :play http://127.0.0.1:$port/browser/guide.html   (saved queries; loads after login with graphmem's style)
  LLM:            ${GRAPHMEM_LLM_BASE_URL:-none (set GRAPHMEM_LLM_BASE_URL)}   (reflection: mutation reflect / endTask(reflect: true))
  example operations: graphql/operations/*.graphql   the graph a write builds: docs/graph.md
  Ctrl-C stops the API and Neo4j.
MSG
wait $api
