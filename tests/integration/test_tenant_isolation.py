"""Tenant isolation under concurrency: four tenant tokens (and the admin, in the shared namespace) run a seeded
mix of OPERATIONS requests through every query and mutation of the real GraphQL app, in concurrent waves that
race on the same client-chosen ids, memory ids and request ids. Every string a tenant writes carries its canary.

What each invariant catches (break isolation on purpose and one of them fails):

1. No response to a tenant holds another tenant's canary, one of its server-chosen ids, or a namespace other than
   its own and the shared one: a read filtered on id but not namespace (memory, neighborhood, task, a DataLoader
   of relations), a search channel or cache not scoped to the token's namespaces, a replayed request id keyed
   without the namespace, an entity or stats count across namespaces.
2. A namespace the token may not touch is refused with FORBIDDEN (decided from the token alone), another
   tenant's id under the token's own namespace with NOT_FOUND / INVALID_INPUT or a no-op, and nothing changes:
   a missing ``require_write``/``require_read`` makes the refused operation succeed (and plants a canary that 3
   then finds in the wrong namespace).
3. In Neo4j afterwards: no edge whose ends lie in different namespaces (or one without), no node or edge of a
   namespace carrying another tenant's canary, every memory's content carries its own tenant's canary, each id
   once per namespace, and a deleted memory was deleted by its own tenant: a MERGE on id alone (same-id races),
   entity or SIMILAR_TO/FOLLOWS linking across namespaces, a delete or update that matched another namespace.
4. Every acknowledged write is there: each id writeMemories answered with is a memory of the writer's namespace
   (a near-duplicate "strengthened" in another namespace, a lost write in a race).
5. No INTERNAL error and no HTTP status other than 200 (admission control is sized so that nothing is refused).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphmem.api.app import create_app
from graphmem.api.schema import schema
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.security import make_entry, new_token
from graphmem.store import Store
from tests.integration.api_support import api_settings, codes, lifespan, post, wipe
from tests.integration.isolation_support import FORBIDDEN, RACE_IDS, RACE_REQUESTS, Json, Mix, Op, Tenant

OPERATIONS = int(os.environ.get("GRAPHMEM_ISOLATION_OPERATIONS", "1500"))
"""How many operations: 1,500 in the test command (a few minutes on 2 cores); the full property run of the issue is
GRAPHMEM_ISOLATION_OPERATIONS=10000 (182 s on an idle 2-core box, 2026-12-02: passed; about 1.7 operations/s
on a loaded one)."""
RETRYABLE = frozenset({"OVERLOADED"})
"""Always allowed: a write still deadlocked past the store's retry window is refused, coded and retryable (nothing
written, so invariant 4 holds); the outcome counts below make sure most operations did run."""
WAVE = 40
"""Requests in flight at once."""
TENANTS = 4
SEED = 20260601
CYPHER = Path(__file__).parent / "cypher"


@dataclass
class Env:
    client: httpx.AsyncClient
    tenants: list[Tenant]
    admin: str
    shared: str
    shared_canary: str
    nobody: str
    """A namespace no token names: every request for it is FORBIDDEN."""

    @property
    def namespaces(self) -> list[str]:
        return [t.namespace for t in self.tenants] + [self.shared, self.nobody]

    def canary_of(self, ns: str) -> str:
        return next((t.canary for t in self.tenants if t.namespace == ns), self.shared_canary)


@pytest.fixture
async def env(migrated: Settings, embedder: Embedder) -> AsyncIterator[Env]:
    suffix = uuid.uuid4().hex[:8]
    shared, nobody = f"iso-{suffix}-shared", f"iso-{suffix}-nobody"
    tenants, entries = [], []
    for i in range(TENANTS):
        token, digest = new_token()
        tenants.append(Tenant(i, token, f"iso-{suffix}-t{i}", f"cnry{i}q{uuid.uuid4().hex[:10]}"))
        entries.append(make_entry(f"tenant-{i}", digest, write=[tenants[-1].namespace], shared=True))
    admin, admin_digest = new_token()
    entries.append(make_entry("iso-admin", admin_digest, admin=True))
    settings = api_settings(migrated, entries, shared=shared, llm_base_url=None, reflection_worker=False,
                            api_max_in_flight=2 * WAVE, api_max_queued=2 * WAVE, rate_limit_burst=100_000)
    app = create_app(settings, embedder=embedder)
    try:
        async with lifespan(app), httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                                    base_url="http://iso.test", timeout=180) as client:
            yield Env(client, tenants, admin, shared, f"cnrysq{uuid.uuid4().hex[:10]}", nobody)
    finally:
        await wipe(migrated, *(t.namespace for t in tenants), shared, nobody)


def strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """(key, string) for every string in a JSON value, with the key it sits under."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v, key)
    elif isinstance(value, str):
        yield key, value


def check(env: Env, mix: Mix, op: Op, response: httpx.Response) -> list[str]:
    """What is wrong with one answer (invariants 1, 2 and 5)."""
    if response.status_code != 200:
        return [f"HTTP {response.status_code}"]
    body: Json = response.json()
    problems, got = [], codes(body)
    allowed = op.allowed
    if op.must_fail and op.allowed != FORBIDDEN and op.variables.get("rq") in RACE_REQUESTS:
        # a race request id this tenant used before, in its own namespace, with another payload: refused as
        # CONFLICT before the foreign id is looked at (so the answer says nothing of it); seen at 10,000 operations
        allowed = allowed | {"CONFLICT"}
    if op.must_fail and op.allowed != FORBIDDEN and any(m.get("id") for m in op.variables.get("m") or []):
        # an id this tenant stored before, in its own namespace, with other content: refused as CONFLICT before the
        # foreign reference is looked at (the answer names the tenant's own id, nothing of the other's)
        allowed = allowed | {"CONFLICT"}
    if "INTERNAL" in got or not set(got) <= allowed | RETRYABLE:
        problems.append(f"codes {got}, allowed {sorted(allowed)}")
    if op.must_fail and (not got or body.get("data") is not None):
        problems.append("answered what it must refuse")
    if op.expect is not None and body.get("data") != op.expect:
        problems.append(f"expected {op.expect}")
    t = op.actor
    if t is None:
        return problems
    text = response.text.lower()
    problems += [f"another tenant's canary {o.canary}" for o in env.tenants if o is not t and o.canary in text]
    for key, value in strings(body.get("data")):
        if mix.owner.get(value, t.index) != t.index:
            problems.append(f"tenant {mix.owner[value]}'s id {value}")
        if key == "namespace" and value not in (t.namespace, env.shared):
            problems.append(f"namespace {value}")
    return problems


def wave_races(ops: list[Op]) -> int:
    """Race ids written by two or more tenants (or a tenant and the admin) in one wave."""
    writers: dict[str, set[int]] = {}
    for op in ops:
        if op.name == "writeMemories" and not op.must_fail:
            for item in op.variables["m"]:
                if item.get("id") in RACE_IDS:
                    writers.setdefault(item["id"], set()).add(-1 if op.actor is None else op.actor.index)
    return sum(len(w) > 1 for w in writers.values())


async def timed(env: Env, op: Op, outcomes: Counter[str]) -> httpx.Response:
    started = time.monotonic()
    response = await post(env.client, env.admin if op.actor is None else op.actor.token, op.query, op.variables)
    outcomes[f"ms {op.name}"] += int(1000 * (time.monotonic() - started))
    return response


async def run_mix(env: Env, mix: Mix) -> tuple[Counter[str], Counter[str], list[str]]:
    """Every operation, in waves: how many of each field ran, the outcomes, and each wrong answer (the op, what is
    wrong, the answer). The run goes on after one, so that the audit in Neo4j still runs."""
    ran: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    while sum(ran.values()) < OPERATIONS:
        ops = mix.wave(min(WAVE, OPERATIONS - sum(ran.values())))
        for op in ops:  # the mix itself never hands a tenant another's canary (but for a search for one)
            sent = json.dumps(op.variables).lower()
            assert op.probe or op.actor is None or not any(
                o.canary in sent for o in env.tenants if o is not op.actor), op
        outcomes["same-id races"] += wave_races(ops)
        responses = await asyncio.gather(*(timed(env, op, outcomes) for op in ops))
        for op, response in zip(ops, responses, strict=True):
            ran[op.name] += 1
            if problems := check(env, mix, op, response):
                who = "admin" if op.actor is None else f"tenant {op.actor.index}"
                outcomes[f"WRONG {op.name}: {problems[0][:40]}"] += 1
                failures.append(f"{op.name} by {who} {op.variables}\n  -> {problems}\n  answer: {response.text[:1500]}")
                continue
            body = response.json()
            outcomes["refused" if op.must_fail else "failed (allowed)" if body.get("errors") else "ok"] += 1
            if not body.get("errors"):
                mix.learn(op, body["data"])
                if op.name == "writeMemories":
                    outcomes.update(f"write {i['action']}" for i in body["data"]["writeMemories"]["items"])
    return ran, outcomes, failures


async def rows(store: Store, name: str, **params: Any) -> list[Json]:
    query = (CYPHER / f"{name}.cypher").read_text()
    async with store.driver.session(database=store.database) as session:
        result = await session.run(query, params)
        return await result.data()


async def audit(env: Env, mix: Mix, store: Store) -> list[str]:
    """Invariants 3 and 4, read from Neo4j directly."""
    problems: list[str] = []
    canaries = [t.canary for t in env.tenants] + [env.shared_canary]
    seen: Counter[tuple[str, str]] = Counter()
    memories: dict[str, set[str]] = {ns: set() for ns in env.namespaces}
    for node in await rows(store, "isolation_nodes", namespaces=env.namespaces):
        ns, own = node["namespace"], env.canary_of(node["namespace"])
        text = json.dumps(node["props"], default=str).lower()
        if ns == env.nobody:
            problems.append(f"a node in the namespace no token may write: {node['labels']} {text[:300]}")
        problems += [f"{ns} {node['labels']} {node['id']} holds canary {c}: {text[:300]}"
                     for c in canaries if c != own and c in text]
        if "Memory" not in node["labels"]:
            continue
        seen[(ns, node["id"])] += 1
        memories[ns].add(node["id"])
        if own not in (node["content"] or "").lower():
            problems.append(f"memory {ns}/{node['id']} without its tenant's canary: {node['content']!r}")
        tenant = next((t for t in env.tenants if t.namespace == ns), None)
        if tenant is not None and node["status"] == "deleted" and node["id"] not in tenant.deleted:
            problems.append(f"memory {ns}/{node['id']} is deleted, but its tenant never deleted it")
    problems += [f"id {key} stored {n} times" for key, n in seen.items() if n > 1]
    for t in env.tenants:
        problems += [f"tenant {t.index}'s acknowledged {i} is not in {t.namespace}" for i in t.ids
                     if i not in memories[t.namespace]]
        problems += [f"{t.namespace} holds tenant {mix.owner[i]}'s id {i}" for i in memories[t.namespace]
                     if mix.owner.get(i, t.index) != t.index]
    problems += [f"shared memory {i} is gone" for i in mix.shared_ids if i not in memories[env.shared]]
    for edge in await rows(store, "isolation_edges", namespaces=env.namespaces):
        src, dst = edge["source_namespace"], edge["target_namespace"]
        if src != dst:
            problems.append(f"edge {edge['source_labels']}({src}) -[{edge['type']}]-> {edge['target_labels']}({dst})")
        text = json.dumps(edge["props"], default=str).lower()
        problems += [f"edge {edge['type']} in {src} holds canary {c}" for c in canaries
                     if c in text and src is not None and c != env.canary_of(src)]
    problems += [str(r) for r in await store.read("test/cross_namespace_edges", namespaces=env.namespaces)]
    return problems


async def test_tenants_stay_isolated_under_a_concurrent_random_mix(env: Env, store: Store) -> None:
    mix = Mix(SEED, env.tenants, env.shared, env.shared_canary, env.nobody)
    started = time.monotonic()
    ran, outcomes, failures = await run_mix(env, mix)
    elapsed = time.monotonic() - started
    print(f"\n{sum(ran.values())} operations in {elapsed:.0f}s: {dict(ran)}\n{dict(outcomes)}")

    problems = await audit(env, mix, store)
    report = (f"{len(failures)} wrong answers, e.g.:\n" + "\n".join(failures[:5])
              + f"\n{len(problems)} isolation failures in Neo4j, e.g.:\n" + "\n".join(problems[:10]))
    assert not failures, report
    assert not problems, report
    assert sum(ran.values()) == OPERATIONS
    fields = set(schema._schema.query_type.fields) | set(schema._schema.mutation_type.fields)  # type: ignore[union-attr]
    fields -= {"consolidate"}  # admin-only and namespace-wide: its isolation is tested in test_consolidation_api.py
    assert set(ran) == fields, f"fields the mix never ran: {fields - set(ran)}"
    assert outcomes["refused"] >= OPERATIONS // 20, outcomes  # the probes happened ...
    assert outcomes["same-id races"] >= OPERATIONS // 100, outcomes  # ... and the races
    assert outcomes["write CREATED"] >= OPERATIONS // 20, outcomes
    for t in env.tenants:  # every tenant really wrote: the canary scans had something to find
        assert len(t.ids) >= 40, (t.index, len(t.ids))  # 49-76 a tenant in runs of 1,500 operations
        assert t.tasks, t.index
        assert t.deleted, t.index

