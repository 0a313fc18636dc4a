# syntax=docker/dockerfile:1
# graphmem service image. Used by docker-compose.yml; Neo4j runs in its own container there.
#
#   docker build -t graphmem:local .
#
# Torch comes from PyPI (the CUDA build, several GB). For a smaller image, point pip at a CPU-only wheel
# index with --build-arg PIP_EXTRA_INDEX_URL=<index url>.

ARG PYTHON_IMAGE=python:3.11-slim

# ---- build: install graphmem and its [embed] extra into a virtualenv --------------------------------
FROM ${PYTHON_IMAGE} AS build

ARG PIP_EXTRA_INDEX_URL=""
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src
# Only what the wheel is built from (see [tool.hatch.build.targets.wheel] in pyproject.toml):
# the package, the Cypher files force-included into it, and the metadata. graphql/ (the exported
# SDL and example operations) is for clients and tests: the server builds its schema from the
# code, so graphql/ is not in the wheel and not copied.
COPY pyproject.toml README.md ./
COPY graphmem/ graphmem/
COPY cypher/ cypher/
RUN PIP_EXTRA_INDEX_URL="${PIP_EXTRA_INDEX_URL}" pip install --no-cache-dir ".[embed]"

# ---- runtime -----------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE}

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    GRAPHMEM_CACHE_DIR=/home/graphmem/.cache/graphmem

RUN groupadd --system --gid 10001 graphmem \
    && useradd --system --uid 10001 --gid graphmem --create-home --home-dir /home/graphmem graphmem

COPY --from=build /opt/venv /opt/venv

USER graphmem
WORKDIR /home/graphmem

EXPOSE 8000

# python:3.11-slim has neither curl nor wget.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=5 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://localhost:8000/healthz', timeout=4)"]

# --demo-token: a token that reads and writes the demo namespace, GRAPHMEM_DEMO_TOKEN or a fresh one printed at
# start (without any token configured, serve refuses to start). More tokens: GRAPHMEM_TOKENS or GRAPHMEM_TOKENS_FILE.
CMD ["graphmem", "serve", "--host", "0.0.0.0", "--port", "8000", "--demo-token"]
