"""Tenants, their canaries and the seeded operation mix of ``test_tenant_isolation.py``.

Not a test module. Every operation is one GraphQL request of one token; :class:`Mix` draws them from what each
tenant has been acknowledged so far (its ids, its tasks) and from the other tenants' ids (probes).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

Json = dict[str, Any]

RACE_IDS = [f"race-{k}" for k in range(24)]
"""Client-chosen memory ids every tenant (and the admin, in the shared namespace) writes, often in one wave."""
RACE_TASKS = [f"race-task-{k}" for k in range(6)]
RACE_REQUESTS = [f"race-rq-{k}" for k in range(8)]
THINGS = ["lamp", "violin", "atlas", "kettle", "bicycle", "camera", "telescope", "quilt"]
PLACES = ["kitchen", "garage", "attic", "office", "garden", "cellar"]
COMMON_ENTITIES = ["Alice Moreau", "Berlin", "Project Atlas", "Kitchen"]
KINDS = ["EPISODIC", "SEMANTIC", "LESSON"]
STATUSES = ["ACTIVE", "SUPERSEDED", "ARCHIVED", "DELETED", "QUARANTINED"]
RELATION_TYPES = ["RELATES_TO", "CAUSES", "PART_OF", "SUPPORTS", "CONTRADICTS", "DERIVED_FROM"]
CHANNELS = ["VECTOR", "FULLTEXT", "RECENCY", "POPULARITY"]
OWN_FAILURES = frozenset({"NOT_FOUND", "INVALID_INPUT", "CONFLICT", "INVALID_CONFIG"})
"""What an operation on a tenant's own namespace may answer besides data (a race lost, a task ended, no LLM)."""
FORBIDDEN = frozenset({"FORBIDDEN"})
NOT_FOUND = frozenset({"NOT_FOUND"})
INVALID = frozenset({"INVALID_INPUT"})

MEMORY = ("id namespace kind content status tags source sources metadata { key value } "
          "relations { sourceId targetId type weight }")
TASK = ("id namespace agent title status outcome turns { id taskId content } memories { id namespace content } "
        "reflection { status error attempts }")
Q: dict[str, str] = {
    "writeMemories": """mutation($m: [MemoryInput!]!, $rq: String, $dedupe: Boolean!) {
        writeMemories(memories: $m, requestId: $rq, dedupe: $dedupe) { replayed items { index id action } } }""",
    "updateMemory": f"""mutation($ns: String!, $id: ID!, $content: String, $tags: [String!], $c: Float,
        $i: Float, $clear: Boolean!) {{ updateMemory(namespace: $ns, id: $id, content: $content, tags: $tags,
        confidence: $c, importance: $i, clearValidUntil: $clear) {{ {MEMORY} }} }}""",
    "deleteMemories": "mutation($ns: String!, $ids: [ID!]!) { deleteMemories(namespace: $ns, ids: $ids) }",
    "restoreMemories": "mutation($ns: String!, $ids: [ID!]!) { restoreMemories(namespace: $ns, ids: $ids) }",
    "releaseMemories": "mutation($ns: String!, $ids: [ID!]!) { releaseMemories(namespace: $ns, ids: $ids) }",
    "relate": """mutation($ns: String!, $r: [RelationInput!]!, $rq: String) {
        relate(namespace: $ns, relations: $r, requestId: $rq) }""",
    "unrelate": """mutation($ns: String!, $s: String!, $t: String!, $type: RelationType!) {
        unrelate(namespace: $ns, sourceId: $s, targetId: $t, type: $type) }""",
    "startTask": f"mutation($t: TaskInput!, $rq: String) {{ startTask(task: $t, requestId: $rq) {{ {TASK} }} }}",
    "logTurns": """mutation($ns: String!, $id: String!, $turns: [TurnInput!]!, $rq: String) {
        logTurns(namespace: $ns, taskId: $id, turns: $turns, requestId: $rq) { id taskId seq role content } }""",
    "endTask": f"""mutation($ns: String!, $id: ID!, $outcome: String) {{
        endTask(namespace: $ns, id: $id, outcome: $outcome, reflect: false) {{ {TASK} }} }}""",
    "reflect": """mutation($ns: String!, $id: ID!) { reflect(namespace: $ns, taskId: $id) {
        taskId namespace facts { id content } edges { sourceId targetId } } }""",
    # The query text is not selected: a probe searching for another tenant's canary must not see it echoed.
    "search": f"""query($q: String!, $ns: [String!], $kinds: [MemoryKind!], $k: Int!, $hops: Int!,
        $rerank: RerankMode!, $fusion: Fusion!, $ch: [Channel!], $sup: Boolean!, $cons: Boolean!,
        $after: DateTime) {{ search(query: $q, namespaces: $ns, kinds: $kinds, k: $k, hops: $hops,
        rerank: $rerank, fusion: $fusion, channels: $ch, includeSuperseded: $sup, consensus: $cons,
        createdAfter: $after) {{ rerank cached results {{ score seedId memory {{ {MEMORY} }}
        path {{ sourceId targetId type }} parts {{ fused coveredBy dissent }} }} }} }}""",
    "memory": f"query($id: ID!, $ns: String) {{ memory(id: $id, namespace: $ns) {{ {MEMORY} }} }}",
    "memories": f"""query($ns: String!, $kinds: [MemoryKind!], $st: [MemoryStatus!], $first: Int!,
        $after: String) {{ memories(namespace: $ns, kinds: $kinds, statuses: $st, first: $first, after: $after)
        {{ items {{ {MEMORY} }} nextCursor }} }}""",
    "neighborhood": """query($ns: String!, $id: ID!, $hops: Int!, $types: [String!]) {
        neighborhood(namespace: $ns, id: $id, hops: $hops, types: $types) {
        center nodes { key id label kind content status } edges { source target type weight } } }""",
    "task": f"query($ns: String!, $id: ID!) {{ task(namespace: $ns, id: $id) {{ {TASK} }} }}",
    "entities": "query($ns: String!, $first: Int!) { entities(namespace: $ns, first: $first) { name kind memories } }",
    "stats": """query($ns: String!) { stats(namespace: $ns) {
        namespace memories { key n } edges { key n } nodes { key n } } }""",
}


@dataclass(eq=False)
class Tenant:
    index: int
    token: str
    namespace: str
    canary: str
    """In every string this tenant writes (content, tags, source, metadata, entity, title, turn, outcome)."""
    ids: list[str] = field(default_factory=list)
    """Every memory id an acknowledged write answered with."""
    private: list[str] = field(default_factory=list)
    """Server-chosen memory ids (Mix.owner also holds its server-chosen task ids): no other token may ever be
    answered with one."""
    tasks: list[str] = field(default_factory=list)
    deleted: set[str] = field(default_factory=set)
    """Ids its deleteMemories answered with (changed to deleted)."""
    cursor: str | None = None


@dataclass(frozen=True)
class Op:
    name: str
    """The schema field."""
    actor: Tenant | None
    """None: the admin token (it writes and reads the shared namespace)."""
    variables: Json
    allowed: frozenset[str] = OWN_FAILURES
    """Error codes that may answer."""
    must_fail: bool = False
    """Another tenant's namespace or id: an error of ``allowed`` is the only right answer."""
    expect: Json | None = None
    """The exact data of an answer that must succeed and change nothing."""
    probe: bool = False
    """Its variables carry another tenant's canary on purpose (a search for it)."""

    @property
    def query(self) -> str:
        return Q[self.name]


class Mix:
    """The seeded operation mix. ``wave`` draws operations against the state acknowledged so far."""

    WEIGHTS: ClassVar[dict[str, int]] = {
        "writeMemories": 16, "updateMemory": 6, "deleteMemories": 4, "restoreMemories": 3, "releaseMemories": 1,
        "relate": 5, "unrelate": 3, "startTask": 3, "logTurns": 5, "endTask": 2, "reflect": 1, "search": 9,
        "memory": 11, "memories": 5, "neighborhood": 6, "task": 5, "entities": 3, "stats": 3,
    }

    def __init__(self, seed: int, tenants: list[Tenant], shared: str, shared_canary: str, nobody: str) -> None:
        self.rng = random.Random(seed)
        self.tenants, self.shared, self.shared_canary, self.nobody = tenants, shared, shared_canary, nobody
        self.shared_ids: list[str] = []
        self.owner: dict[str, int] = {}
        """Private id -> the index of the tenant it belongs to."""
        self.counter: Iterator[int] = itertools.count()
        self.hot = RACE_IDS[0]
        self.said: dict[tuple[str, str], str] = {}
        """(canary, race id) -> the content first written under that id: repeats say it again."""
        self.make: dict[str, Callable[[Tenant], Op]] = {name: getattr(self, f"_{name}") for name in self.WEIGHTS}

    def wave(self, size: int) -> list[Op]:
        self.hot = self.rng.choice(RACE_IDS)  # the id this wave's writers race on
        names, weights = list(self.WEIGHTS), list(self.WEIGHTS.values())
        ops = []
        for _ in range(size):
            if self.rng.random() < 0.04:
                ops.append(self._admin())
                continue
            ops.append(self.make[self.rng.choices(names, weights)[0]](self.rng.choice(self.tenants)))
        return ops

    # --- what the answers teach ----------------------------------------------------------------------------------

    def learn(self, op: Op, data: Json) -> None:
        t = op.actor
        if op.name == "writeMemories":
            for item in data["writeMemories"]["items"]:
                if t is None:
                    self.shared_ids.append(item["id"])
                elif item["id"] not in t.ids:
                    t.ids.append(item["id"])
                    self._own(t, item["id"], t.private)
        elif t is None:
            return
        elif op.name == "startTask" and data["startTask"]["id"] not in t.tasks:
            t.tasks.append(data["startTask"]["id"])
            self._own(t, data["startTask"]["id"], [])
        elif op.name == "deleteMemories":
            t.deleted.update(data["deleteMemories"])
        elif op.name == "memories":
            t.cursor = data["memories"]["nextCursor"]

    def _own(self, t: Tenant, id_: str, private: list[str]) -> None:
        if id_ not in RACE_IDS and id_ not in RACE_TASKS and t.canary not in id_:
            private.append(id_)
            self.owner[id_] = t.index

    # --- drawing -------------------------------------------------------------------------------------------------

    def _other(self, t: Tenant) -> Tenant:
        return self.rng.choice([o for o in self.tenants if o is not t])

    def _foreign_ns(self, t: Tenant, *, writing: bool) -> str | None:
        """With probability 0.15 a namespace ``t`` may not touch (another tenant's, an unknown one, or the shared
        one for a write); else None."""
        if self.rng.random() >= 0.15:
            return None
        choices = [self._other(t).namespace, self.nobody] + ([self.shared] if writing else [])
        return self.rng.choice(choices)

    def _foreign_id(self, t: Tenant) -> str | None:
        """Another tenant's private memory id, with probability 0.15 (when one exists)."""
        ids = self._other(t).private
        return self.rng.choice(ids) if ids and self.rng.random() < 0.15 else None

    def _other_tasks(self, t: Tenant) -> list[str]:
        return [task for o in self.tenants if o is not t for task in o.tasks if task in self.owner]

    def _own_id(self, t: Tenant) -> str:
        return self.rng.choice(t.ids) if t.ids and self.rng.random() < 0.8 else self.rng.choice(RACE_IDS)

    def _own_task(self, t: Tenant) -> str:
        return self.rng.choice(t.tasks) if t.tasks and self.rng.random() < 0.85 else self.rng.choice(RACE_TASKS)

    def _text(self, canary: str) -> str:
        thing, place = self.rng.choice(THINGS), self.rng.choice(PLACES)
        return f"{canary} note {next(self.counter)}: the {thing} is kept in the {place}."

    def _memory_input(self, canary: str, ns: str, t: Tenant | None) -> Json:
        item: Json = {"namespace": ns, "kind": self.rng.choice(KINDS), "content": self._text(canary),
                      "tags": [canary, self.rng.choice(PLACES)], "source": f"agent {canary}",
                      "entities": [*self.rng.sample(COMMON_ENTITIES, 2), f"Vault {canary}"],
                      "metadata": [{"key": "owner", "value": canary}],
                      "confidence": round(self.rng.uniform(0.3, 1.0), 2)}
        draw = self.rng.random()
        if draw < 0.4:
            item["id"] = self.hot if self.rng.random() < 0.6 else self.rng.choice(RACE_IDS)
            if self.rng.random() < 0.9:  # mostly what the id said first (a race of retries); else CONFLICT
                item["content"] = self.said.setdefault((canary, item["id"]), item["content"])
        elif draw < 0.55:
            item["id"] = f"{canary}-m{next(self.counter)}"
        if t is not None and t.tasks and self.rng.random() < 0.2:
            item["taskId"] = self.rng.choice(t.tasks)
        if t is not None and t.ids and self.rng.random() < 0.15:
            item["derivedFrom"] = [self.rng.choice(t.ids)]
        return item

    def _request_id(self) -> str | None:
        draw = self.rng.random()
        return self.rng.choice(RACE_REQUESTS) if draw < 0.1 else f"rq-{next(self.counter)}" if draw < 0.3 else None

    def _admin(self) -> Op:
        items = [self._memory_input(self.shared_canary, self.shared, None) for _ in range(self.rng.randint(1, 2))]
        return Op("writeMemories", None, {"m": items, "rq": None, "dedupe": True})

    # --- one generator per schema field ----------------------------------------------------------------------------

    def _writeMemories(self, t: Tenant) -> Op:  # named after the schema field
        foreign = self._foreign_ns(t, writing=True)
        items = [self._memory_input(t.canary, foreign or t.namespace, t) for _ in range(self.rng.randint(1, 3))]
        variables = {"m": items, "rq": self._request_id(), "dedupe": self.rng.random() < 0.8}
        if foreign:
            return Op("writeMemories", t, variables, FORBIDDEN, must_fail=True)
        others = self._other_tasks(t)
        if (stolen := self._foreign_id(t)) is not None:  # provenance from another tenant's memory
            items[0]["derivedFrom"] = [stolen]
            return Op("writeMemories", t, variables, INVALID, must_fail=True)
        if others and self.rng.random() < 0.05:  # a memory of another tenant's task
            items[0]["taskId"] = self.rng.choice(others)
            return Op("writeMemories", t, variables, INVALID, must_fail=True)
        return Op("writeMemories", t, variables)

    def _updateMemory(self, t: Tenant) -> Op:
        variables: Json = {"ns": t.namespace, "id": self._own_id(t), "content": None, "tags": None, "c": None,
                           "i": round(self.rng.uniform(0, 1), 2), "clear": self.rng.random() < 0.2}
        if self.rng.random() < 0.7:
            variables["content"] = self._text(t.canary).replace("note", "revised note")
        if self.rng.random() < 0.4:
            variables["tags"] = [t.canary, "revised"]
        if (foreign := self._foreign_ns(t, writing=True)) is not None:
            return Op("updateMemory", t, {**variables, "ns": foreign}, FORBIDDEN, must_fail=True)
        if (stolen := self._foreign_id(t)) is not None:
            return Op("updateMemory", t, {**variables, "id": stolen}, NOT_FOUND, must_fail=True)
        return Op("updateMemory", t, variables)

    def _ids_op(self, name: str, t: Tenant) -> Op:
        ids = [self._own_id(t) for _ in range(self.rng.randint(1, 3))]
        if (foreign := self._foreign_ns(t, writing=True)) is not None:
            return Op(name, t, {"ns": foreign, "ids": ids}, FORBIDDEN, must_fail=True)
        if (stolen := self._foreign_id(t)) is not None:  # another tenant's id under my namespace: no match
            return Op(name, t, {"ns": t.namespace, "ids": [stolen]}, expect={name: []})
        return Op(name, t, {"ns": t.namespace, "ids": ids})

    def _deleteMemories(self, t: Tenant) -> Op:
        return self._ids_op("deleteMemories", t)

    def _restoreMemories(self, t: Tenant) -> Op:
        return self._ids_op("restoreMemories", t)

    def _releaseMemories(self, t: Tenant) -> Op:  # admins only: refused to every tenant token
        ns = self.rng.choice([t.namespace, self._other(t).namespace, self.shared])
        return Op("releaseMemories", t, {"ns": ns, "ids": [self._own_id(t)]}, FORBIDDEN, must_fail=True)

    def _relate(self, t: Tenant) -> Op:
        relations = [{"sourceId": self._own_id(t), "targetId": self._own_id(t), "source": f"rel {t.canary}",
                      "type": self.rng.choice(RELATION_TYPES), "weight": round(self.rng.uniform(0.1, 1), 2)}
                     for _ in range(self.rng.randint(1, 3))]
        variables = {"ns": t.namespace, "r": relations, "rq": self._request_id()}
        if (foreign := self._foreign_ns(t, writing=True)) is not None:
            return Op("relate", t, {**variables, "ns": foreign}, FORBIDDEN, must_fail=True)
        if (stolen := self._foreign_id(t)) is not None:
            relations[0]["targetId" if self.rng.random() < 0.5 else "sourceId"] = stolen
            return Op("relate", t, variables, INVALID, must_fail=True)
        return Op("relate", t, variables)

    def _unrelate(self, t: Tenant) -> Op:
        variables = {"ns": t.namespace, "s": self._own_id(t), "t": self._own_id(t),
                     "type": self.rng.choice(RELATION_TYPES)}
        if (foreign := self._foreign_ns(t, writing=True)) is not None:
            return Op("unrelate", t, {**variables, "ns": foreign}, FORBIDDEN, must_fail=True)
        if (stolen := self._foreign_id(t)) is not None:
            return Op("unrelate", t, {**variables, "t": stolen}, expect={"unrelate": False})
        return Op("unrelate", t, variables)

    def _startTask(self, t: Tenant) -> Op:
        draw = self.rng.random()
        task_id = (self.rng.choice(RACE_TASKS) if draw < 0.3 else f"{t.canary}-t{next(self.counter)}"
                   if draw < 0.45 else None)
        task = {"namespace": t.namespace, "agent": f"agent {t.canary}", "title": f"{t.canary} job", "id": task_id}
        if (foreign := self._foreign_ns(t, writing=True)) is not None:
            return Op("startTask", t, {"t": {**task, "namespace": foreign}, "rq": None}, FORBIDDEN, must_fail=True)
        return Op("startTask", t, {"t": task, "rq": self._request_id()})

    def _task_op(self, name: str, t: Tenant, variables: Json, key: str) -> Op:
        if (foreign := self._foreign_ns(t, writing=name != "task")) is not None:
            return Op(name, t, {**variables, "ns": foreign}, FORBIDDEN, must_fail=True)
        others = self._other_tasks(t)
        if others and self.rng.random() < 0.15:
            return Op(name, t, {**variables, key: self.rng.choice(others)}, NOT_FOUND, must_fail=True)
        return Op(name, t, variables)

    def _logTurns(self, t: Tenant) -> Op:
        turns = [{"role": self.rng.choice(["USER", "ASSISTANT", "TOOL"]), "content": self._text(t.canary)}
                 for _ in range(self.rng.randint(1, 3))]
        return self._task_op("logTurns", t, {"ns": t.namespace, "id": self._own_task(t), "turns": turns,
                                             "rq": self._request_id()}, "id")

    def _endTask(self, t: Tenant) -> Op:
        return self._task_op("endTask", t, {"ns": t.namespace, "id": self._own_task(t),
                                            "outcome": f"done {t.canary}"}, "id")

    def _reflect(self, t: Tenant) -> Op:  # no LLM: INVALID_CONFIG on its own namespace, FORBIDDEN on another
        return self._task_op("reflect", t, {"ns": t.namespace, "id": self._own_task(t)}, "id")

    def _task(self, t: Tenant) -> Op:
        return self._task_op("task", t, {"ns": t.namespace, "id": self._own_task(t)}, "id")

    def _search(self, t: Tenant) -> Op:
        rng = self.rng
        query = rng.choice([f"{t.canary} {rng.choice(THINGS)}", f"where is the {rng.choice(THINGS)} kept",
                            f"{rng.choice(COMMON_ENTITIES)} {rng.choice(PLACES)}", self._other(t).canary])
        variables: Json = {
            "q": query, "ns": rng.choice([None, [t.namespace], [t.namespace, self.shared], [self.shared]]),
            "kinds": rng.choice([None, rng.sample(KINDS, 2)]), "k": rng.randint(1, 15), "hops": rng.randint(1, 2),
            "rerank": rng.choice(["FORMULA", "NONE"]), "fusion": rng.choice(["RRF", "WEIGHTED"]),
            "ch": rng.choice([None, rng.sample(CHANNELS, rng.randint(1, 4))]), "sup": rng.random() < 0.3,
            "cons": rng.random() < 0.1, "after": rng.choice([None, "2020-01-01T00:00:00Z"])}
        probe = any(o.canary == query for o in self.tenants if o is not t)
        if (foreign := self._foreign_ns(t, writing=False)) is not None:
            variables["ns"] = rng.choice([[foreign], [t.namespace, foreign]])
            return Op("search", t, variables, FORBIDDEN, must_fail=True, probe=probe)
        return Op("search", t, variables, probe=probe)

    def _memory(self, t: Tenant) -> Op:
        draw = self.rng.random()
        if draw < 0.15 and self.shared_ids:
            return Op("memory", t, {"id": self.rng.choice(self.shared_ids),
                                    "ns": self.rng.choice([None, self.shared])})
        if (foreign := self._foreign_ns(t, writing=False)) is not None:
            return Op("memory", t, {"id": self._own_id(t), "ns": foreign}, FORBIDDEN, must_fail=True)
        if (stolen := self._foreign_id(t)) is not None:
            return Op("memory", t, {"id": stolen, "ns": self.rng.choice([None, t.namespace])}, NOT_FOUND,
                      must_fail=True)
        return Op("memory", t, {"id": self._own_id(t), "ns": self.rng.choice([None, t.namespace])})

    def _ns_read(self, name: str, t: Tenant, variables: Json) -> Op:
        if (foreign := self._foreign_ns(t, writing=False)) is not None:
            return Op(name, t, {**variables, "ns": foreign}, FORBIDDEN, must_fail=True)
        return Op(name, t, variables)

    def _memories(self, t: Tenant) -> Op:
        ns = self.shared if self.rng.random() < 0.15 else t.namespace
        after = t.cursor if ns == t.namespace and self.rng.random() < 0.3 else None
        return self._ns_read("memories", t, {
            "ns": ns, "kinds": self.rng.choice([None, self.rng.sample(KINDS, 2)]), "first": self.rng.randint(1, 50),
            "st": self.rng.choice([None, self.rng.sample(STATUSES, self.rng.randint(1, 5))]), "after": after})

    def _neighborhood(self, t: Tenant) -> Op:
        variables = {"ns": t.namespace, "id": self._own_id(t), "hops": self.rng.randint(1, 3),
                     "types": self.rng.choice([None, self.rng.sample(RELATION_TYPES, 3)])}
        if (stolen := self._foreign_id(t)) is not None:
            return Op("neighborhood", t, {**variables, "id": stolen}, NOT_FOUND, must_fail=True)
        return self._ns_read("neighborhood", t, variables)

    def _entities(self, t: Tenant) -> Op:
        ns = self.shared if self.rng.random() < 0.15 else t.namespace
        return self._ns_read("entities", t, {"ns": ns, "first": self.rng.randint(1, 50)})

    def _stats(self, t: Tenant) -> Op:
        return self._ns_read("stats", t, {"ns": self.rng.choice([t.namespace, t.namespace, self.shared])})
