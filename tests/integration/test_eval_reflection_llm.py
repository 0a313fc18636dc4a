"""The turns+reflection corpus with the real local model (scripts/llm-server.sh), the real Neo4j and embedder, on
one short session: the turns are imported, graphmem's reflection writes facts that reach their turns, and a second
run reflects nothing. Slow on 2 CPU cores (one reflection, one to three minutes)."""

from __future__ import annotations

import json
from pathlib import Path

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.eval.corpus import corpus_namespace, corpus_plan, eval_namespace
from graphmem.eval.locomo import evaluate, load_reach, turn_dia_ids
from graphmem.importers.locomo import load_locomo
from graphmem.llm import LLMClient
from graphmem.store import Store

SESSION = [
    ("Maya", "I finally adopted a dog last weekend! She's a three-year-old beagle called Pepper."),
    ("Leo", "Congratulations! Where did you find her?"),
    ("Maya", "At the Riverside animal shelter. I start obedience classes with her next Tuesday."),
    ("Leo", "Nice. I'm allergic to dogs, so I'll visit you with my antihistamines."),
]


def tiny_locomo(path: Path) -> Path:
    turns = [{"speaker": s, "dia_id": f"D1:{i}", "text": t} for i, (s, t) in enumerate(SESSION, start=1)]
    sample = {"sample_id": "refl-llm",
              "conversation": {"speaker_a": "Maya", "speaker_b": "Leo", "session_1": turns,
                               "session_1_date_time": "1:56 pm on 8 May, 2023"},
              "qa": [{"question": "What breed is Maya's dog?", "answer": "beagle", "evidence": ["D1:1"],
                      "category": 4},
                     {"question": "Where did Maya adopt her dog?", "answer": "Riverside animal shelter",
                      "evidence": ["D1:3"], "category": 4}]}
    path.write_text(json.dumps([sample]))
    return path


async def test_one_session_reflected_with_the_model_then_skipped(llm_settings: Settings, embedder: Embedder,
                                                                  store: Store, tmp_path: Path) -> None:
    data = tiny_locomo(tmp_path / "tiny.json")
    namespace = corpus_namespace(eval_namespace("refl-llm"), "turns+reflection")
    llm = LLMClient(llm_settings)
    try:
        first = await evaluate(llm_settings, data, modes=("vector",), embedder=embedder, llm=llm,
                               corpus="turns+reflection", reimport=True)
        calls = llm.usage.calls
        again = await evaluate(llm_settings, data, modes=("vector",), embedder=embedder, llm=llm,
                               corpus="turns+reflection")
        facts = await store.read("task/memories_of", ids=[first["imports"][0]["reflection"]["per_session"][0]["task"]],
                                 namespace=namespace)
        plan = corpus_plan(load_locomo(data)[0], namespace, "turns+reflection")
        reach = await load_reach(store, namespace, [r["memory"]["id"] for r in facts], turn_dia_ids(plan))
    finally:
        await llm.close()
        await store.wipe_namespace(namespace)

    reflection = first["imports"][0]["reflection"]
    assert first["imports"][0]["namespace"] == namespace
    assert (reflection["sessions"], reflection["reflected_now"], reflection["failed"]) == (1, 1, 0), reflection
    assert reflection["llm"]["calls"] >= 1
    assert reflection["llm"]["prompt_tokens"] > 0
    assert reflection["facts"]["total"] >= 1, reflection
    assert calls == reflection["llm"]["calls"]
    written = [r["memory"]["id"] for r in facts if r["memory"]["kind"] in ("semantic", "episodic")]
    assert written, facts
    assert any(reach[m] for m in written), reach  # a hit on a fact reaches its turns (DERIVED_FROM)

    rerun = again["imports"][0]["reflection"]
    assert (rerun["reflected_now"], rerun["skipped_already_reflected"]) == (0, 1)
    assert llm.usage.calls == calls  # the second run asked the model nothing
    assert rerun["facts"]["total"] == reflection["facts"]["total"]  # the stored report still counts
    assert again["results"]["vector"]["by_category"]["all"]["n"] == 2
