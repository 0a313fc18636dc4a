"""Search latency benchmark: graphmem's retrieval at 10k and 100k memories with relations, and graphiti-core.

    .venv/bin/python -m benchmarks.search                          # 10k + 100k, 200 queries, throwaway Neo4j
    sudo nice -n -5 .venv/bin/python -m benchmarks.search          # the measurement run, ahead of other jobs
    .venv/bin/python -m benchmarks.search --sizes 1000,5000 --queries 40 --warmup 5 --no-graphiti   # quick

One run does everything:

1. Starts a throwaway Neo4j 5.26 (free ports, temp home, heap 2g, page cache 1g), unless ``--neo4j-uri``; it
   is stopped at the end, also on Ctrl-C, SIGTERM or an error.
2. Builds one dataset per size in its own namespace. Memories are entity-centric facts from
   ``graphiti_peer/make_facts.py`` ("Rafael Weber lives in Berlin"); each memory is ABOUT its entities (the
   person and the place, object or other person), and has typed edges to a few related memories: RELATES_TO
   towards memories about the same person, SUPPORTS towards a memory about the other person of a
   person-to-person fact, RELATES_TO towards one sharing its object. Creation times spread over a year, a
   share of the memories has access counts, so the recency, popularity and formula parts have data.
   Embeddings are real, made with the project's embedder (batched, ``--torch-threads``): first the ``--real``
   base facts (default 10,000, the 10k set and the start of every larger one). A larger size adds more facts
   in the same vocabulary about other people (named with a middle initial), embedded for real as well if the
   rate just measured says that takes at most ``--real-budget-s`` (default 600 s). If not (on the shared
   2-core box this was written on the rate swings between about 120 and 250 texts/s), the extra memories are
   *combinations* of two base facts about the same person ("A. B."), whose vector is the normalised sum of
   the two real vectors: such a dataset is for latency only, and the JSON and the table say so.
   The load is direct, through the store, in big UNWIND batches with the precomputed vectors:
   ``memory/create`` + ``memory/link_entities`` in one transaction per batch, then ``relation/relate``.
3. 200 distinct questions (``--queries``, plus ``--warmup`` others), written from templates held apart from
   the fact templates ("Where does Rafael Weber live?", "Who did Rafael Weber marry?", "Who lives in Osaka?"),
   about facts present in every size. graphmem runs three modes, round-robin per query (so drifts in machine
   load hit all three alike), each through its own ``RetrievalService`` (its own result cache):
   - ``vector-only``: channels=(VECTOR,), hops=0, rerank=NONE;
   - ``fused``: all four channels, RRF, hops=0, rerank=FORMULA;
   - ``fused+expansion``: the defaults (all channels, hops=1, rerank=FORMULA);
   - ``vec+text+expansion``: a what-if, the defaults without the recency and popularity seed channels.
   Reported per size and mode: p50/p95 of each stage of ``timings_ms`` (embed, seeds, expand, rerank, total),
   of the end-to-end time measured around ``search()`` in the client, and of each Cypher statement; every
   response is checked to be ``cached == False``.
4. graphiti-core 0.31.2 on the same server and the same facts, loaded through graphiti's own API by
   ``graphiti_peer/load_and_search.py`` (run with ``--graphiti-python``, its own group id), with the same
   measured queries (``--queries-file``); the ratios graphiti/graphmem of p50 and p95 are computed for
   every mode (the issue's pair: ``fused+expansion`` and ``vector-only``). It runs at the first size, and at a
   larger one only if that size is made of real facts and its load, extrapolated from the last graphiti run,
   fits in ``--graphiti-budget-s`` (default 900 s); otherwise the JSON says why not and what that run predicts.
5. After the largest size: ``PROFILE`` of every statement the default mode ran, with the parameters of a
   real query, and the query embedding time with 1 torch thread against torch's default.

Writes ``--out`` (default ``benchmarks/results/search.json``) and prints a table. Goals from the issue:
p95 <= 40 ms at 100k without an LLM, and >= 20x faster than graphiti-core.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import hashlib
import io
import json
import os
import platform
import pstats
import random
import shlex
import signal
import statistics
import string
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.graphiti_peer.make_facts import FIRST, LAST, PERSON_RELATIONS, RELATIONS, make_facts
from benchmarks.ingest import (
    _exit_on_signal,
    jvm_peak_rss_mib,
    neo4j_server_version,
    package_version,
    portable,
    throwaway_neo4j,
)
from graphmem.config import Settings
from graphmem.embed import Embedder, embedding_dimension, make_embedder
from graphmem.models import Memory, MemoryKind, RelationType
from graphmem.neo4j_local import LocalNeo4j
from graphmem.retrieval import Channel, RerankMode, RetrievalService, SearchOptions
from graphmem.service.planning import content_hash
from graphmem.store import Step, Store, migrate
from graphmem.store.store import Row

if TYPE_CHECKING:
    import neo4j

GOAL_P95_MS = 40.0
"""p95 of a search at 100k memories, without an LLM, that the issue asks for."""
GOAL_SPEEDUP = 20.0
"""How many times faster than graphiti-core the issue asks graphmem to be."""
SOURCE = "benchmarks.search"
STAGES = ("embed", "graph", "seeds", "expand", "rerank", "total")
"""graph: the one statement of a search of at most one hop; seeds and expand: the stepwise path's stages."""
HERE = Path(__file__).resolve().parent
GRAPHITI_SCRIPT = HERE / "graphiti_peer" / "load_and_search.py"


# --- small helpers ---------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary_ms(values_ms: Sequence[float]) -> dict[str, float]:
    if not values_ms:
        return {}
    return {"p50_ms": round(percentile(values_ms, 0.5), 3), "p95_ms": round(percentile(values_ms, 0.95), 3),
            "mean_ms": round(statistics.fmean(values_ms), 3), "min_ms": round(min(values_ms), 3),
            "max_ms": round(max(values_ms), 3), "n": len(values_ms)}


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def log(message: str) -> None:
    print(f"[{datetime.now().strftime('%H:%M:%S')}] {message}", flush=True)


# --- the data --------------------------------------------------------------------------------------------

PERSON_RELATION_NAMES = frozenset(rel for rel, _ in PERSON_RELATIONS)

# Questions about the subject of a fact, held apart from make_facts' sentence templates: other words, question
# form, sometimes naming the other person. A question asked of a person names one fact as the one expected.
SUBJECT_QUESTIONS: dict[str, tuple[str, ...]] = {
    "ATTENDED": ("What events has {s} been to lately?", "Which classes or gatherings did {s} go to?"),
    "LIVES_IN": ("Where does {s} live?", "Which city is {s}'s home?", "What town is {s} based in these days?"),
    "WORKS_AT": ("Where is {s} employed?", "What kind of place does {s} work for?"),
    "OWNS": ("What does {s} own?", "Which belongings of {s} do we know about?"),
    "LIKES": ("What does {s} enjoy doing?", "What are {s}'s hobbies and interests?"),
    "STUDIED": ("What did {s} major in?", "Which subject did {s} learn at university?"),
    "VISITED": ("Where has {s} travelled?", "Which places has {s} been to on trips?"),
    "PLAYS": ("What instrument or sport does {s} play?", "Which game does {s} practise?"),
    "ADOPTED": ("Which animal did {s} adopt?", "Did {s} take in a rescue pet?"),
    "VOLUNTEERS_AT": ("Where does {s} do volunteer work?", "Which charity does {s} help out at?"),
    "FRIEND_OF": ("Who are {s}'s close friends?", "Is {s} friends with {t}?"),
    "MENTORS": ("Who is {s} mentoring?", "Whom does {s} coach at work?"),
    "MARRIED_TO": ("Who is {s}'s spouse?", "Who did {s} marry?"),
    "SIBLING_OF": ("Who are {s}'s brothers and sisters?", "Is {t} family of {s}?"),
    "COLLEAGUE_OF": ("Who are {s}'s coworkers?", "Does {s} work together with {t}?"),
}
# Questions about the object: many facts answer them, so none is named as expected.
OBJECT_QUESTIONS: dict[str, tuple[str, ...]] = {
    "LIVES_IN": ("Who lives in {t}?", "Which of our people are based in {t}?"),
    "WORKS_AT": ("Who has a job at {t}?",),
    "OWNS": ("Who has {t}?",),
    "LIKES": ("Who is into {t}?",),
    "STUDIED": ("Who has a degree in {t}?",),
    "VISITED": ("Who has been to {t}?",),
    "PLAYS": ("Who plays {t}?",),
    "VOLUNTEERS_AT": ("Who helps out at {t}?",),
}
OBJECT_SHARE = 0.15


@dataclass(frozen=True)
class Fact:
    source: str
    relation: str
    target: str
    text: str

    @property
    def entities(self) -> tuple[str, ...]:
        return (self.source, self.target)


@dataclass(frozen=True)
class Query:
    text: str
    fact: str | None  # the fact expected in the top k, when the question names one


def load_facts(n: int, seed: int) -> list[Fact]:
    return [Fact(f["source"], f["relation"], f["target"], f["fact"]) for f in make_facts(n, seed)]


def more_facts(n: int, seed: int) -> list[Fact]:
    """``n`` more facts in make_facts' vocabulary, about other people: their names carry a middle initial, so
    no name and no fact repeats a ``make_facts`` one. About 20 facts a person, as there."""
    rng = random.Random(seed)
    names = [f"{first} {initial}. {last}" for first in FIRST for initial in string.ascii_uppercase for last in LAST]
    rng.shuffle(names)
    people = names[: max(20, n // 20)]
    seen: set[tuple[str, str, str]] = set()
    out: list[Fact] = []
    while len(out) < n:
        s = rng.choice(people)
        if rng.random() < 0.2:
            rel, template = rng.choice(PERSON_RELATIONS)
            t = rng.choice(people)
            if t == s:
                continue
        else:
            rel, template, pool = rng.choice(RELATIONS)
            t = rng.choice(pool)
        if (s, rel, t) in seen:
            continue
        seen.add((s, rel, t))
        text = template.format(s=s, t=t)
        out.append(Fact(s, rel, t, text[0].upper() + text[1:]))
    return out


def make_queries(facts: Sequence[Fact], count: int, seed: int) -> list[Query]:
    """``count`` distinct questions about ``facts``."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[Query] = []
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > 100 * count:
            raise ValueError(f"could not write {count} distinct questions from {len(facts)} facts")
        fact = rng.choice(facts)
        if fact.relation in OBJECT_QUESTIONS and rng.random() < OBJECT_SHARE:
            text, expected = rng.choice(OBJECT_QUESTIONS[fact.relation]).format(t=fact.target), None
        else:
            text, expected = rng.choice(SUBJECT_QUESTIONS[fact.relation]).format(s=fact.source, t=fact.target), fact
        if text in seen:
            continue
        seen.add(text)
        out.append(Query(text, expected.text if expected else None))
    return out


@dataclass
class Dataset:
    """One namespace's memories: texts, vectors, entities, typed edges; the first ``real`` are real facts."""

    size: int
    namespace: str
    texts: list[str]
    vectors: np.ndarray
    entities: list[tuple[str, ...]]
    relations: list[tuple[int, int, str, float]] = field(default_factory=list)  # (source, target, type, weight)
    real: int = 0

    @property
    def synthetic(self) -> int:
        return self.size - self.real

    def memory_id(self, i: int) -> str:
        return f"{self.namespace}-{i:06d}"


def combine(facts: Sequence[Fact], vectors: np.ndarray, count: int, seed: int) -> tuple[
        list[str], np.ndarray, list[tuple[str, ...]]]:
    """``count`` memories made of two facts about one person (or, when those run out, sharing their object):
    text "A. B.", vector the normalised sum of the two real vectors."""
    rng = random.Random(seed)
    pairs: list[tuple[int, int]] = []
    for key in ("source", "target"):
        groups: dict[str, list[int]] = defaultdict(list)
        for i, f in enumerate(facts):
            groups[getattr(f, key)].append(i)
        more = [(a, b) for ids in groups.values() for k, a in enumerate(ids) for b in ids[k + 1:]]
        pairs += rng.sample(more, min(len(more), count - len(pairs)))
        if len(pairs) == count:
            break
    else:
        raise ValueError(f"{len(facts)} facts give only {len(pairs)} pairs that share an entity; {count} needed")
    chosen = pairs
    left = np.fromiter((a for a, _ in chosen), dtype=np.int64, count=count)
    right = np.fromiter((b for _, b in chosen), dtype=np.int64, count=count)
    summed = vectors[left] + vectors[right]
    summed /= np.linalg.norm(summed, axis=1, keepdims=True)
    texts = [f"{facts[a].text}. {facts[b].text}." for a, b in chosen]
    entities = [tuple(dict.fromkeys((*facts[a].entities, *facts[b].entities))) for a, b in chosen]
    return texts, summed.astype(np.float32), entities


def make_relations(entities: Sequence[tuple[str, ...]], people: frozenset[str],
                   seed: int) -> list[tuple[int, int, str, float]]:
    """A few typed edges per memory: two RELATES_TO towards memories about the same person, and one more
    through another of its entities (SUPPORTS when that entity is a person, else RELATES_TO)."""
    rng = random.Random(seed)
    about: dict[str, list[int]] = defaultdict(list)
    for i, names in enumerate(entities):
        for name in names:
            about[name].append(i)
    edges: dict[tuple[int, int, str], float] = {}

    def pick(name: str, i: int) -> int | None:
        pool = about[name]
        for _ in range(4):
            j = pool[rng.randrange(len(pool))]
            if j != i:
                return j
        return None

    for i, names in enumerate(entities):
        for _ in range(2):
            j = pick(names[0], i)
            if j is not None:
                edges.setdefault((i, j, RelationType.RELATES_TO.value), round(rng.uniform(0.4, 1.0), 3))
        if len(names) > 1:
            other = names[rng.randrange(1, len(names))]
            j = pick(other, i)
            kind = RelationType.SUPPORTS if other in people else RelationType.RELATES_TO
            if j is not None:
                edges.setdefault((i, j, kind.value), round(rng.uniform(0.4, 1.0), 3))
    return [(i, j, t, w) for (i, j, t), w in edges.items()]


def embed_real(embedder: Embedder, texts: Sequence[str], cache_dir: Path | None, batch: int = 256) -> tuple[
        np.ndarray, float | None]:
    """Vectors of ``texts`` (and the seconds it took; None when they came from ``cache_dir``)."""
    digest = hashlib.sha256("\n".join([embedder.model_name, *texts]).encode()).hexdigest()
    cache = cache_dir / f"embeddings-{digest[:20]}.npy" if cache_dir is not None else None
    if cache is not None and cache.is_file():
        log(f"embeddings of {len(texts)} texts loaded from {cache}")
        return np.load(cache), None
    out: list[np.ndarray] = []
    started = time.perf_counter()
    for k in range(0, len(texts), batch):
        out.append(np.asarray(embedder.embed_documents(texts[k:k + batch]), dtype=np.float32))
        done = k + len(out[-1])
        if done % (batch * 8) == 0 or done == len(texts):
            rate = done / (time.perf_counter() - started)
            log(f"  embedded {done}/{len(texts)} ({rate:.0f} texts/s)")
    vectors = np.concatenate(out)
    seconds = time.perf_counter() - started
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, vectors)
    return vectors, seconds


def embedding_rate(embedder: Embedder, texts: Sequence[str]) -> float:
    """Texts per second, measured on ``texts`` (a probe)."""
    started = time.perf_counter()
    embedder.embed_documents(list(texts))
    return len(texts) / (time.perf_counter() - started)


def build_dataset(size: int, namespace: str, facts: Sequence[Fact], vectors: np.ndarray, seed: int) -> Dataset:
    people = frozenset(f.source for f in facts) | frozenset(
        f.target for f in facts if f.relation in PERSON_RELATION_NAMES)
    real = min(size, len(facts))
    texts = [f.text for f in facts[:real]]
    entities = [f.entities for f in facts[:real]]
    vecs = vectors[:real]
    if size > real:
        more_texts, more_vectors, more_entities = combine(facts, vectors, size - real, seed + size)
        texts += more_texts
        entities += more_entities
        vecs = np.concatenate([vecs, more_vectors])
    dataset = Dataset(size, namespace, texts, vecs, entities, real=real)
    dataset.relations = make_relations(entities, people, seed + 2 * size)
    return dataset


# --- the load --------------------------------------------------------------------------------------------


def memory_rows(ds: Dataset, start: int, stop: int, now: datetime, rng: random.Random) -> tuple[
        list[Row], list[Row]]:
    """``memory/create`` and ``memory/link_entities`` rows for memories ``start..stop`` (what the service
    would write for them: hash, provenance, validity), with a year of creation times and some access counts."""
    created: list[Row] = []
    links: list[Row] = []
    for i in range(start, stop):
        at = now - timedelta(seconds=rng.uniform(0, 365 * 86_400))
        accessed = rng.random() < 0.2
        memory = Memory(
            id=ds.memory_id(i), namespace=ds.namespace, kind=MemoryKind.SEMANTIC, content=ds.texts[i],
            confidence=round(rng.uniform(0.6, 1.0), 3), created_at=at, updated_at=at, valid_from=at,
            access_count=rng.randint(1, 40) if accessed else 0,
            last_accessed_at=at + (now - at) * rng.random() if accessed else None,
            source=SOURCE, sources=(SOURCE,), content_hash=content_hash(ds.texts[i]),
        )
        created.append(memory.to_row(ds.vectors[i].tolist()))
        links += [{"memory_id": memory.id, "namespace": ds.namespace, "name": name, "at": at}
                  for name in ds.entities[i]]
    return created, links


async def load(store: Store, ds: Dataset, batch: int, relation_batch: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    now = datetime.now(UTC)
    started = time.perf_counter()
    links = 0
    for k in range(0, ds.size, batch):
        created, entity_rows = memory_rows(ds, k, min(k + batch, ds.size), now, rng)
        await store.write([Step("memory/create", {"rows": created}),
                           Step("memory/link_entities", {"rows": entity_rows})])
        links += len(entity_rows)
        if (k // batch) % 10 == 9:
            done = k + len(created)
            log(f"  {done}/{ds.size} memories ({done / (time.perf_counter() - started):.0f}/s)")
    memories_s = time.perf_counter() - started
    t0 = time.perf_counter()
    for k in range(0, len(ds.relations), relation_batch):
        rows = [{"source_id": ds.memory_id(i), "target_id": ds.memory_id(j), "type": kind, "weight": weight,
                 "confidence": 1.0, "source": SOURCE, "at": now}
                for i, j, kind, weight in ds.relations[k:k + relation_batch]]
        await store.write([Step("relation/relate", {"rows": rows, "namespace": ds.namespace})])
    relations_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    await store.run_schema("admin/await_indexes", timeout_s=600)
    await_s = time.perf_counter() - t0
    counts = await raw(store, (
        "MATCH (m:Memory {namespace: $ns}) WITH count(m) AS memories "
        "MATCH (e:Entity {namespace: $ns}) RETURN memories, count(e) AS entities"), ns=ds.namespace)
    return {
        "memories": counts[0]["memories"], "entities": counts[0]["entities"], "about_links": links,
        "relations": len(ds.relations), "batch": batch, "relation_batch": relation_batch,
        "memories_and_entities_s": round(memories_s, 2), "relations_s": round(relations_s, 2),
        "await_indexes_s": round(await_s, 2), "total_s": round(time.perf_counter() - started, 2),
        "memories_per_s": round(ds.size / memories_s, 1),
    }


async def raw(store: Store, query: str, **params: Any) -> list[Row]:
    """A benchmark-only statement (counts, cleanup), outside the project's cypher files."""
    records, _, _ = await store.driver.execute_query(query, params, database_=store.database)
    return [r.data() for r in records]


async def delete_where(store: Store, prop: str, value: str) -> int:
    """Delete every node whose ``prop`` is ``value`` (and its edges), 5,000 at a time (stays within the heap)."""
    deleted = 0
    while True:
        rows = await raw(store, f"MATCH (n) WHERE n.{prop} = $v WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS c",
                         v=value)
        deleted += int(rows[0]["c"])
        if not rows[0]["c"]:
            return deleted


# --- timing ----------------------------------------------------------------------------------------------


class TimedStore(Store):
    """A ``Store`` whose reads are timed per statement (client side: packing, network, server) and whose last
    parameters per statement are kept (for PROFILE)."""

    def __init__(self, driver: neo4j.AsyncDriver, settings: Settings) -> None:
        super().__init__(driver, settings)
        self.calls: list[tuple[str, float]] = []
        self.last_params: dict[str, dict[str, Any]] = {}

    async def read(self, name: str, /, **params: Any) -> list[Row]:
        started = time.perf_counter()
        try:
            return await super().read(name, **params)
        finally:
            self.calls.append((name, (time.perf_counter() - started) * 1000))
            self.last_params[name] = params

    async def read_row(self, name: str, /, **params: Any) -> Row:
        started = time.perf_counter()
        try:
            return await super().read_row(name, **params)
        finally:
            self.calls.append((name, (time.perf_counter() - started) * 1000))
            self.last_params[name] = params

    def take(self) -> list[tuple[str, float]]:
        calls, self.calls = self.calls, []
        return calls


STEPWISE = "stepwise"
"""A MODES entry with this key true runs on a RetrievalService(one_statement=False)."""
MODES: dict[str, dict[str, Any]] = {
    "vector-only": {"channels": (Channel.VECTOR,), "hops": 0, "rerank": RerankMode.NONE},
    "fused": {"hops": 0},
    "fused+expansion": {},  # the defaults: all channels, hops=1, rerank=FORMULA
    # the same search statement by statement (7 round trips), as before the one-statement path: the ratio
    "stepwise": {STEPWISE: True},
    # what-if, for the findings: the default without the recency and popularity seed channels
    "vec+text+expansion": {"channels": (Channel.VECTOR, Channel.FULLTEXT)},
}
DEFAULT_MODE = "fused+expansion"


def mode_options(namespace: str, k: int, kw: dict[str, Any]) -> SearchOptions:
    return SearchOptions(namespaces=(namespace,), k=k, **{key: v for key, v in kw.items() if key != STEPWISE})


@dataclass
class ModeRecord:
    stages: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    e2e: list[float] = field(default_factory=list)
    statements: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    round_trips: list[int] = field(default_factory=list)
    cached: int = 0
    hits: int = 0
    expected: int = 0
    results: list[int] = field(default_factory=list)
    client_cpu: list[float] = field(default_factory=list)
    server_cpu: list[float] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        return {
            "stages": {s: summary_ms(self.stages[s]) for s in STAGES},
            "client_e2e": summary_ms(self.e2e),
            # CPU time per search, all threads: of this Python process (driver, pydantic, the embedding thread)
            # and of the Neo4j JVM (from /proc, 10 ms ticks: only the mean means something)
            "cpu_ms_mean": {"client_process": round(statistics.fmean(self.client_cpu), 2),
                            "neo4j_jvm": round(statistics.fmean(self.server_cpu), 2) if self.server_cpu else None},
            "statements": {name: summary_ms(v) for name, v in sorted(self.statements.items())},
            "statement_round_trips_per_query": {"min": min(self.round_trips), "max": max(self.round_trips),
                                                "mean": round(statistics.fmean(self.round_trips), 2)},
            "responses_cached": self.cached,
            "results_per_query_mean": round(statistics.fmean(self.results), 2),
            "expected_fact_hit_rate": round(self.hits / self.expected, 4) if self.expected else None,
            "expected_fact_queries": self.expected,
        }


def process_cpu_ms(pid: int | None) -> float | None:
    """utime + stime of a process (the Neo4j JVM), in ms; None when it cannot be read."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def settle(pid: int | None, quiet_ms_per_s: float = 150.0, patience_s: float = 600.0) -> dict[str, Any]:
    """Wait until the JVM is quiet: after a bulk load Lucene merges the vector index's segments in the
    background for minutes, a core's worth of CPU that would be measured as search latency."""
    t0 = time.perf_counter()
    readings: list[float] = []
    while True:
        idle = await idle_cpu(pid)
        if idle is None:
            return {"waited_s": 0.0, "readings_ms_per_s": []}
        readings.append(idle)
        if idle <= quiet_ms_per_s or time.perf_counter() - t0 > patience_s:
            return {"waited_s": round(time.perf_counter() - t0, 1), "readings_ms_per_s": readings,
                    "quiet": idle <= quiet_ms_per_s, "threshold_ms_per_s": quiet_ms_per_s}


async def idle_cpu(pid: int | None, seconds: float = 5.0) -> float | None:
    """CPU the JVM burns with no query running (background work), ms per second: the floor under cpu_ms_mean."""
    before = process_cpu_ms(pid)
    await asyncio.sleep(seconds)
    after = process_cpu_ms(pid)
    return round((after - before) / seconds, 1) if before is not None and after is not None else None


async def measure(store: TimedStore, embedder: Embedder, settings: Settings, ds: Dataset,
                  warmup: Sequence[Query], queries: Sequence[Query], k: int, jvm: int | None) -> dict[str, Any]:
    """Every query through every mode (round-robin, the order rotating per query); warm-up first."""
    services = {mode: RetrievalService(store, embedder, settings, one_statement=not kw.get(STEPWISE))
                for mode, kw in MODES.items()}
    options = {mode: mode_options(ds.namespace, k, kw) for mode, kw in MODES.items()}
    records = {mode: ModeRecord() for mode in MODES}
    names = list(MODES)
    params: dict[str, dict[str, Any]] = {}
    for query in warmup:
        for mode in names:
            await services[mode].search(query.text, options[mode])
    store.take()
    started = time.perf_counter()
    for n, query in enumerate(queries):
        order = names[n % len(names):] + names[:n % len(names)]
        for mode in order:
            server0, cpu0 = process_cpu_ms(jvm), time.process_time()
            t0 = time.perf_counter()
            response = await services[mode].search(query.text, options[mode])
            e2e = (time.perf_counter() - t0) * 1000
            cpu, server1 = (time.process_time() - cpu0) * 1000, process_cpu_ms(jvm)
            rec = records[mode]
            rec.e2e.append(e2e)
            rec.client_cpu.append(cpu)
            if server0 is not None and server1 is not None:
                rec.server_cpu.append(server1 - server0)
            for stage in STAGES:
                if stage in response.timings_ms:
                    rec.stages[stage].append(response.timings_ms[stage])
            calls = store.take()
            if mode == DEFAULT_MODE:  # the parameters of its statements, for PROFILE later
                params = {name: dict(store.last_params[name]) for name, _ in calls}
            rec.round_trips.append(len(calls))
            for name, ms in calls:
                rec.statements[name].append(ms)
            rec.cached += int(response.cached)
            rec.results.append(len(response.results))
            if query.fact is not None:
                rec.expected += 1
                rec.hits += any(query.fact in r.memory.content for r in response.results)
        if (n + 1) % 50 == 0:
            log(f"  {n + 1}/{len(queries)} queries x {len(names)} modes "
                f"({(time.perf_counter() - started) / (n + 1) * 1000:.0f} ms per query round)")
    out = {mode: records[mode].report() for mode in MODES}
    out["_profile_params"] = params  # popped by the caller
    return out


# --- PROFILE ---------------------------------------------------------------------------------------------


def flatten_plan(plan: dict[str, Any], depth: int = 0) -> list[dict[str, Any]]:
    args = plan.get("args", {})
    row = {
        "depth": depth, "operator": plan.get("operatorType"), "rows": plan.get("rows"),
        "db_hits": plan.get("dbHits"), "time_ms": round(args["Time"] / 1e6, 3) if "Time" in args else None,
        "page_cache_hits": plan.get("pageCacheHits"), "page_cache_misses": plan.get("pageCacheMisses"),
        "details": str(args.get("Details", ""))[:300],
    }
    out = [row]
    for child in plan.get("children", []):
        out += flatten_plan(child, depth + 1)
    return out


async def profile(store: Store, name: str, params: dict[str, Any], runs: int = 3) -> dict[str, Any]:
    """PROFILE one statement with real parameters; the last of ``runs`` runs is kept (plans and pages warm)."""
    query = "PROFILE " + store.cypher(name)
    walls: list[float] = []
    summary: Any = None
    for _ in range(runs):
        async with store.driver.session(database=store.database) as session:
            t0 = time.perf_counter()
            result = await session.run(query, params)
            summary = await result.consume()
            walls.append((time.perf_counter() - t0) * 1000)
    plan = summary.profile or {}
    operators = flatten_plan(plan)
    return {
        "client_ms_per_run": [round(w, 2) for w in walls],
        "server_ms": (summary.result_available_after or 0) + (summary.result_consumed_after or 0),
        "total_db_hits": sum(o["db_hits"] or 0 for o in operators),
        "rows": plan.get("rows"),
        "operators": operators,
    }


def plan_text(operators: Sequence[dict[str, Any]]) -> str:
    return "\n".join(
        f"{'  ' * o['depth']}{o['operator']}  rows={o['rows']} dbHits={o['db_hits']}"
        + (f" time={o['time_ms']}ms" if o["time_ms"] is not None else "")
        + (f"  [{o['details'][:110]}]" if o["details"] else "")
        for o in operators)


async def python_profile(store: Store, embedder: Embedder, settings: Settings, ds: Dataset,
                         queries: Sequence[Query], k: int) -> dict[str, Any]:
    """Where the event-loop thread spends its time in default-mode searches (the embedding runs in a worker
    thread, outside this profile; time waiting on Neo4j shows as the selector's poll)."""
    service = RetrievalService(store, embedder, settings)
    options = SearchOptions(namespaces=(ds.namespace,), k=k)
    prof = cProfile.Profile()
    cpu0, t0 = time.process_time(), time.perf_counter()
    prof.enable()
    for q in queries:
        await service.search("tell me again: " + q.text, options)  # not the measured strings: no cache hit
    prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    def top(sort: str, *restrictions: str | int) -> list[str]:
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(sort).print_stats(*restrictions)
        return [ln.rstrip() for ln in out.getvalue().splitlines() if ln.strip()][:45]

    return {"searches": len(queries), "wall_ms_per_search": round(wall * 1000 / len(queries), 1),
            "process_cpu_ms_per_search": round(cpu * 1000 / len(queries), 1),
            "top_by_tottime": top("tottime", 25), "graphmem_by_cumtime": top("cumulative", "graphmem", 25)}


# --- query embedding and torch threads -------------------------------------------------------------------


def thread_check(embedder: Embedder, queries: Sequence[Query], threads: Sequence[int]) -> dict[str, Any]:
    import torch

    before = torch.get_num_threads()
    out: dict[str, Any] = {}
    try:
        for n in threads:
            torch.set_num_threads(n)
            embedder.embed_query("warm up " + queries[0].text)
            times = []
            for q in queries:
                t0 = time.perf_counter()
                embedder.embed_query(q.text)
                times.append((time.perf_counter() - t0) * 1000)
            out[f"{n}_threads"] = summary_ms(times)
            log(f"  embed_query with {n} torch threads: p50 {out[f'{n}_threads']['p50_ms']:.1f} ms, "
                f"p95 {out[f'{n}_threads']['p95_ms']:.1f} ms")
    finally:
        torch.set_num_threads(before)
    out["loadavg"] = loadavg()
    return out


# --- graphiti --------------------------------------------------------------------------------------------


def run_graphiti(args: argparse.Namespace, settings: Settings, facts: Sequence[Fact], queries: Sequence[Query],
                 group_id: str, workdir: Path) -> dict[str, Any]:
    """graphiti_peer/load_and_search.py in graphiti's venv, on the same server, facts and measured queries."""
    facts_file = workdir / f"{group_id}-facts.jsonl"
    queries_file = workdir / f"{group_id}-queries.jsonl"
    out_file = workdir / f"{group_id}.json"
    facts_file.write_text("".join(json.dumps({"source": f.source, "relation": f.relation, "target": f.target,
                                              "fact": f.text}) + "\n" for f in facts), encoding="utf-8")
    queries_file.write_text("".join(json.dumps({"query": q.text, "fact": q.fact}) + "\n" for q in queries),
                            encoding="utf-8")
    cmd = [str(args.graphiti_python), str(GRAPHITI_SCRIPT), str(facts_file), "--uri", settings.neo4j_uri,
           "--user", settings.neo4j_user, "--database", settings.neo4j_database, "--group-id", group_id, "--reset",
           "--queries-file", str(queries_file), "--warmup", str(args.warmup), "--num-results", str(args.k),
           "--torch-threads", str(args.torch_threads), "--out", str(out_file)]
    env = {**os.environ, "NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
           "GRAPHITI_TELEMETRY_ENABLED": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    log(f"graphiti: {shlex.join(cmd[:3])} ... --group-id {group_id} ({len(facts)} facts, {len(queries)} queries)")
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.graphiti_timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"run": False, "reason": f"timed out after {args.graphiti_timeout} s"}
    wall = time.perf_counter() - started
    if proc.returncode != 0 or not out_file.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-25:])
        return {"run": False, "reason": f"exit {proc.returncode}", "log_tail": tail}
    result: dict[str, Any] = json.loads(out_file.read_text(encoding="utf-8"))
    result["run"] = True
    result["wall_s"] = round(wall, 1)
    result["command"] = shlex.join([*cmd[:2], "<facts.jsonl>", *cmd[3:]])
    return result


def ratios(graphiti: dict[str, Any], graphmem: dict[str, Any]) -> dict[str, Any]:
    g = graphiti["search"]["latency"]
    out: dict[str, Any] = {}
    for mode in MODES:
        m = graphmem[mode]["client_e2e"]
        p50, p95 = g["p50_ms"] / m["p50_ms"], g["p95_ms"] / m["p95_ms"]
        out[mode] = {"graphiti_p50_ms": g["p50_ms"], "graphmem_p50_ms": m["p50_ms"], "p50_ratio": round(p50, 2),
                     "graphiti_p95_ms": g["p95_ms"], "graphmem_p95_ms": m["p95_ms"], "p95_ratio": round(p95, 2),
                     "goal_20x_met": p50 >= GOAL_SPEEDUP and p95 >= GOAL_SPEEDUP}
    return out


# --- the run ---------------------------------------------------------------------------------------------


async def run(args: argparse.Namespace, settings: Settings, server: LocalNeo4j | None,
              workdir: Path) -> dict[str, Any]:
    import torch

    report: dict[str, Any] = {"loadavg": {"start": loadavg()}}
    sizes = sorted(args.sizes)
    n_real = min(args.real, sizes[-1])
    base = load_facts(n_real, args.seed)
    asked = make_queries(base[:sizes[0]], args.warmup + args.queries, args.seed + 1)
    warmup, queries = asked[:args.warmup], asked[args.warmup:]

    log(f"loading the embedder ({settings.embedder}: {settings.embedding_model}), torch threads {args.torch_threads}")
    torch.set_num_threads(args.torch_threads)
    embedder = make_embedder(settings)
    embedder.embed_documents([f.text for f in base[:32]])
    log(f"embedding {n_real} base facts for real ...")
    base_vectors, embed_s = embed_real(embedder, [f.text for f in base], args.embed_cache)
    rate = n_real / embed_s if embed_s else embedding_rate(embedder, [f.text for f in base[:512]])
    report["embedding"] = {
        "model": settings.embedding_model, "dimension": embedder.dimension, "torch_threads": args.torch_threads,
        "base_facts": {"texts": n_real, "seconds": round(embed_s, 1) if embed_s is not None else None,
                       "from_cache": embed_s is None, "texts_per_s": round(rate, 1)},
        "real_budget_s": args.real_budget_s,
    }

    graphmem: dict[str, Any] = {}
    graphiti: dict[str, Any] = {}
    datasets: dict[str, Any] = {}
    profiles: dict[str, Any] = {}
    async with Store.connect(settings) as plain:
        store = TimedStore(plain.driver, settings)  # plain owns the driver
        await migrate(store, embedding_dim=embedding_dimension(settings))
        report["neo4j_server"] = await neo4j_server_version(store)
        previous: str | None = None
        namespaces = [f"{args.namespace}-{size_label(s)}" for s in sizes]
        for ns in namespaces:
            await delete_where(store, "namespace", ns)
        try:
            for size, ns in zip(sizes, namespaces, strict=True):
                label = size_label(size)
                if previous is not None:  # one graphmem namespace at a time: the sizes share their facts
                    log(f"removing namespace {previous} ...")
                    await delete_where(store, "namespace", previous)
                facts, vectors = base, base_vectors
                if size > n_real:  # more real facts if embedding them fits the budget, else combinations
                    extra = size - n_real
                    projected = extra / rate
                    decision: dict[str, Any] = {"extra_memories": extra, "projected_embed_s": round(projected),
                                                "rate_texts_per_s": round(rate, 1)}
                    if projected <= args.real_budget_s:
                        more = more_facts(extra, args.seed + 3)
                        log(f"[{label}] embedding {extra} more facts for real (projected {projected:.0f} s) ...")
                        more_vectors, more_s = embed_real(embedder, [f.text for f in more], args.embed_cache)
                        if more_s:
                            rate = extra / more_s
                        facts, vectors = [*base, *more], np.concatenate([base_vectors, more_vectors])
                        decision |= {"real": True, "seconds": round(more_s, 1) if more_s else None,
                                     "from_cache": more_s is None}
                    else:
                        log(f"[{label}] embedding {extra} more texts would take ~{projected:.0f} s > "
                            f"{args.real_budget_s} s: combinations of two base facts instead (latency only)")
                        decision |= {"real": False}
                    report["embedding"][label] = decision
                ds = build_dataset(size, ns, facts, vectors, args.seed)
                log(f"[{label}] loading {size} memories ({ds.real} real facts, {ds.synthetic} combinations), "
                    f"{len(ds.relations)} relations into {ns} ...")
                loaded = await load(store, ds, args.batch, args.relation_batch, args.seed + size)
                previous = ns
                datasets[label] = {
                    "namespace": ns, **loaded, "real_facts": ds.real, "synthetic_combinations": ds.synthetic,
                    "latency_only": ds.synthetic > 0,
                    "relation_types": dict(sorted(Counter(t for _, _, t, _ in ds.relations).items())),
                    "loadavg_after_load": loadavg(),
                }
                log(f"[{label}] loaded in {loaded['total_s']} s: {loaded}")
                log(f"[{label}] searching: {args.warmup} warm-up + {len(queries)} queries x {len(MODES)} modes ...")
                la0 = loadavg()
                jvm = server.read_pid() if server else None
                settled = await settle(jvm)
                log(f"[{label}] JVM quiet after {settled['waited_s']} s: {settled['readings_ms_per_s']} ms CPU/s")
                idle = await idle_cpu(jvm)
                measured = await measure(store, embedder, settings, ds, warmup, queries, args.k, jvm)
                measured["neo4j_jvm_idle_cpu_ms_per_s"] = idle
                measured["settle"] = settled
                params = measured.pop("_profile_params")
                measured["loadavg_before"], measured["loadavg_after"] = la0, loadavg()
                graphmem[label] = measured
                print_size(label, measured)
                if size == sizes[-1]:
                    log(f"[{label}] PROFILE of the statements of {DEFAULT_MODE} ...")
                    for name, p in sorted(params.items()):
                        profiles[name] = await profile(store, name, p)
                    if args.cprofile:
                        log(f"[{label}] cProfile of {args.cprofile} more {DEFAULT_MODE} searches (not counted) ...")
                        report["cprofile"] = await python_profile(store, embedder, settings, ds,
                                                                  asked[: args.cprofile], args.k)
                if not args.no_graphiti:
                    skip = graphiti_skip(size, ds.synthetic > 0, graphiti, args.graphiti_budget_s)
                    if skip is None:
                        for done in graphiti:  # one graphiti group at a time, as for graphmem's namespaces
                            await delete_where(store, "group_id", f"{args.namespace}-graphiti-{done}")
                        graphiti[label] = run_graphiti(args, settings, facts[:size], queries,
                                                       f"{args.namespace}-graphiti-{label}", workdir)
                        if graphiti[label]["run"]:
                            graphiti[label]["ratios_graphiti_over_graphmem"] = ratios(graphiti[label], measured)
                    else:
                        graphiti[label] = skip
            if args.threads_check:
                log("query embedding: 1 torch thread against torch's default ...")
                report["query_embedding_threads"] = thread_check(
                    embedder, asked[: args.threads_check], sorted({1, os.cpu_count() or 1}))
        finally:
            if args.neo4j_uri and not args.keep:  # a server of the caller: leave nothing behind
                for ns in namespaces:
                    await delete_where(store, "namespace", ns)
                for label in graphiti:
                    await delete_where(store, "group_id", f"{args.namespace}-graphiti-{label}")
    report.update({"datasets": datasets, "graphmem": graphmem, "graphiti": graphiti, "profile": profiles,
                   "neo4j_jvm_peak_rss_mib": jvm_peak_rss_mib(server)})
    report["loadavg"]["end"] = loadavg()
    return report


def graphiti_skip(size: int, synthetic: bool, graphiti: dict[str, Any], budget_s: float) -> dict[str, Any] | None:
    """None: run graphiti at ``size``; else why not, with what the last run predicts (load and search both grow
    linearly: graphiti's loader embeds every fact itself, and its search scans every RELATES_TO edge in the
    database by brute-force cosine, with no vector index)."""
    ran = [(int(r["load"]["facts"]), r) for r in graphiti.values() if r.get("run") and "load" in r]
    if not ran:
        return None if not synthetic else {"run": False, "reason": "combinations of facts: graphiti needs triples"}
    n, r = max(ran, key=lambda x: x[0])
    scale = size / n
    estimate = {"estimate_from": f"the {n}-fact run", "estimated_load_s": round(r["load"]["total_s"] * scale),
                "estimated_search_p50_ms": round(r["search"]["latency"]["p50_ms"] * scale),
                "estimate_note": "linear in the number of facts (load: embedding + write; search: the cosine scan)"}
    reasons = []
    if synthetic:
        reasons.append("the dataset holds combinations of facts (latency only), not graphiti triples")
    if estimate["estimated_load_s"] > budget_s:
        reasons.append(f"its load would take ~{estimate['estimated_load_s']} s here (budget {budget_s:.0f} s), "
                       f"then ~{estimate['estimated_search_p50_ms']} ms per search")
    return {"run": False, "reason": "; ".join(reasons), **estimate} if reasons else None


# --- output ----------------------------------------------------------------------------------------------


def fmt(s: dict[str, float]) -> str:
    return f"{s['p50_ms']:7.1f} /{s['p95_ms']:7.1f}" if s else "      - /      -"


def cpu_text(r: dict[str, Any]) -> str:
    cpu = r["cpu_ms_mean"]
    jvm = f"{cpu['neo4j_jvm']:.0f}" if cpu["neo4j_jvm"] is not None else "-"
    return f"{cpu['client_process']:.0f}/{jvm}"


def print_size(label: str, measured: dict[str, Any]) -> None:
    print(f"\n{label}: p50 / p95 ms (stages from timings_ms; e2e around search() in the client)")
    print(f"  {'mode':<16} " + " ".join(f"{s:>16}" for s in (*STAGES, "client e2e")) + "   hit@k  cpu ms py/jvm")
    for mode in MODES:
        r = measured[mode]
        hit = r["expected_fact_hit_rate"]
        print(f"  {mode:<16} " + " ".join(f"{fmt(r['stages'][s]):>16}" for s in STAGES)
              + f" {fmt(r['client_e2e']):>16}   {hit if hit is not None else '-':<6} {cpu_text(r)}")
    print(flush=True)


def table(report: dict[str, Any]) -> str:
    lines = ["", "graphmem, p50 / p95 ms (embed, seeds, expand, rerank, total: timings_ms; e2e: client side)",
             f"{'size':<6} {'mode':<16} " + " ".join(f"{s:>16}" for s in (*STAGES, "client e2e"))
             + "  hit@k  cpu ms py/jvm"]
    for label, measured in report["graphmem"].items():
        for mode in MODES:
            r = measured[mode]
            hit = r["expected_fact_hit_rate"]
            lines.append(f"{label:<6} {mode:<16} " + " ".join(f"{fmt(r['stages'][s]):>16}" for s in STAGES)
                         + f" {fmt(r['client_e2e']):>16}  {hit if hit is not None else '-':<6} {cpu_text(r)}")
        statements = measured[DEFAULT_MODE]["statements"]
        lines.append(f"{label:<6} {DEFAULT_MODE} statements (client side, p50/p95 ms; the seeds run concurrently): "
                     + ", ".join(f"{name.split('/')[-1]} {v['p50_ms']:.0f}/{v['p95_ms']:.0f}"
                                 for name, v in statements.items()))
    lines += ["", "graphiti-core (Graphiti.search, EDGE_HYBRID_SEARCH_RRF), client side, and graphiti/graphmem"]
    for label, g in report["graphiti"].items():
        if not g.get("run"):
            est = f" (estimated: load {g['estimated_load_s']} s, search p50 {g['estimated_search_p50_ms']} ms)" \
                if "estimated_load_s" in g else ""
            lines.append(f"{label:<6} not run: {g['reason'][:110]}{est}")
            continue
        lat, emb = g["search"]["latency"], g["search"]["query_embedding"]
        lines.append(f"{label:<6} search {fmt(lat)}  (query embedding {fmt(emb)}; load {g['load']['total_s']} s; "
                     f"hit@k {g['search']['expected_fact_hit_rate']})")
        for mode, r in g["ratios_graphiti_over_graphmem"].items():
            lines.append(f"       graphiti/graphmem {mode:<16} p50 x{r['p50_ratio']:<6} p95 x{r['p95_ratio']:<6}"
                         f" goal x{GOAL_SPEEDUP:.0f}: {'MET' if r['goal_20x_met'] else 'NOT MET'}")
    goals = report["goals"]
    lines += ["", f"goal p95 <= {GOAL_P95_MS:.0f} ms at {goals['p95']['size']} ({DEFAULT_MODE}, client e2e): "
              f"{goals['p95']['value_ms']} ms -> {'MET' if goals['p95']['met'] else 'NOT MET'}"
              f"  (vector-only: {goals['p95']['vector_only_ms']} ms)"]
    return "\n".join(lines)


def goals(report: dict[str, Any]) -> dict[str, Any]:
    largest = list(report["graphmem"])[-1]
    r = report["graphmem"][largest]
    p95 = r[DEFAULT_MODE]["client_e2e"]["p95_ms"]
    out: dict[str, Any] = {"p95": {"size": largest, "mode": DEFAULT_MODE, "value_ms": p95, "goal_ms": GOAL_P95_MS,
                                   "met": p95 <= GOAL_P95_MS,
                                   "vector_only_ms": r["vector-only"]["client_e2e"]["p95_ms"],
                                   "timings_total_p95_ms": r[DEFAULT_MODE]["stages"]["total"]["p95_ms"]}}
    for label, g in report["graphiti"].items():
        if g.get("run"):
            out[f"speedup_{label}"] = {mode: {"p50": x["p50_ratio"], "p95": x["p95_ratio"], "met": x["goal_20x_met"]}
                                       for mode, x in g["ratios_graphiti_over_graphmem"].items()}
    return out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[10_000, 100_000],
                        help="dataset sizes, comma-separated (default 10000,100000)")
    parser.add_argument("--real", type=int, default=10_000,
                        help="base facts (make_facts, embedded for real; default 10000)")
    parser.add_argument("--real-budget-s", type=float, default=600,
                        help="embed a larger size's extra facts for real if that should take at most this; "
                             "else combine base facts (default 600)")
    parser.add_argument("--queries", type=int, default=200, help="measured queries per mode (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="warm-up queries, distinct from those (default 20)")
    parser.add_argument("--k", type=int, default=10, help="results per search (default 10)")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch threads for all embedding, graphiti's too (default 1: see the JSON's "
                             "query_embedding_threads for why)")
    parser.add_argument("--threads-check", type=int, default=30,
                        help="queries embedded with 1 thread and with torch's default at the end (0: skip)")
    parser.add_argument("--cprofile", type=int, default=20,
                        help="default-mode searches run under cProfile at the largest size (0: skip)")
    parser.add_argument("--batch", type=int, default=2000, help="memories per load transaction (default 2000)")
    parser.add_argument("--relation-batch", type=int, default=10_000, help="edges per load transaction")
    parser.add_argument("--neo4j-uri", help="use this server (GRAPHMEM_NEO4J_* for the rest), else a throwaway")
    parser.add_argument("--heap", default="2g", help="throwaway server heap (default 2g)")
    parser.add_argument("--pagecache", default="1g", help="throwaway server page cache (default 1g)")
    parser.add_argument("--namespace", default="bench-search", help="prefix of the namespaces and graphiti groups")
    parser.add_argument("--seed", type=int, default=7, help="make_facts seed (7: the graphiti_peer README's files)")
    parser.add_argument("--keep", action="store_true",
                        help="with --neo4j-uri: leave the last size's namespace there (to PROFILE by hand)")
    parser.add_argument("--embed-cache", type=Path, help="a folder to keep real embeddings in between runs")
    parser.add_argument("--no-graphiti", action="store_true", help="skip graphiti-core")
    parser.add_argument("--graphiti-python", type=Path,
                        default=Path(os.environ.get("GRAPHMEM_GRAPHITI_PYTHON", ".graphiti-venv/bin/python")),
                        help="python of graphiti's own venv (env GRAPHMEM_GRAPHITI_PYTHON; default "
                             ".graphiti-venv/bin/python; see benchmarks/graphiti_peer/README.md)")
    parser.add_argument("--graphiti-budget-s", type=float, default=900,
                        help="run graphiti at a larger size only if its extrapolated load fits (default 900)")
    parser.add_argument("--graphiti-timeout", type=int, default=3600, help="seconds for graphiti's load + search")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/search.json"))
    args = parser.parse_args(argv)
    if min(args.sizes) < 1 or args.queries < 1 or args.warmup < 0 or args.real < 1:
        parser.error("sizes, --queries and --real must be positive")
    if not args.no_graphiti and not args.graphiti_python.is_file():
        parser.error(f"{args.graphiti_python} not found (graphiti's venv; see benchmarks/graphiti_peer/README.md)"
                     " - or pass --no-graphiti")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on_signal)
    base = Settings()
    started = time.perf_counter()
    header = {
        "benchmark": "search", "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": shlex.join([Path(sys.executable).name, "-m", "benchmarks.search", *sys.argv[1:]]),
        "niceness": os.nice(0), "cpus": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), "neo4j_driver": package_version("neo4j"),
        "neo4j_rust_ext": package_version("neo4j-rust-ext"), "torch": package_version("torch"),
        "sentence_transformers": package_version("sentence-transformers"),
        "graphmem": package_version("graphmem"), "code": code_digest(),
        "embedder": base.embedder, "embedding_model": base.embedding_model,
        "sizes": args.sizes, "queries": args.queries, "warmup": args.warmup, "k": args.k, "seed": args.seed,
        "modes": {m: {k: [c.value for c in v] if k == "channels" else getattr(v, "value", v) for k, v in kw.items()}
                  or "defaults" for m, kw in MODES.items()},
        "neo4j": "throwaway local" if not args.neo4j_uri else args.neo4j_uri,
        "neo4j_heap": args.heap if not args.neo4j_uri else None,
        "neo4j_pagecache": args.pagecache if not args.neo4j_uri else None,
    }
    with tempfile.TemporaryDirectory(prefix="graphmem-search-work-") as work, contextlib.ExitStack() as stack:
        server: LocalNeo4j | None = None
        if args.neo4j_uri:
            settings = base.model_copy(update={"neo4j_uri": args.neo4j_uri})
        else:
            log(f"starting a throwaway Neo4j (heap {args.heap}, page cache {args.pagecache}) ...")
            settings, server = stack.enter_context(throwaway_neo4j(base, heap=args.heap, pagecache=args.pagecache,
                                                                    prefix="graphmem-search-"))
        report = {**header, **asyncio.run(run(args, settings, server, Path(work)))}
    report["goals"] = goals(report)
    report["wall_s"] = round(time.perf_counter() - started, 1)
    report["notes"] = notes(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    graphiti_venv = {str(args.graphiti_python.absolute().parents[1]): "<graphiti-venv>"} if args.graphiti_python else {}
    report = portable(json.loads(json.dumps(report, default=str)), extra=graphiti_venv)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(table(report))
    print(f"\nload average: start {report['loadavg']['start']}, end {report['loadavg']['end']}; "
          f"niceness {report['niceness']}; wall {report['wall_s']} s")
    print(f"written to {args.out}")
    return 0


def code_digest() -> dict[str, Any]:
    """What code was measured (the tree has no commit to name here): a digest of graphmem's Python files and
    Cypher statements, and the newest change among the retrieval files."""
    root = HERE.parent
    files = sorted([*root.glob("graphmem/**/*.py"), *root.glob("cypher/**/*.cypher")])
    digest = hashlib.sha256()
    for f in files:
        digest.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    retrieval = [*root.glob("graphmem/retrieval/*.py"), *root.glob("cypher/retrieval/*.cypher")]
    newest = max(retrieval, key=lambda f: f.stat().st_mtime, default=None)
    return {"sha256_graphmem_and_cypher": digest.hexdigest()[:16], "files": len(files),
            "newest_retrieval_file": str(newest.relative_to(root)) if newest else None,
            "newest_retrieval_change": datetime.fromtimestamp(newest.stat().st_mtime, UTC).isoformat(timespec="seconds")
            if newest else None}


def notes(report: dict[str, Any]) -> list[str]:
    out = [
        f"Machine: {report['cpus']} CPUs shared with other jobs; load average at start {report['loadavg']['start']}, "
        f"at end {report['loadavg']['end']}. Absolute figures are inflated and noisy; compare within this run.",
        "Queries: distinct questions from templates held apart from the fact templates; warm-up queries differ "
        "from the measured ones; each mode has its own RetrievalService (own result cache); responses_cached "
        "counts responses served from the cache (must be 0).",
        "graphmem modes run round-robin per query (order rotating), so load drifts hit all modes alike.",
        "graphmem's client_e2e includes the query embedding (in-process, torch threads as in 'embedding'), as "
        "graphiti's latency does.",
        "The sizes share their base facts; one graphmem namespace and one graphiti group are in the database at a "
        "time (the previous size's are deleted before the next is loaded). graphiti's group and graphmem's "
        "namespace of one size are there together: graphiti's edges_in_db also counts graphmem's RELATES_TO edges "
        "(between Memory nodes, which graphiti's scan from :Entity nodes does not cross).",
    ]
    for label, ds in report["datasets"].items():
        decision = report["embedding"].get(label)
        if decision and decision.get("real"):
            out.append(f"{label}: the {report['embedding']['base_facts']['texts']} base facts plus "
                       f"{decision['extra_memories']} more real facts (same vocabulary, other people, named with a "
                       "middle initial), all embedded for real; the queries are about base facts.")
        if ds["latency_only"]:
            out.append(f"{label} is a LATENCY-ONLY dataset: {ds['real_facts']} real facts plus "
                       f"{ds['synthetic_combinations']} memories that combine two real facts about one person "
                       "(text 'A. B.', vector = normalised sum of the two real embeddings), because embedding "
                       f"{label} texts for real takes more than 10 minutes on this machine. Its hit rates mean little.")
    return out


if __name__ == "__main__":
    sys.exit(main())
