"""What the answer-type term costs: a search reading its candidates' kinds, and a write storing a memory's.

    .venv/bin/python -m benchmarks.answertype_cost --data ../shared/data/locomo/locomo-dev.json

For every LoCoMo dev question that asks a kind of answer (``answertype.asked_kinds``), ``answers`` over 35 turns of
its conversation (the number the search statement returns), three ways:

- ``stored``: the kinds as the search statement returns them for memories written with their ``answer_kinds``
  (``graph.answer_kinds``, computed at write): what every search pays now;
- ``cold``: memories written before the property, none seen before (caches emptied): the kinds computed from the
  content, the extractor included (a store never rebuilt, a cold process);
- ``cached``: the same again with the caches warm.

And per memory, what ``Memory.to_row`` adds to a write (``write_ms``): ``held_kinds`` after the graph construction
has extracted the memory's entities (``graph.entities.entities_in`` is shared), and ``write_alone_ms`` without that
(``entities_in`` cache emptied): the extraction the write would otherwise pay twice. No Neo4j needed: the contents
are the turns as the importer writes them ("Speaker: text"). Writes ``benchmarks/results/answertype_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from statistics import quantiles

from graphmem.graph.answer_kinds import ENTITY_LIMIT, held_kinds
from graphmem.graph.entities import entities_in
from graphmem.importers.locomo import load_locomo
from graphmem.retrieval.answertype import answers, asked_kinds, kinds_of, name_words

CANDIDATES = 35


def percentiles(values: list[float]) -> dict[str, float]:
    cuts = quantiles(values, n=100, method="inclusive")
    return {"p50": round(cuts[49], 4), "p95": round(cuts[94], 4), "max": round(max(values), 4)}


def clear() -> None:
    held_kinds.cache_clear()
    entities_in.cache_clear()


def write_costs(turns: list[str]) -> tuple[list[float], list[float]]:
    """ms per memory that ``held_kinds`` adds to a write: after the construction's extraction, and alone."""
    after, alone = [], []
    for content in turns:
        clear()
        entities_in(content, ENTITY_LIMIT)  # what graph construction does first
        started = time.perf_counter()
        held_kinds(content)
        after.append((time.perf_counter() - started) * 1000)
        clear()
        started = time.perf_counter()
        held_kinds(content)
        alone.append((time.perf_counter() - started) * 1000)
    return after, alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", default="benchmarks/results/answertype_cost.json")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    held_kinds("warm-up: the extractor's lexicons load once")
    asked = kinds_asked = 0
    times: dict[str, list[float]] = {"stored": [], "cold": [], "cached": []}
    every: list[str] = []
    for sample in load_locomo(args.data):
        turns = [f"{t.speaker}: {t.content}" for t in sample.turns]  # as the importer writes them
        every += turns
        for q in sample.questions:
            asked += 1
            kinds = asked_kinds(q.question)
            if not kinds:
                continue
            kinds_asked += 1
            contents, named = rng.sample(turns, CANDIDATES), name_words(q.question)
            stored = [held_kinds(c) for c in contents]  # as the statement returns the property
            clear()
            for way in ("stored", "cold", "cached"):
                started = time.perf_counter()
                for content, held in zip(contents, stored, strict=True):
                    answers(kinds_of(content, held if way == "stored" else None), kinds, named)
                times[way].append((time.perf_counter() - started) * 1000)
    after, alone = write_costs(every)
    report = {"command": f"python -m benchmarks.answertype_cost --data {args.data}", "candidates": CANDIDATES,
              "questions": asked, "asking_a_kind": kinds_asked,
              **{f"{way}_ms": percentiles(t) for way, t in times.items()},
              "memories_written": len(every), "write_ms": percentiles(after), "write_alone_ms": percentiles(alone),
              "note": "search: ms per question that asks a kind, for its 35 candidates (a question that asks none "
                      "reads no kinds); write: ms per memory"}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"{kinds_asked} of {asked} questions ask a kind; per such question, {CANDIDATES} candidates: stored "
          f"{report['stored_ms']} ms, cold {report['cold_ms']} ms, cached {report['cached_ms']} ms; per memory "
          f"written {report['write_ms']} ms after construction, {report['write_alone_ms']} ms alone; "
          f"written to {args.out}")


if __name__ == "__main__":
    main()
