"""Consolidation against the real Neo4j and the real embedder: near duplicates merge into one memory that inherits
their edges, entities and provenance; memories whose key details differ stay apart; a second run and a dry run
write nothing; a failure injected into one cluster's transaction leaves that cluster as it was while the others
merge; merged memories leave search but stay readable (with their successor) and in ``as_of`` history; every
signature verifies afterwards. The LLM path runs on a scripted endpoint here (test_consolidation_llm.py uses the
local model)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, LiteralString, TypedDict

import pytest

from graphmem.config import Settings
from graphmem.consolidation import Consolidator, Outcome
from graphmem.consolidation.candidates import read_candidates
from graphmem.consolidation.plan import MergedBy, merged_id, plan_cluster
from graphmem.embed import Embedder, embedding_dimension
from graphmem.models import MemoryDraft, MemoryKind, MemoryStatus, Relation, RelationType, Role, Task, utcnow
from graphmem.retrieval.service import RetrievalService
from graphmem.retrieval.types import SearchOptions
from graphmem.service import MemoryService
from graphmem.service.browse import BrowseService
from graphmem.service.integrity_ops import check
from graphmem.store import Step, Store
from graphmem.store.cypher import CypherLoader, strip_comments
from graphmem.store.store import Tx
from tests.integration.reflection_support import Script, scripted_llm

CYPHER = Path(__file__).parent / "cypher"
SNAPSHOT = (CYPHER / "consolidation_snapshot.cypher").read_text(encoding="utf-8")
EPS = {"consolidation_eps": 0.15}
CAROLINE = "Caroline moved to Boston in 2021."
CAROLINE_AGAIN = "In 2021, Caroline moved to Boston."
CAROLINE_NOW = "Caroline is moving to Boston."  # near them (cosine ~.91), but without the year: stays apart
REFUND_30 = "Refunds are possible within 30 days of delivery."
REFUND_14 = "Refunds are possible within 14 days of delivery."  # cosine ~.92 to the 30-day one
JON = ("Jon opened a dance studio in Paris.", "Jon has opened a dance studio in Paris.",
       "Jon opened his own dance studio in Paris.")


class Provenance(TypedDict, total=False):
    """A draft's provenance, given to some drafts only (a field left out stays unset)."""

    writer: str
    trust: float


async def snapshot(store: Store, namespace: str) -> tuple[list[str], list[str]]:
    async with store.driver.session(database=store.database) as session:
        result = await session.run(SNAPSHOT, namespace=namespace)
        row = await result.single()
    assert row is not None
    return sorted(row["nodes"]), sorted(row["edges"])


def lines_of(snap: tuple[list[str], list[str]], ids: set[str]) -> list[str]:
    return [line for part in snap for line in part if any(i in line for i in ids)]


@dataclass
class Seeded:
    task: str
    turns: list[str]


async def seed(service: MemoryService, ns: str) -> Seeded:
    task = await service.tasks.start(Task(namespace=ns, agent="bot", title="moving"))
    turns = await service.tasks.log_turns(ns, task.id, [(Role.USER, "I moved to Boston in 2021."),
                                                        (Role.USER, "Yes, 2021 was the year of the move.")])

    def draft(key: str, content: str, **fields: Any) -> MemoryDraft:
        return MemoryDraft(namespace=ns, kind=MemoryKind.SEMANTIC, content=content, id=key, **fields)

    # one batch each: the write path links each to the memories stored before it (SIMILAR_TO)
    await service.write_memories([draft("a", CAROLINE, confidence=0.9, derived_from=(turns[0].id,), source="import",
                                        tags=("moves",))], dedupe=False)
    await service.write_memories([draft("b", CAROLINE_AGAIN, confidence=0.6, derived_from=(turns[1].id,),
                                        task_id=task.id, source="reflection:x", tags=("city",),
                                        entities=("Boston trip",))], dedupe=False)
    await service.write_memories([draft("h", CAROLINE_NOW), draft("d", REFUND_30), draft("e", REFUND_14),
                                  draft("f", "Melanie painted a sunrise over the lake.")], dedupe=False)
    await service.relate(ns, [Relation(source_id="f", target_id="b", type=RelationType.SUPPORTS, weight=0.7),
                              Relation(source_id="b", target_id="d", type=RelationType.CAUSES, weight=0.4)])
    return Seeded(task.id, [t.id for t in turns])


async def test_near_duplicates_merge_into_the_best_supported_one(
        store: Store, embedder: Embedder, migrated: Settings, namespace: str) -> None:
    settings = migrated.model_copy(update=EPS)
    service = MemoryService(store, embedder, settings)
    seeded = await seed(service, namespace)
    before_merge = utcnow()

    report = await Consolidator(service, settings).run(namespace)
    assert (report.clusters, report.merged, report.archived, report.failed, report.llm_calls) == (1, 1, 1, 0, 0)
    assert report.groups == 2  # {a, b, h} and {d, e}: embeddings alone would merge both
    assert report.split_off == 3  # h lacks the year; 14 days is not 30 days
    (cluster,) = report.plans
    assert (cluster.member_ids, cluster.survivor_id, cluster.merged_by, cluster.outcome) == (
        ("a", "b"), "a", MergedBy.KEPT, Outcome.MERGED)

    a, b = [await service.get_memory(namespace, i) for i in "ab"]
    assert (a.status, b.status) == (MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED)
    assert b.valid_until is not None
    assert a.valid_until is None
    assert a.confidence == pytest.approx(0.9 + (1 - 0.9) * 0.2 * 0.6)  # strengthened as the write path would
    assert a.sources == ("import", "reflection:x")
    assert set(a.tags) == {"moves", "city"}
    assert a.reinforced_count == 1
    for other in "hdef":
        assert (await service.get_memory(namespace, other)).status is MemoryStatus.ACTIVE

    edges = {(e["source_id"], e["type"], e["target_id"])
             for e in await store.read("relation/of_memory", id="a", namespace=namespace)}
    assert {("b", "MERGED_INTO", "a"), ("f", "SUPPORTS", "a"), ("a", "CAUSES", "d")} <= edges
    assert not any(s == t for s, _, t in edges)
    old = {(e["source_id"], e["type"], e["target_id"])
           for e in await store.read("relation/of_memory", id="b", namespace=namespace)}
    assert {("f", "SUPPORTS", "b"), ("b", "CAUSES", "d")} <= old  # the original keeps its own edges
    (reach,) = await store.read("eval/memory_evidence", ids=["a"], namespaces=[namespace])
    assert set(reach["turns"]) == set(seeded.turns)  # provenance: the union of the members' turns
    from_task = await store.read("task/memories_of", ids=[seeded.task], namespace=namespace)
    assert "a" in {r["memory"]["id"] for r in from_task}
    around = await BrowseService(store).neighborhood(namespace, "a", hops=1)
    assert "boston trip" in {n.id for n in around.nodes}  # the member's entity (its name normalised)
    assert (await check(store, namespace=namespace)).failures == []  # every signature verifies

    retrieval = RetrievalService(store, embedder, settings)
    question = "Where did Caroline move in 2021?"
    found = [r.memory.id for r in (await retrieval.search(question, SearchOptions(namespaces=(namespace,)))).results]
    assert "a" in found
    assert "b" not in found  # merged: hidden by default
    shown = await retrieval.search(question, SearchOptions(namespaces=(namespace,), statuses=(
        MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED)))
    assert "b" in {r.memory.id for r in shown.results}
    then = await retrieval.search(question, SearchOptions(namespaces=(namespace,), as_of=before_merge))
    assert {"a", "b"} <= {r.memory.id for r in then.results}  # what was known before the merge
    now = await retrieval.search(question, SearchOptions(namespaces=(namespace,), as_of=utcnow()))
    assert "b" not in {r.memory.id for r in now.results}

    snap = await snapshot(store, namespace)
    again = await Consolidator(service, settings).run(namespace)
    assert (again.clusters, again.merged, again.archived) == (0, 0, 0)
    assert await snapshot(store, namespace) == snap  # a second run changes nothing


async def test_a_dry_run_plans_and_writes_nothing(store: Store, embedder: Embedder, migrated: Settings,
                                                  namespace: str) -> None:
    settings = migrated.model_copy(update=EPS)
    service = MemoryService(store, embedder, settings)
    await seed(service, namespace)
    snap = await snapshot(store, namespace)
    report = await Consolidator(service, settings).run(namespace, dry_run=True)
    assert report.dry_run
    assert (report.clusters, report.merged, report.archived) == (1, 0, 0)
    (plan,) = report.plans
    assert (plan.member_ids, plan.archived, plan.outcome, plan.text) == (("a", "b"), ("b",), Outcome.PLANNED,
                                                                         CAROLINE)
    assert "same key details" in plan.reason
    assert any("would merge 1, archiving 1" in line for line in report.lines())
    assert await snapshot(store, namespace) == snap


class WithTestCypher(CypherLoader):
    """The shipped statements, plus this folder's test-only ones as ``itest/<name>``."""

    def __call__(self, name: str) -> LiteralString:
        if name.startswith("itest/"):
            text = (CYPHER / f"{name.removeprefix('itest/')}.cypher").read_text(encoding="utf-8")
            return strip_comments(text)
        return super().__call__(name)


class FailingStore(Store):
    """Every write transaction ends with a test-only statement that fails when ``victim`` is archived in it: the
    transaction of the cluster that archives it fails after all of its own statements ran."""

    victim = ""
    namespace = ""

    async def transact(self, label: str, work: Any) -> Any:
        async def failing(tx: Tx) -> Any:
            result = await work(tx)
            await tx.run("itest/consolidation_fail_if_archived", namespace=self.namespace, id=self.victim)
            return result

        return await super().transact(label, failing)


async def test_a_failure_in_one_cluster_leaves_it_untouched_and_the_run_goes_on(
        store: Store, embedder: Embedder, migrated: Settings, namespace: str) -> None:
    settings = migrated.model_copy(update=EPS)
    service = MemoryService(store, embedder, settings)
    await seed(service, namespace)
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=text, id=key,
                                              confidence=conf)
                                  for key, text, conf in (("j1", JON[0], 0.9), ("j2", JON[1], 0.5))], dedupe=False)
    failing = FailingStore(store.driver, settings, cypher=WithTestCypher(), integrity=store.integrity)
    failing.victim, failing.namespace = "j2", namespace
    broken = MemoryService(failing, embedder, settings)
    before = await snapshot(store, namespace)

    report = await Consolidator(broken, settings).run(namespace)
    assert (report.clusters, report.merged, report.failed) == (2, 1, 1)
    outcomes = {p.member_ids: (p.outcome, p.error) for p in report.plans}
    assert outcomes[("a", "b")] == (Outcome.MERGED, None)
    failed_outcome, error = outcomes[("j1", "j2")]
    assert failed_outcome is Outcome.FAILED
    assert error is not None
    assert "/ by zero" in error  # the injected statement
    after = await snapshot(store, namespace)
    assert lines_of(after, {"j1", "j2"}) == lines_of(before, {"j1", "j2"})  # rolled back, all of it
    assert lines_of(after, {"a", "b"}) != lines_of(before, {"a", "b"})  # the other cluster merged
    assert (await service.get_memory(namespace, "b")).status is MemoryStatus.ARCHIVED

    resumed = await Consolidator(service, settings).run(namespace)  # the next run takes up what is left
    assert [(p.member_ids, p.outcome) for p in resumed.plans] == [(("j1", "j2"), Outcome.MERGED)]
    assert (await service.get_memory(namespace, "j2")).status is MemoryStatus.ARCHIVED
    assert (await check(store, namespace=namespace)).failures == []


async def test_a_changed_member_skips_its_cluster(store: Store, embedder: Embedder, migrated: Settings,
                                                  namespace: str) -> None:
    """A member edited between the plan and the write is not archived into a text it no longer says."""
    settings = migrated.model_copy(update=EPS)
    service = MemoryService(store, embedder, settings)
    await seed(service, namespace)
    consolidator = Consolidator(service, settings)
    candidates, found = await consolidator.find(namespace)
    (cluster,) = found.clusters
    await service.update_memory(namespace, "b", content="In 2021, Caroline moved to Boston with her dog.")
    report = await consolidator._merge(plan_cluster(cluster, namespace=namespace, alpha=0.2), None,
                                       {"merged": 0, "archived": 0, "skipped": 0, "failed": 0})
    assert report.outcome is Outcome.SKIPPED
    assert report.error is not None
    assert "changed since" in report.error
    assert (await service.get_memory(namespace, "b")).status is MemoryStatus.ACTIVE
    assert (await service.get_memory(namespace, "a")).confidence == 0.9
    assert len(candidates.items) == 6


async def test_with_an_llm_the_merged_text_is_a_new_signed_memory(
        store: Store, embedder: Embedder, migrated: Settings, namespace: str) -> None:
    settings = migrated.model_copy(update=EPS)
    service = MemoryService(store, embedder, settings)
    task = await service.tasks.start(Task(namespace=namespace, title="Jon's plans"))
    turns = await service.tasks.log_turns(namespace, task.id, [(Role.USER, f"turn {i}") for i in range(3)])
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=text,
                                              id=f"j{i}", derived_from=(turns[i].id,), confidence=0.7,
                                              **(Provenance(writer="tok-chat", trust=0.3) if i == 1 else Provenance()))
                                  for i, text in enumerate(JON)], dedupe=False)  # j1 from a low-trust writer
    merged_text = "Jon opened his own dance studio in Paris."  # same as j2's words: the new memory is still new
    script = Script(['{"content": "Jon opened a dance studio in Rome."}', {"content": merged_text}])
    llm = scripted_llm(settings, script)
    try:
        report = await Consolidator(service, settings, llm).run(namespace)
    finally:
        await llm.close()
    assert (report.clusters, report.merged, report.archived, report.llm_calls, report.llm_fallbacks) == (
        1, 1, 3, 2, 0)  # the first answer changed the city: one repair
    survivor = merged_id(namespace, ["j0", "j1", "j2"])
    (plan,) = report.plans
    assert (plan.survivor_id, plan.merged_by, plan.text) == (survivor, MergedBy.LLM, merged_text)
    memory = await service.get_memory(namespace, survivor)
    assert (memory.content, memory.status, memory.source) == (merged_text, MemoryStatus.ACTIVE, "consolidation")
    assert (memory.writer, memory.trust) == ("tok-chat", 0.3)  # made of j1's words too: no trust laundering
    assert memory.confidence == pytest.approx(1 - 0.3 * (1 - 0.2 * 0.7) ** 2)
    for i in range(3):
        assert (await service.get_memory(namespace, f"j{i}")).status is MemoryStatus.ARCHIVED
    edges = await store.read("test/edges_of_type", namespace=namespace, type="MERGED_INTO")
    assert sorted((e["source"], e["target"]) for e in edges) == [(f"j{i}", survivor) for i in range(3)]
    similar = await store.read("test/edges_of_type", namespace=namespace, type="SIMILAR_TO")
    assert not any(survivor in (e["source"], e["target"]) for e in similar)  # nothing similar but its members
    (reach,) = await store.read("eval/memory_evidence", ids=[survivor], namespaces=[namespace])
    assert set(reach["turns"]) == {t.id for t in turns}
    assert (await check(store, namespace=namespace)).failures == []  # signed by the write path
    found = await RetrievalService(store, embedder, settings).search(
        "Where did Jon open his dance studio?", SearchOptions(namespaces=(namespace,), hops=0))
    assert [r.memory.id for r in found.results] == [survivor]  # embedded and indexed; the members are hidden
    snap = await snapshot(store, namespace)
    again = await Consolidator(service, settings, scripted_llm(settings, Script([]))).run(namespace)
    assert (again.clusters, again.llm_calls) == (0, 0)
    assert await snapshot(store, namespace) == snap


async def test_a_bad_llm_answer_keeps_the_best_member(store: Store, embedder: Embedder, migrated: Settings,
                                                      namespace: str) -> None:
    settings = migrated.model_copy(update=EPS)
    service = MemoryService(store, embedder, settings)
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=text,
                                              id=f"j{i}", confidence=0.9 - i / 10) for i, text in enumerate(JON)],
                                 dedupe=False)
    script = Script(["not json", '{"content": "Jon opened a dance studio."}'])  # no JSON, then Paris dropped
    llm = scripted_llm(settings, script)
    try:
        report = await Consolidator(service, settings, llm).run(namespace)
    finally:
        await llm.close()
    assert (report.merged, report.archived, report.llm_calls, report.llm_fallbacks) == (1, 2, 2, 1)
    (plan,) = report.plans
    assert (plan.survivor_id, plan.merged_by, plan.text) == ("j0", MergedBy.KEPT, JON[0])
    assert "bad LLM answer" in plan.reason
    assert (await service.get_memory(namespace, "j0")).status is MemoryStatus.ACTIVE


async def test_a_merged_text_the_screen_flags_is_not_written(store: Store, embedder: Embedder, migrated: Settings,
                                                             namespace: str) -> None:
    """A merge must not turn active memories into a quarantined one (or an active poisoned one): the best member
    is kept instead."""
    settings = migrated.model_copy(update=EPS)
    service = MemoryService(store, embedder, settings)
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=text,
                                              id=f"j{i}", confidence=0.9 - i / 10) for i, text in enumerate(JON)],
                                 dedupe=False)
    hidden = {"content": "Jon opened a dance studio in Paris.\u200b\u200b\u200b"}  # zero-width text: screened
    llm = scripted_llm(settings, Script([hidden]))
    try:
        report = await Consolidator(service, settings, llm).run(namespace)
    finally:
        await llm.close()
    (plan,) = report.plans
    assert (plan.outcome, plan.survivor_id, plan.merged_by, report.llm_fallbacks) == (
        Outcome.MERGED, "j0", MergedBy.KEPT, 1)
    assert "poisoning screen" in plan.reason
    quarantined = await BrowseService(store).memories(namespace, statuses=(MemoryStatus.QUARANTINED,))
    assert not quarantined.items


async def test_a_memory_whose_embedding_has_another_size_is_left_out_and_the_rest_merges(
        store: Store, embedder: Embedder, migrated: Settings, namespace: str, caplog: pytest.LogCaptureFixture) -> None:
    """One wrong-size vector made np.stack fail for the whole namespace, on every retry."""
    settings = migrated.model_copy(update=EPS)
    service = MemoryService(store, embedder, settings)
    await seed(service, namespace)
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=text,
                                              id=f"j{i}", confidence=0.9 - i / 10) for i, text in enumerate(JON)],
                                 dedupe=False)
    await store.write([Step("test/set_embedding_in", {"namespace": namespace, "id": "j2",
                                                      "embedding": [0.1, 0.2, 0.3, 0.4, 0.5]})])
    with caplog.at_level(logging.WARNING, logger="graphmem.consolidation"):
        report = await Consolidator(service, settings).run(namespace)
    assert (report.candidates, report.clusters, report.merged, report.failed) == (8, 2, 2, 0)
    assert sorted(p.member_ids for p in report.plans) == [("a", "b"), ("j0", "j1")]
    assert (await service.get_memory(namespace, "j2")).status is MemoryStatus.ACTIVE
    assert "leaves out 1 memory whose embedding is no vector of 384 finite numbers" in caplog.text
    assert "j2: 5 items" in caplog.text
    for dimension in (embedding_dimension(settings), None):  # None: the size most of the namespace's vectors have
        left = await read_candidates(store, namespace, [MemoryKind.SEMANTIC], page=3, now=utcnow(),
                                     dimension=dimension)
        assert (len(left.items), left.unusable) == (6, 1)  # a, h, d, e, f, j0 (b and j1 merged); j2 left out
