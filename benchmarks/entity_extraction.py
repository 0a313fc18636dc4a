"""Precision/recall of the rule-based entity extractor on a hand-labelled sample, and its throughput.

    .venv/bin/python benchmarks/entity_extraction.py
    .venv/bin/python benchmarks/entity_extraction.py --show-errors

``benchmarks/data/entities_sample.jsonl`` holds short chat turns (English, Chinese and a few mixed), one JSON
object a line: ``{"text", "entities"}``, where ``entities`` are the normalised names a reader would want
(see ``graphmem.graph.entities.normalise_name``). Labels were written before the extractor was tuned.
``benchmarks/data/entities_heldout.jsonl`` (same format: 25 English and 5 Chinese turns) was labelled after
that tuning and before the extractor was ever run on it, and is not tuned on: its score, reported separately
(``heldout`` in the JSON), is the honest figure; the sample's is a training score.
Scores are micro precision/recall/F1 over names (kinds are not scored), overall and per language: ``zh`` is
text with CJK characters and no Latin letters, ``mixed`` has both, ``en`` the rest. Throughput is measured on
English texts of about 30 words (consecutive sample turns joined), repeated to ``--throughput-texts``
texts, on one core, after a warm-up; Chinese/mixed turns are timed as they are.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

from graphmem.graph.entities import extract_entities

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE / "data" / "entities_sample.jsonl"
DEFAULT_HELDOUT = HERE / "data" / "entities_heldout.jsonl"
DEFAULT_OUT = HERE / "results" / "entity_extraction.json"
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def lang_of(text: str) -> str:
    if not _CJK.search(text):
        return "en"
    return "mixed" if re.search(r"[A-Za-z]", text) else "zh"


def load(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows.append({"text": row["text"], "entities": list(row["entities"]), "lang": lang_of(row["text"])})
    return rows


def prf(tp: int, fp: int, fn: int) -> dict[str, float | int]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4), "tp": tp, "fp": fp, "fn": fn,
            "texts": 0}


def score(rows: list[dict[str, Any]], limit: int) -> tuple[dict[str, dict[str, float | int]], list[dict[str, Any]]]:
    counts: dict[str, list[int]] = {}
    errors: list[dict[str, Any]] = []
    for row in rows:
        got = [e.name for e in extract_entities(row["text"], limit=limit)]
        gold, pred = set(row["entities"]), set(got)
        tp, fp, fn = len(gold & pred), len(pred - gold), len(gold - pred)
        for key in ("overall", row["lang"]):
            c = counts.setdefault(key, [0, 0, 0, 0])
            c[0] += tp
            c[1] += fp
            c[2] += fn
            c[3] += 1
        if fp or fn:
            errors.append({"text": row["text"], "missed": sorted(gold - pred), "extra": sorted(pred - gold)})
    out = {}
    for key in ("overall", "en", "zh", "mixed"):
        if key in counts:
            tp, fp, fn, texts = counts[key]
            out[key] = prf(tp, fp, fn) | {"texts": texts}
    return out, errors


def about_30_words(texts: list[str]) -> list[str]:
    out, cur = [], []
    for t in texts:
        cur.append(t)
        if sum(len(c.split()) for c in cur) >= 30:
            out.append(" ".join(cur))
            cur = []
    return out or [" ".join(cur)]


def throughput(texts: list[str], n: int) -> float:
    for t in texts:  # warm-up (and jieba's lazy load, if any text needs it)
        extract_entities(t)
    batch = (texts * (n // max(len(texts), 1) + 1))[:n]
    start = time.perf_counter()
    for t in batch:
        extract_entities(t)
    return n / (time.perf_counter() - start)


def rel(path: Path) -> str:
    return str(path.relative_to(HERE.parent) if path.is_relative_to(HERE.parent) else path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--heldout", type=Path, default=DEFAULT_HELDOUT, help="scored separately; skipped if absent")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--limit", type=int, default=12, help="extract_entities(limit=...)")
    ap.add_argument("--throughput-texts", type=int, default=20000)
    ap.add_argument("--show-errors", action="store_true", help="print each text with missed/extra names")
    args = ap.parse_args(argv)

    rows = load(args.data)
    scores, errors = score(rows, args.limit)
    en_texts = about_30_words([r["text"] for r in rows if r["lang"] == "en"])
    zh_texts = [r["text"] for r in rows if r["lang"] != "en"]
    tput = {"en_texts_per_s": round(throughput(en_texts, args.throughput_texts), 1),
            "zh_texts_per_s": round(throughput(zh_texts, max(args.throughput_texts // 4, 1)), 1)}
    avg_words = sum(len(t.split()) for t in en_texts) / max(len(en_texts), 1)

    heldout: dict[str, Any] | None = None
    parts = [("sample", args.data, scores, errors)]
    if args.heldout.exists():
        h_scores, h_errors = score(load(args.heldout), args.limit)
        heldout = {"data": rel(args.heldout), "scores": h_scores, "errors": h_errors}
        parts.append(("held-out", args.heldout, h_scores, h_errors))

    for title, path, part, errs in parts:
        print(f"{title} ({rel(path)}):")
        for key, s in part.items():
            print(f"  {key:8s} P={s['precision']:.3f} R={s['recall']:.3f} F1={s['f1']:.3f} "
                  f"(tp={s['tp']} fp={s['fp']} fn={s['fn']}, {s['texts']} texts)")
        if args.show_errors:
            for e in errs:
                print(f"  - {e['text']}\n      missed={e['missed']} extra={e['extra']}")
    print(f"throughput: {tput['en_texts_per_s']:.0f} English texts/s (avg {avg_words:.1f} words), "
          f"{tput['zh_texts_per_s']:.0f} Chinese/mixed texts/s, one core")

    result = {
        "data": rel(args.data),
        "limit": args.limit,
        "scores": scores,
        "throughput": tput | {"texts": args.throughput_texts, "avg_en_words": round(avg_words, 1)},
        "errors": errors,
        "heldout": heldout,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
