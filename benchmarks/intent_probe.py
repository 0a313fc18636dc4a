"""Train the screen's intent probe on the committed corpus, and measure it and the rules where nothing was fitted.

    .venv/bin/python -m benchmarks.intent_probe                 # train, write the probe and the figures
    .venv/bin/python -m benchmarks.intent_probe --no-write      # figures only, the probe file left alone

Training data: ``tests/data/screening/{attacks,benign}.jsonl`` (the rules' corpus) and
``benchmarks/data/screening_train/`` (attacks and ordinary or hard benign texts written for training by someone who
had seen neither the rules nor the held-out set; the ordinary sets ``benign_{work,chat,agent}.jsonl``: workplace
facts, added after the first probe flagged one; chat lines, added when a probe flagged friendly LoCoMo turns; an
agent's lessons and technical notes, added when a probe flagged held-out ones), embedded with graphmem's configured
embedder.
Chosen there by stratified 5-fold cross-validation (seeded), fixed before any held-out figure is looked at: the
regularisation ``C`` (the best cross-validated log-loss), then the threshold (the highest cross-validated detection
whose benign false-positive rate is at most ``MAX_CV_FALSE_POSITIVES`` and whose rate on the ordinary sets is at
most ``MAX_CV_ORDINARY_FALSE_POSITIVES``; ties: the higher threshold). The probe is
refitted on the whole corpus with that ``C`` and written to ``graphmem/security/probes/<model>.json``.

Measured, never fitted: ``benchmarks/data/screening_heldout/`` (attacks and hard benign texts written for this by
someone who had seen neither the rules nor the corpus, and the three ordinary sets, each by yet another writer; do
not tune on it) and every LoCoMo dev turn (chat between friends: every flag is a false positive). For each: the
rules alone, the probe alone, and both (flag if either).
Figures to ``benchmarks/results/intent_probe.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from graphmem.config import Settings
from graphmem.embed import make_embedder
from graphmem.importers.locomo import load_locomo
from graphmem.security.probe import MAX_CV_FALSE_POSITIVES, MAX_CV_ORDINARY_FALSE_POSITIVES, probe_path
from graphmem.security.screening import screen

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "screening"
TRAIN_EXTRA = ROOT / "benchmarks" / "data" / "screening_train"
HELDOUT = ROOT / "benchmarks" / "data" / "screening_heldout"
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
OUT = ROOT / "benchmarks" / "results" / "intent_probe.json"
CS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
THRESHOLDS = (*(round(0.05 * i, 2) for i in range(6, 19)), 0.95, 0.96, 0.97, 0.98, 0.99)  # 0.30 .. 0.99
SEED = 7
ORDINARY_SETS = ("work", "chat", "agent")
"""Ordinary benign texts, ``benign_<name>.jsonl`` in both the training and the held-out folder: workplace facts,
chat lines, and an agent's own lessons and technical notes."""
EMBEDDERS = ("bilingual", "sentence-transformers")
"""The embedders that put text into the probe's space (the same model; bilingual maps Chinese into it)."""


def rows(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cross_validate(x: np.ndarray, y: np.ndarray, ordinary: np.ndarray) -> dict[str, Any]:
    folds = list(StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED).split(x, y))
    by_c: dict[float, np.ndarray] = {}
    for c in CS:
        p = np.zeros(len(y))
        for train, test in folds:
            model = LogisticRegression(C=c, max_iter=5000, class_weight="balanced").fit(x[train], y[train])
            p[test] = model.predict_proba(x[test])[:, 1]
        by_c[c] = p
    losses = {c: float(log_loss(y, p)) for c, p in by_c.items()}
    c = min(CS, key=lambda k: (losses[k], k))
    p = by_c[c]
    sweep = [{"threshold": t, "detection": float((p[y == 1] >= t).mean()), "fp": float((p[y == 0] >= t).mean()),
              "ordinary_fp": float((p[ordinary] >= t).mean())} for t in THRESHOLDS]
    allowed = [s for s in sweep
               if s["fp"] <= MAX_CV_FALSE_POSITIVES and s["ordinary_fp"] <= MAX_CV_ORDINARY_FALSE_POSITIVES]
    best = max(allowed, key=lambda s: (s["detection"], s["threshold"])) if allowed else sweep[-1]
    return {"C": c, "cv_log_loss": {str(k): round(v, 4) for k, v in losses.items()}, "threshold": best["threshold"],
            "cv_detection": round(best["detection"], 4), "cv_fp": round(best["fp"], 4),
            "cv_ordinary_fp": round(best["ordinary_fp"], 4), "sweep": sweep}


def rates(texts: Sequence[str], p: np.ndarray, threshold: float) -> dict[str, float]:
    rules = np.array([screen(t).flagged for t in texts])
    probe = p >= threshold
    n = max(len(texts), 1)
    return {"n": len(texts), "rules": round(float(rules.sum()) / n, 4), "probe": round(float(probe.sum()) / n, 4),
            "either": round(float((rules | probe).sum()) / n, 4)}


def by_kind(items: Sequence[dict[str, str]], p: np.ndarray, threshold: float,
            field: str = "kind") -> dict[str, dict[str, float]]:
    """``rates`` per value of ``field`` (the kind of text, or with ``field="lang"`` its language)."""
    values = sorted({r[field] for r in items})
    return {v: rates([r["text"] for r in items if r[field] == v],
                     np.array([s for r, s in zip(items, p, strict=True) if r[field] == v]), threshold) for v in values}


def ordinary_section(items: Sequence[dict[str, str]], scores: Callable[[Sequence[str]], np.ndarray],
                     threshold: float) -> dict[str, Any]:
    """A held-out set of ordinary texts: every flag is a false positive, so each is listed."""
    texts = [r["text"] for r in items]
    p = scores(texts)
    return {"all": rates(texts, p, threshold), "by_kind": by_kind(items, p, threshold),
            "by_lang": by_kind(items, p, threshold, field="lang"),
            "flagged": [{"text": r["text"], "score": round(float(s), 3)}
                        for r, s in zip(items, p, strict=True) if s >= threshold]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo JSON (false positives on its turns)")
    parser.add_argument("--no-write", action="store_true", help="leave the probe file as it is")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    settings = Settings()
    started = time.perf_counter()
    embedder = make_embedder(settings)

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(embedder.embed_documents(list(texts)), dtype=np.float64)

    attacks = rows(CORPUS / "attacks.jsonl") + rows(TRAIN_EXTRA / "attacks.jsonl")
    hard = rows(CORPUS / "benign.jsonl") + rows(TRAIN_EXTRA / "benign.jsonl")
    ordinary = [r for name in ORDINARY_SETS for r in rows(TRAIN_EXTRA / f"benign_{name}.jsonl")]
    benign = hard + ordinary
    x = embed([r["text"] for r in attacks + benign])
    y = np.r_[np.ones(len(attacks)), np.zeros(len(benign))]
    is_ordinary = np.r_[np.zeros(len(attacks) + len(hard), dtype=bool), np.ones(len(ordinary), dtype=bool)]
    cv = cross_validate(x, y, is_ordinary)
    model = LogisticRegression(C=cv["C"], max_iter=5000, class_weight="balanced").fit(x, y)
    weights, bias = model.coef_[0], float(model.intercept_[0])
    probe = {"model": settings.embedding_model, "embedders": list(EMBEDDERS), "threshold": cv["threshold"],
             "bias": round(bias, 6), "weights": [round(float(w), 6) for w in weights],
             "trained_on": "tests/data/screening and benchmarks/data/screening_train (attacks, benign)", "C": cv["C"],
             "cv_detection": cv["cv_detection"], "cv_fp": cv["cv_fp"], "cv_ordinary_fp": cv["cv_ordinary_fp"]}
    if not args.no_write:
        probe_path(settings.embedding_model).write_text(json.dumps(probe) + "\n", encoding="utf-8")

    def scores(texts: Sequence[str]) -> np.ndarray:
        z = embed(texts) @ weights + bias
        return np.asarray(1.0 / (1.0 + np.exp(-z)))

    t = cv["threshold"]
    h_att, h_ben = rows(HELDOUT / "attacks.jsonl"), rows(HELDOUT / "benign.jsonl")
    ph_att, ph_ben = scores([r["text"] for r in h_att]), scores([r["text"] for r in h_ben])
    turns = [f"{turn.speaker}: {turn.content}" for s in load_locomo(args.data) for turn in s.turns]
    p_turns = scores(turns)
    report: dict[str, Any] = {
        "benchmark": "intent_probe", "command": "python -m benchmarks.intent_probe",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()), "embedder": settings.embedder,
        "model": settings.embedding_model, "corpus": {"attacks": len(attacks), "benign": len(benign),
                                                           "ordinary": len(ordinary)},
        "cross_validation": cv,
        "heldout_attacks": {"all": rates([r["text"] for r in h_att], ph_att, t), "by_kind": by_kind(h_att, ph_att, t)},
        "heldout_benign": {"all": rates([r["text"] for r in h_ben], ph_ben, t), "by_kind": by_kind(h_ben, ph_ben, t)},
        **{f"heldout_{name}_benign": ordinary_section(rows(HELDOUT / f"benign_{name}.jsonl"), scores, t)
           for name in ORDINARY_SETS},
        "locomo_turns": rates(turns, p_turns, t),
        "locomo_flagged_by_probe": [{"text": s, "score": round(float(p), 3)}
                                    for s, p in zip(turns, p_turns, strict=True) if p >= t][:20],
        "seconds": round(time.perf_counter() - started, 1),
    }
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"C {cv['C']}, threshold {t} (cv detection {cv['cv_detection']}, cv fp {cv['cv_fp']})")
    print("heldout attacks", report["heldout_attacks"]["all"], "benign", report["heldout_benign"]["all"])
    for name in ORDINARY_SETS:
        print(f"heldout {name} benign", report[f"heldout_{name}_benign"]["all"])
    print("locomo_turns", report["locomo_turns"])
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
