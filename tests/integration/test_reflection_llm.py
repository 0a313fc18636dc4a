"""End to end with the real local model (scripts/llm-server.sh: Qwen2.5-Coder-1.5B on llama.cpp), real Neo4j
and the real embedder: the two cases of the reflection issue. Slow on 2 CPU cores (about a minute per
reflection). With GRAPHMEM_E2E_REPORT=path, each case's figures and the graph it wrote (as Neo4j Browser would
show the Cypher result) are appended to that JSON file for the benchmark record."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.llm import LLMClient
from graphmem.models import MemoryDraft, MemoryKind, MemoryStatus, Role, Task
from graphmem.reflection import ReflectionReport, ReflectionService
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.service import MemoryService
from graphmem.store import Store

CUSTOMER_SERVICE = [
    (Role.USER, "Hi, I bought running shoes from you last week (order 4411) and they are too small. "
                "What is your return policy?"),
    (Role.ASSISTANT, "You can return unworn items within 30 days of delivery for a full refund. Start the return "
                     "from the Orders page and print the free return label."),
    (Role.USER, "OK. When will I get the refund? I really need the money back before my rent is due on the 1st."),
    (Role.ASSISTANT, "Refunds go to your original payment method 5-7 business days after the warehouse receives "
                     "the return. If you ship it today, it should arrive before the 1st."),
    (Role.USER, "Thanks, I'll ship it today."),
]
MOVED = [
    (Role.USER, "Please update my delivery address. I moved from Paris to Berlin last month."),
    (Role.ASSISTANT, "Done: your deliveries now go to your new address in Berlin."),
    (Role.USER, "Great, thanks!"),
]


async def ended_task(service: MemoryService, namespace: str, title: str, turns: list[tuple[Role, str]]) -> str:
    task = await service.tasks.start(Task(namespace=namespace, agent="support-bot", title=title))
    await service.tasks.log_turns(namespace, task.id, turns)
    await service.tasks.end(namespace, task.id)
    return task.id


async def reflect_with_the_model(service: MemoryService, namespace: str, task_id: str) -> ReflectionReport:
    llm = LLMClient(service.settings)
    try:
        return await ReflectionService(service, llm).reflect(namespace, task_id)
    finally:
        await llm.close()


async def record(name: str, report: ReflectionReport, store: Store, namespace: str) -> None:
    """Appends the case to GRAPHMEM_E2E_REPORT (when set): figures plus the Browser view of what was written."""
    path = os.environ.get("GRAPHMEM_E2E_REPORT")
    if not path:
        return
    rows = await store.read("test/reflection_view", namespace=namespace, task_id=report.task_id)
    entry: dict[str, Any] = {"case": name, "report": report.model_dump(mode="json"),
                             "cypher": "MATCH (m:Memory)-[:FROM_TASK]->(t:Task {id: $task_id}) "
                                       "OPTIONAL MATCH (m)-[r]->(x) WHERE NOT type(r) IN ['FROM_TASK'] "
                                       "RETURN m.kind, m.content, m.status, type(r), "
                                       "coalesce(x.content, x.name) AS target",
                             "rows": json.loads(json.dumps(rows, default=str))}
    file = Path(path)
    existing = json.loads(file.read_text()) if file.exists() else []
    file.write_text(json.dumps([*existing, entry], indent=2) + "\n")


async def test_customer_service_case_yields_a_linked_fact_and_a_typed_edge(
        llm_settings: Settings, store: Store, embedder: Embedder, namespace: str) -> None:
    service = MemoryService(store, embedder, llm_settings)
    task_id = await ended_task(service, namespace, "Return policy question", CUSTOMER_SERVICE)
    report = await reflect_with_the_model(service, namespace, task_id)
    await record("customer-service", report, store, namespace)
    semantic = [f for f in report.facts if f.kind is MemoryKind.SEMANTIC]
    assert semantic, f"no semantic fact in {report.facts}"
    linked = await service.store.read("task/memories_of", ids=[task_id], namespace=namespace)
    assert {f.id for f in semantic} <= {r["memory"]["id"] for r in linked}  # FROM_TASK
    edges = await store.read("test/reflection_view", namespace=namespace, task_id=task_id)
    typed = [r for r in edges if r["edge"] not in (None, "FROM_TASK", "DERIVED_FROM", "ABOUT")]
    assert typed, f"no typed edge between memories: {edges}"
    assert report.llm.calls >= 1
    assert report.llm.completion_tokens > 0
    # the task's summary came in the same answer (no call of its own) and the same transaction as the facts
    assert report.summary is not None, report
    assert report.summary.content.strip()
    rows = await store.read("summary/of_tasks", ids=[task_id], namespace=namespace)
    assert [r["memory"]["id"] for r in rows] == [report.summary.id]
    assert rows[0]["memory"]["source"] == "summary:reflection"


async def test_moving_from_paris_to_berlin_supersedes_the_old_fact(
        llm_settings: Settings, store: Store, embedder: Embedder, namespace: str) -> None:
    service = MemoryService(store, embedder, llm_settings)
    written = await service.write_memories([
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content="The user lives in Paris."),
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content="The user prefers morning deliveries."),
    ])
    paris = written.items[0].id
    task_id = await ended_task(service, namespace, "Update the delivery address", MOVED)
    report = await reflect_with_the_model(service, namespace, task_id)
    await record("paris-to-berlin", report, store, namespace)
    assert paris in report.superseded, report
    old = await service.get_memory(namespace, paris)
    assert old.status is MemoryStatus.SUPERSEDED
    assert old.valid_until is not None
    retrieval = RetrievalService(store, embedder, llm_settings)
    found = await retrieval.search("Where does the user live?", SearchOptions(namespaces=(namespace,), k=3))
    contents = [r.memory.content for r in found.results]
    assert "Berlin" in contents[0], contents
    assert all("Paris" not in c or "Berlin" in c for c in contents), contents
