"""Which subjects consensus groups by, chosen by leave-one-conversation-out cross-validation over two poisoning runs.

    .venv/bin/python -m benchmarks.poisoning                                   # hubs left out (the default)
    .venv/bin/python -m benchmarks.poisoning --consensus-subjects all \\
        --out benchmarks/results/poisoning_consensus_all_subjects.json
    .venv/bin/python -m benchmarks.consensus_subjects_cv

The two runs differ only in ``ConsensusConfig.max_subject_degree`` (100, or None: every subject). In each fold the
variant is chosen on the four other conversations by one rule, fixed before looking: the lowest mean ASR-r of the
``consensus`` condition among the variants whose mean benign cost (recall@10 of ``none`` minus ``consensus``) is at
most 2 points (the issue's bound), else the cheapest; the held-out conversation's figures of the chosen variant are
reported. Writes ``benchmarks/results/consensus_subjects_cv.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

RESULTS = Path("benchmarks/results")
VARIANTS = {"no-hubs": RESULTS / "poisoning.json", "all": RESULTS / "poisoning_consensus_all_subjects.json"}
MAX_COST = 0.02


def figures(run: Mapping[str, Any], sample: str) -> dict[str, float]:
    c = run["per_conversation"][sample]["conditions"]
    return {"asr_none": c["none"]["asr_r"]["asr_r"], "asr_consensus": c["consensus"]["asr_r"]["asr_r"],
            "r10_none": c["none"]["benign_recall@10"], "r10_consensus": c["consensus"]["benign_recall@10"]}


def choose(runs: Mapping[str, Mapping[str, Any]], train: Sequence[str]) -> tuple[str, dict[str, dict[str, float]]]:
    seen: dict[str, dict[str, float]] = {}
    for name, run in runs.items():
        per = [figures(run, s) for s in train]
        seen[name] = {"cost": round(sum(f["r10_none"] - f["r10_consensus"] for f in per) / len(per), 4),
                      "asr_r": round(sum(f["asr_consensus"] for f in per) / len(per), 4)}
    within = [n for n in seen if seen[n]["cost"] <= MAX_COST]
    pick = min(within, key=lambda n: (seen[n]["asr_r"], n)) if within else min(seen, key=lambda n: seen[n]["cost"])
    return pick, seen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=RESULTS / "consensus_subjects_cv.json")
    args = parser.parse_args(argv)
    runs = {name: json.loads(path.read_text(encoding="utf-8")) for name, path in VARIANTS.items()}
    samples = list(runs["no-hubs"]["per_conversation"])
    if any(list(r["per_conversation"]) != samples for r in runs.values()):
        print("the two runs cover different conversations", file=sys.stderr)
        return 1
    folds = []
    for held in samples:
        pick, seen = choose(runs, [s for s in samples if s != held])
        folds.append({"held_out": held, "train": seen, "chosen": pick, "held_out_figures": figures(runs[pick], held)})
        f = folds[-1]["held_out_figures"]
        print(f"{held}: chose {pick:8s} (train {seen}); held out ASR-r {f['asr_none']:.3f} -> {f['asr_consensus']:.3f}"
              f", R@10 {f['r10_none']:.4f} -> {f['r10_consensus']:.4f}")
    overall = {name: {k: run["figures"][k]["asr_r_overall"]["asr_r"] for k in ("none", "consensus", "all")}
               | {f"R@10 {k}": run["figures"][k]["benign_recall@10"]["all_rates"] for k in ("none", "consensus", "all")}
               for name, run in runs.items()}
    for name, o in overall.items():
        print(f"{name:8s} whole run: {o}")
    report = {"benchmark": "consensus_subjects_cv", "rule": f"lowest consensus ASR-r with benign cost <= {MAX_COST}",
              "inputs": {n: str(p) for n, p in VARIANTS.items()}, "folds": folds, "overall": overall,
              "chosen_every_fold": sorted({f["chosen"] for f in folds})}
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
