"""Does the one reader this project has, the local LLM, lift multi-hop recall? (LoCoMo category 1)

    scripts/llm-server.sh start && graphmem neo4j start
    GRAPHMEM_LLM_BASE_URL=$(scripts/llm-server.sh url) .venv/bin/python -m benchmarks.multihop_llm \\
        --data ../shared/data/locomo/locomo-dev.json --per-conversation 8

``multihop_ceiling.py`` found that no weighting of the formula's features puts the multi-hop evidence in the first
10, though most of it is in the candidate pool, and concluded that it needs a reader. This measures the reader the
product already has: the listwise LLM rerank (``graphmem.retrieval.llm_rerank.LLMReranker``, the class
``rerank: LLM`` uses, with the same prompt) over the first ``--passages`` results of the default ranking
(``LLM_CANDIDATES``, 20, is what a search shows it), on a seeded sample of multi-hop questions from every
conversation (the local model takes tens of seconds a question on two cores, so not all 142). Nothing is fitted.

For each sampled question: recall@10 of the default ranking, of the LLM's order of the same passages (ties and
passages it left out keep the default order; the rest of the ranking follows), and recall@``passages`` of the
default (the most any order of those passages can reach in 10, were they all to fit). A question whose LLM call
fails keeps the default order, as a search does, and is counted. Writes ``benchmarks/results/multihop_llm.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from pathlib import Path
from statistics import fmean, median
from typing import Any

from benchmarks.fit_ranking import collect
from graphmem.config import Settings
from graphmem.errors import LLMError
from graphmem.eval.fit import PoolQuestion, Reach, ranked, recall_at
from graphmem.llm import LLMClient
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.llm_rerank import LLMReranker
from graphmem.retrieval.service import LLM_CANDIDATES


def sample_questions(questions: list[PoolQuestion], per_conversation: int, seed: int) -> list[PoolQuestion]:
    """``per_conversation`` multi-hop questions of each conversation, drawn with ``seed``."""
    rng = random.Random(seed)
    chosen: list[PoolQuestion] = []
    for conversation in sorted({q.conversation for q in questions}):
        pool = [q for q in questions if q.conversation == conversation and q.category == 1]
        chosen += rng.sample(pool, min(per_conversation, len(pool)))
    return chosen


def llm_order(default: list[str], scores: list[tuple[str, float]]) -> list[str]:
    """The judged passages by the LLM's relevance, best first (ties keep the default order), then the rest."""
    position = {mid: n for n, mid in enumerate(default)}
    head = [mid for mid, _ in sorted(scores, key=lambda s: (-s[1], position[s[0]]))]
    return head + [mid for mid in default if mid not in set(head)]


async def judge(questions: list[PoolQuestion], contents: dict[str, str], reach: Reach, settings: Settings,
                passages: int) -> list[dict[str, Any]]:
    client = LLMClient(settings)
    reranker = LLMReranker(client, timeout_s=settings.rerank_timeout_s)
    w = FormulaWeights()
    rows = []
    try:
        for n, q in enumerate(questions, 1):
            default = ranked(q, w, 20, need=passages)
            head = default[:passages]
            started = time.monotonic()
            error = None
            try:
                order = llm_order(default, await reranker.rank(q.query, [(m, contents.get(m, "")) for m in head]))
            except (LLMError, TimeoutError) as exc:
                order, error = default, f"{exc.__class__.__name__}: {exc}"[:200]
            seconds = time.monotonic() - started
            row = {"conversation": q.conversation, "question": q.query, "evidence": len(q.gold),
                   "default@10": recall_at(default, q.gold, reach, 10),
                   "llm@10": recall_at(order, q.gold, reach, 10),
                   f"default@{passages}": recall_at(default, q.gold, reach, passages),
                   "seconds": round(seconds, 1), "error": error}
            rows.append(row)
            print(f"[{n}/{len(questions)}] {seconds:5.1f}s default {row['default@10']:.2f} llm {row['llm@10']:.2f}"
                  f"{' (failed: ' + error + ')' if error else ''}  {q.query}", flush=True)
    finally:
        await client.close()
    return rows


def summary(rows: list[dict[str, Any]], passages: int) -> dict[str, Any]:
    ok = [r for r in rows if r["error"] is None]
    return {
        "questions": len(rows), "llm_failures": len(rows) - len(ok),
        "recall@10": {"default": round(fmean(r["default@10"] for r in rows), 4),
                      "llm": round(fmean(r["llm@10"] for r in rows), 4),
                      f"default@{passages} (bound for any order of the passages)":
                          round(fmean(r[f"default@{passages}"] for r in rows), 4)},
        "answered_only": {"questions": len(ok),
                          "default": round(fmean(r["default@10"] for r in ok), 4) if ok else None,
                          "llm": round(fmean(r["llm@10"] for r in ok), 4) if ok else None},
        "llm_better": sum(r["llm@10"] > r["default@10"] for r in rows),
        "llm_worse": sum(r["llm@10"] < r["default@10"] for r in rows),
        "seconds_per_question": {"p50": round(median(r["seconds"] for r in rows), 1),
                                 "max": max(r["seconds"] for r in rows)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--per-conversation", type=int, default=8)
    parser.add_argument("--passages", type=int, default=LLM_CANDIDATES)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per LLM call (the service's is 8)")
    parser.add_argument("--out", default="benchmarks/results/multihop_llm.json")
    args = parser.parse_args()
    started = time.monotonic()
    settings = Settings(rerank_timeout_s=args.timeout, llm_timeout_s=args.timeout)
    contents: dict[str, str] = {}
    questions, reach = asyncio.run(collect(settings, args.data, "turns+facts", contents))
    chosen = sample_questions(questions, args.per_conversation, args.seed)
    rows = asyncio.run(judge(chosen, contents, reach, settings, args.passages))
    result = {"benchmark": "multihop_llm",
              "command": f"python -m benchmarks.multihop_llm --data {args.data} --per-conversation "
                         f"{args.per_conversation} --passages {args.passages} --seed {args.seed}",
              "model": settings.llm_model, "corpus": "turns+facts", "passages": args.passages,
              **summary(rows, args.passages), "rows": rows, "seconds": round(time.monotonic() - started, 1)}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=2))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
