"""Consolidation with the real local model (scripts/llm-server.sh: Qwen2.5-Coder-1.5B on llama.cpp), real Neo4j
and the real embedder: one cluster of three paraphrases becomes one new memory whose text the model wrote and
that keeps the cluster's key details. One cluster only: a merge takes the CPU model up to a minute."""

from __future__ import annotations

from graphmem.config import Settings
from graphmem.consolidation import Consolidator, Outcome
from graphmem.consolidation.plan import MergedBy, merged_id
from graphmem.embed import Embedder
from graphmem.llm import LLMClient
from graphmem.models import MemoryDraft, MemoryKind, MemoryStatus
from graphmem.service import MemoryService
from graphmem.service.dedupe import same_details
from graphmem.service.integrity_ops import check
from graphmem.store import Store

JON = ("Jon opened a dance studio in Paris.", "Jon has opened a dance studio in Paris.",
       "Jon opened his own dance studio in Paris.")


async def test_the_model_merges_three_paraphrases_into_valid_text(
        llm_settings: Settings, store: Store, embedder: Embedder, namespace: str) -> None:
    settings = llm_settings.model_copy(update={"consolidation_eps": 0.15})
    service = MemoryService(store, embedder, settings)
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=text,
                                              id=f"j{i}", confidence=0.8) for i, text in enumerate(JON)],
                                 dedupe=False)
    llm = LLMClient(settings)
    try:
        report = await Consolidator(service, settings, llm).run(namespace)
    finally:
        await llm.close()
    (plan,) = report.plans
    assert plan.outcome is Outcome.MERGED, plan
    assert (plan.merged_by, report.llm_fallbacks) == (MergedBy.LLM, 0), plan.reason
    assert 1 <= report.llm_calls <= 2
    assert plan.survivor_id == merged_id(namespace, ["j0", "j1", "j2"])
    merged = await service.get_memory(namespace, plan.survivor_id)
    assert merged.content == plan.text
    assert same_details(JON[0], merged.content)  # Jon and Paris kept, nothing invented
    assert "dance studio" in merged.content.lower()
    assert 10 <= len(merged.content) <= 300
    for i in range(3):
        assert (await service.get_memory(namespace, f"j{i}")).status is MemoryStatus.ARCHIVED
    assert (await check(store, namespace=namespace)).failures == []
