"""What the answer-type term costs a search: the time to read the kinds a search's candidates hold.

    .venv/bin/python -m benchmarks.answertype_cost --data ../shared/data/locomo/locomo-dev.json

For every LoCoMo dev question that asks a kind of answer (``answertype.asked_kinds``), ``answers`` over 35 turns of
its conversation (the number the search statement returns), with the per-content cache emptied first: the cost when
none of the candidates was seen before (a large store, a cold process), and again with the cache warm. No Neo4j
needed: the contents are the turns as the importer writes them ("Speaker: text"). Writes
``benchmarks/results/answertype_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from statistics import quantiles

from graphmem.importers.locomo import load_locomo
from graphmem.retrieval.answertype import answers, asked_kinds, held_kinds, name_words

CANDIDATES = 35


def percentiles(values: list[float]) -> dict[str, float]:
    cuts = quantiles(values, n=100, method="inclusive")
    return {"p50": round(cuts[49], 3), "p95": round(cuts[94], 3), "max": round(max(values), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", default="benchmarks/results/answertype_cost.json")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    held_kinds("warm-up: the extractor's lexicons load once")
    asked = kinds_asked = 0
    cold: list[float] = []
    warm: list[float] = []
    for sample in load_locomo(args.data):
        turns = [f"{t.speaker}: {t.content}" for t in sample.turns]  # as the importer writes them
        for q in sample.questions:
            asked += 1
            kinds = asked_kinds(q.question)
            if not kinds:
                continue
            kinds_asked += 1
            contents, named = rng.sample(turns, CANDIDATES), name_words(q.question)
            held_kinds.cache_clear()
            for times in (cold, warm):
                started = time.perf_counter()
                for content in contents:
                    answers(content, kinds, named)
                times.append((time.perf_counter() - started) * 1000)
    report = {"command": f"python -m benchmarks.answertype_cost --data {args.data}", "candidates": CANDIDATES,
              "questions": asked, "asking_a_kind": kinds_asked, "cold_ms": percentiles(cold),
              "warm_ms": percentiles(warm),
              "note": "ms per question that asks a kind, for its 35 candidates; a question that asks none costs "
                      "nothing (the term reads no content)"}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"{kinds_asked} of {asked} questions ask a kind; per such question, {CANDIDATES} candidates: cold "
          f"{report['cold_ms']} ms, cached {report['warm_ms']} ms; written to {args.out}")


if __name__ == "__main__":
    main()
