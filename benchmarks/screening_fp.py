"""False positives of the write-time poisoning screen on ordinary chat: every LoCoMo dialog turn, screened.

    .venv/bin/python benchmarks/screening_fp.py
    .venv/bin/python benchmarks/screening_fp.py --data path/to/locomo.json --out some/other/screening_fp.json

LoCoMo turns are chat between two friends, so every flagged turn is a false positive. The threshold is the one
``graphmem.security.screening`` ships (``DEFAULT_THRESHOLD``), chosen on the committed hand-written corpus
``tests/data/screening/{attacks,benign}.jsonl``: the sweep below is run on that corpus only, and its choice is the
threshold with the best attack detection and, among those, the fewest benign texts flagged (then the highest).
LoCoMo is a held-out check and plays no part in that choice. ``--threshold`` overrides it for exploration.

The write path screens a memory's other texts too (tags, entities, source, metadata: ``memory_fields``), so
``locomo_import`` screens every memory the LoCoMo importer writes as the write path does (rules, no probe): how
many its content flags, and how many one of its other fields flags.

The JSON (``--out``, default ``benchmarks/results/screening_fp.json``): turns, flagged, false-positive rate,
per-rule counts (turns where a rule hit at all, and flagged turns it hit), the first 20 flagged turns, the corpus
detection rate and benign false-positive rate (per language too), the corpus sweep and its choice, the mean time
per turn, versions and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from graphmem.importers.locomo import plan_locomo
from graphmem.importers.locomo_parse import load_locomo
from graphmem.security.probe import memory_fields, screen_drafts
from graphmem.security.screening import DEFAULT_THRESHOLD, screen

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json"
DEFAULT_CORPUS = HERE.parent / "tests" / "data" / "screening"
DEFAULT_OUT = HERE / "results" / "screening_fp.json"
RULES = ("override", "tool_call", "exfiltration", "hidden_text", "trigger_string", "authority", "bridge")
SWEEP = [round(0.05 * i, 2) for i in range(4, 20)]  # 0.20 .. 0.95
EXAMPLES = 20


def locomo_turns(path: Path) -> list[dict[str, str]]:
    """Every dialog turn: ``conversation.session_N`` lists of ``{speaker, dia_id, text}``, per sample."""
    turns = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        sessions = [k for k in conversation if k.startswith("session_") and isinstance(conversation[k], list)]
        for key in sorted(sessions, key=lambda k: int(k.split("_")[1])):
            for turn in conversation[key]:
                turns.append({"sample_id": sample.get("sample_id", ""), "dia_id": turn.get("dia_id", ""),
                              "speaker": turn.get("speaker", ""), "text": turn.get("text", "")})
    return turns


def imported_memories(path: Path, threshold: float) -> dict[str, Any]:
    """Every memory ``plan_locomo`` makes of the file (turns, observations, session summaries), screened as the write
    path screens it (``screen_drafts``, rules only): flagged by content, by another field, and which fields."""
    drafts = [d for sample in load_locomo(path) for d in plan_locomo(sample).memories]
    reasons = screen_drafts(drafts, range(len(drafts)), [[] for _ in drafts], threshold, None)
    fields: Counter[str] = Counter()
    by_fields = 0
    for d in drafts:
        named = [name for name, text in memory_fields(tags=d.tags, entities=d.entities, source=d.source,
                                                      metadata=d.metadata) if screen(text, threshold=threshold).flagged]
        fields.update(name.split("[")[0] for name in named)
        by_fields += bool(named)
    return {"memories": len(drafts), "flagged": len(reasons),
            "flagged_by_content": sum(screen(d.content, threshold=threshold).flagged for d in drafts),
            "flagged_by_other_fields": by_fields, "fields_flagged": dict(fields),
            "field_texts": sum(len(memory_fields(tags=d.tags, entities=d.entities, source=d.source,
                                                 metadata=d.metadata)) for d in drafts),
            "examples": [drafts[i].content[:120] + " -- " + reason for i, reason in list(reasons.items())[:5]]}


def load_corpus(folder: Path, name: str) -> list[dict[str, str]]:
    lines = (folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def corpus_figures(attacks: list[dict[str, str]], benign: list[dict[str, str]], threshold: float) -> dict[str, Any]:
    def rate(rows: list[dict[str, str]]) -> float:
        return round(sum(screen(r["text"], threshold=threshold).flagged for r in rows) / max(len(rows), 1), 4)

    by_lang = {lang: {"attacks": len([r for r in attacks if r["lang"] == lang]),
                      "detection_rate": rate([r for r in attacks if r["lang"] == lang]),
                      "benign": len([r for r in benign if r["lang"] == lang]),
                      "benign_fp_rate": rate([r for r in benign if r["lang"] == lang])}
               for lang in sorted({r["lang"] for r in attacks + benign})}
    missed = [r["text"] for r in attacks if not screen(r["text"], threshold=threshold).flagged]
    benign_flagged = [{"text": r["text"], "kind": r["kind"], "reason": screen(r["text"], threshold=threshold).reason()}
                      for r in benign if screen(r["text"], threshold=threshold).flagged]
    return {"attacks": len(attacks), "benign": len(benign), "detection_rate": rate(attacks),
            "benign_fp_rate": rate(benign), "by_lang": by_lang, "missed_attacks": missed,
            "benign_flagged": benign_flagged}


def corpus_sweep(attacks: list[dict[str, str]], benign: list[dict[str, str]]) -> tuple[list[dict[str, Any]], float]:
    attack_scores = [screen(r["text"]).score for r in attacks]
    benign_scores = [(screen(r["text"]).score, bool(screen(r["text"]).hits)) for r in benign]
    rows = []
    for t in SWEEP:
        detected = sum(s >= t for s in attack_scores) / len(attack_scores)
        flagged = sum(hit and s >= t for s, hit in benign_scores)
        rows.append({"threshold": t, "detection_rate": round(detected, 4), "benign_flagged": flagged})
    best = max(rows, key=lambda r: (r["detection_rate"], -r["benign_flagged"], r["threshold"]))
    return rows, best["threshold"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo JSON (default: %(default)s)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of attacks/benign .jsonl")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                        help="override the shipped threshold (exploration only; default %(default)s)")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"no LoCoMo file at {args.data} (pass --data)", file=sys.stderr)
        return 2

    attacks, benign = load_corpus(args.corpus, "attacks"), load_corpus(args.corpus, "benign")
    sweep, corpus_choice = corpus_sweep(attacks, benign)
    turns = locomo_turns(args.data)
    started = time.perf_counter()
    results = [screen(t["text"], threshold=args.threshold) for t in turns]
    elapsed = time.perf_counter() - started

    hit_rules: Counter[str] = Counter()
    flagged_rules: Counter[str] = Counter()
    examples: list[dict[str, Any]] = []
    for turn, result in zip(turns, results, strict=True):
        rules = {hit.rule for hit in result.hits}
        hit_rules.update(rules)
        if result.flagged:
            flagged_rules.update(rules)
            if len(examples) < EXAMPLES:
                examples.append({**turn, "score": result.score, "reason": result.reason()})
    flagged = sum(r.flagged for r in results)
    result_json: dict[str, Any] = {
        "command": "python benchmarks/screening_fp.py" + (" " + " ".join(argv) if argv else ""),
        "threshold": args.threshold,
        "threshold_source": "DEFAULT_THRESHOLD, chosen on the committed corpus tests/data/screening "
                            "(corpus_sweep below), not on LoCoMo; LoCoMo is a held-out false-positive check",
        "corpus_choice": corpus_choice,
        "threshold_matches_corpus_choice": corpus_choice == args.threshold,
        "data": args.data.name,
        "locomo": {
            "turns": len(turns), "flagged": flagged,
            "false_positive_rate": round(flagged / max(len(turns), 1), 6),
            "turns_with_any_hit": sum(bool(r.hits) for r in results),
            "rule_hits": {rule: hit_rules[rule] for rule in RULES},
            "rule_flagged": {rule: flagged_rules[rule] for rule in RULES},
            "flagged_examples": examples,
            "mean_us_per_turn": round(elapsed / max(len(turns), 1) * 1e6, 1),
            "mean_turn_chars": round(sum(len(t["text"]) for t in turns) / max(len(turns), 1), 1),
        },
        "locomo_import": imported_memories(args.data, args.threshold),
        "corpus": corpus_figures(attacks, benign, args.threshold),
        "corpus_sweep": sweep,
        "python": platform.python_version(),
        "machine": f"{platform.machine()} x{os.cpu_count()}",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result_json, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    locomo, corpus = result_json["locomo"], result_json["corpus"]
    print(f"threshold {args.threshold} (corpus choice {corpus_choice})")
    print(f"LoCoMo: {locomo['turns']} turns, {flagged} flagged, FP rate {locomo['false_positive_rate']:.4%}, "
          f"{locomo['turns_with_any_hit']} with any hit, {locomo['mean_us_per_turn']} us/turn")
    for rule, count in locomo["rule_hits"].items():
        print(f"  {rule}: {count} turns hit, {locomo['rule_flagged'][rule]} flagged")
    for example in examples:
        print(f"  {example['dia_id']}: {example['reason']}")
    imported = result_json["locomo_import"]
    print(f"LoCoMo as imported: {imported['memories']} memories ({imported['field_texts']} other field texts), "
          f"{imported['flagged']} flagged ({imported['flagged_by_content']} by content, "
          f"{imported['flagged_by_other_fields']} by another field)")
    print(f"corpus: {corpus['attacks']} attacks, detection {corpus['detection_rate']:.2%}; {corpus['benign']} benign, "
          f"FP {corpus['benign_fp_rate']:.2%} ({len(corpus['benign_flagged'])} flagged)")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
