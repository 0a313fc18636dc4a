"""The data of the search benchmark: facts, queries, relations, real embeddings, and their load into Neo4j."""

from __future__ import annotations

import hashlib
import os
import random
import statistics
import string
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.graphiti_peer.make_facts import FIRST, LAST, PERSON_RELATIONS, draw, make_facts
from graphmem.embed import Embedder
from graphmem.models import Memory, MemoryKind, RelationType
from graphmem.service.planning import content_hash
from graphmem.store import Step, Store
from graphmem.store.store import Row

if TYPE_CHECKING:
    pass

SOURCE = "benchmarks.search"


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
    return [Fact(*row) for row in draw(rng, people, n)]


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


