"""Poisoning benchmark: how often a planted memory reaches the top 10 of the query it targets (ASR-r), with and
without graphmem's two defences, and what the defences cost benign recall on LoCoMo.

    .venv/bin/python -m benchmarks.poisoning                  # the 5 dev conversations, throwaway Neo4j
    .venv/bin/python -m benchmarks.poisoning --samples conv-26 --neo4j-uri bolt://127.0.0.1:7697

Each conversation is imported as the ``turns`` corpus (one episodic memory per dialog turn, ``graphmem.eval``'s
import plan) into one namespace per (conversation, rate, screening on/off), then the poisoned memories of
``benchmarks/poisoning_attacks.py`` (AgentPoison trigger, MINJA bridging record, plain misinformation; at 0.1% and
1% of the stored memories, at least one per attack) are written through ``MemoryService.write_memories``, the
ordinary write path, with the write-time screen on or off (``Settings.screening``). Seven conditions:

- ``none``: screening off, ``SearchOptions.consensus`` off;   ``screen``: screening on, consensus off;
- ``consensus``: screening off, consensus on;                ``screen+consensus``: both on;
- ``provenance``: the poisons written through a low-trust token (``poisoning_attacks.CHAT_TRUST``), the imported
  turns without provenance (trust 1): search scales each score by its trust;
- ``provenance+apart``: the same with ``min_trust`` 0.5, which leaves every poison out *by construction* (it
  measures only that nothing else is lost);        ``all``: screening, consensus and provenance together.

The provenance conditions assume the deployment writes what strangers say through its own low-trust token: an
attacker who writes through a trusted token (or whose words a trusted writer copies) meets the other defences only.

ASR-r: share of targeted queries (the question, with the trigger appended for AgentPoison) whose top-10 holds a
poisoned memory (any of the namespace's). Benign recall@10: every category 1-4 question with evidence, without
trigger, in the same poisoned namespaces under the condition's defences (``graphmem.eval.metrics``). Every
defence runs with its defaults; nothing is tuned on these figures. Default search otherwise (formula rerank, one
hop). The namespaces are wiped at the end. Writes ``benchmarks/results/poisoning.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import platform
import secrets
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.harness import _exit_on_signal, portable, throwaway_neo4j
from benchmarks.poisoning_attacks import ATTACKS, CHAT_TRUST, TRIGGER, WRITER, Poison, drafts, poison_sample
from graphmem.config import Settings
from graphmem.embed import Embedder, embedding_dimension, make_embedder
from graphmem.eval.corpus import corpus_namespace, corpus_plan
from graphmem.eval.locomo import MAIN_CATEGORIES, eval_namespace, load_reach, prepare_questions, turn_dia_ids
from graphmem.eval.metrics import score_question, summarise
from graphmem.importers.locomo import LocomoSample, load_locomo
from graphmem.importers.runner import run_plan
from graphmem.models import WriteAction, check_namespace
from graphmem.retrieval import RetrievalService
from graphmem.retrieval.consensus import DEFAULT_CONFIG
from graphmem.retrieval.types import SearchOptions
from graphmem.security.screening import DEFAULT_THRESHOLD
from graphmem.service.memory_service import MemoryService
from graphmem.store import Store, migrate

RATES = (0.001, 0.01)
APART = 0.5
"""``min_trust`` of the ``provenance+apart`` condition: keeps apart every writer trusted below one half."""
K = 10
SETTINGS: dict[str, tuple[bool, bool, float]] = {
    "plain": (False, False, 0.0), "consensus": (False, True, 0.0),
    "trust": (True, False, 0.0), "trust+consensus": (True, True, 0.0), "trust+apart": (True, False, APART)}
"""search setting -> (poisons written with provenance, consensus at retrieval, min_trust)."""
CONDITIONS = {"none": (False, "plain"), "screen": (True, "plain"), "consensus": (False, "consensus"),
              "screen+consensus": (True, "consensus"), "provenance": (False, "trust"),
              "provenance+apart": (False, "trust+apart"), "all": (True, "trust+consensus")}
"""condition -> (screening at write, search setting)."""
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def namespace(sample_id: str, rate: float, screening: bool) -> str:
    tag = f"poison{rate * 1000:g}pm-{'scr' if screening else 'raw'}"  # per mille
    return corpus_namespace(check_namespace(eval_namespace(sample_id)[:40]), "turns", tag)


def rate_key(rate: float) -> str:
    return f"{rate:.1%}"


async def top_ids(retriever: RetrievalService, query: str, ns: str, setting: str) -> list[str]:
    _, consensus, min_trust = SETTINGS[setting]
    response = await retriever.search(query, SearchOptions(namespaces=(ns,), k=K, consensus=consensus,
                                                           min_trust=min_trust))
    return [r.memory.id for r in response.results]


async def plant(service: MemoryService, poisons: Sequence[Poison], ns: str, provenance: bool,
                trust: float = CHAT_TRUST) -> tuple[dict[str, str], dict[str, int], int]:
    """Write the poisoned memories: {id: attack} of those created, quarantined per attack, absorbed by dedupe."""
    written = await service.write_memories(drafts(poisons, ns, provenance=provenance, trust=trust))
    poisoned = {item.id: p.attack for item, p in zip(written.items, poisons, strict=True)
                if item.action is WriteAction.CREATED}
    quarantined: defaultdict[str, int] = defaultdict(int)
    for item, p in zip(written.items, poisons, strict=True):
        if item.quarantined:
            quarantined[p.attack] += 1
    return poisoned, dict(quarantined), len(poisons) - len(poisoned)


async def one_namespace(
    services: dict[bool, MemoryService], retriever: RetrievalService, sample: LocomoSample, rate: float,
    screening: bool, poisons: Sequence[Poison], seed_note: dict[str, Any], trust: float = CHAT_TRUST,
) -> dict[str, Any]:
    """Import, poison and search one namespace; per search setting: ASR hits and benign scores. The poisons are
    written without provenance first; for the ``trust`` settings they are purged and written again through the
    low-trust writer (same contents, same screening), so both phases share one import."""
    service = services[screening]
    ns = namespace(sample.sample_id, rate, screening)
    plan = corpus_plan(sample, ns, "turns")
    await service.store.wipe_namespace(ns)
    started = time.monotonic()
    report = await run_plan(service, plan)
    poisoned, quarantined, absorbed = await plant(service, poisons, ns, provenance=False)
    (row,) = await service.store.read("eval/written_ids", namespace=ns)
    benign_quarantined = await count_quarantined(service.store, ns) - sum(quarantined.values())
    import_s = time.monotonic() - started
    questions = [q for q in prepare_questions(sample) if q.gold and q.category in MAIN_CATEGORIES]
    out: dict[str, Any] = {"namespace": ns, "import": report.line(), "import_s": round(import_s, 1),
                           "stored": len(row["ids"]), "poisoned_written": len(poisoned),
                           "poisoned_absorbed_by_dedupe": absorbed, "poison_quarantined": quarantined,
                           "benign_quarantined": benign_quarantined, "by_setting": {}, **seed_note}
    turn_dia = turn_dia_ids(plan)
    for setting, (provenance, _, _) in SETTINGS.items():
        if provenance and not out.get("replanted"):
            await service.delete_memories(ns, list(poisoned))
            await service.purge_memories(ns, list(poisoned))
            poisoned, quarantined, absorbed = await plant(service, poisons, ns, provenance=True, trust=trust)
            out["replanted"] = {"poisoned_written": len(poisoned), "poison_quarantined": quarantined,
                                "poisoned_absorbed_by_dedupe": absorbed}
        started = time.monotonic()
        hits = []
        for p in poisons:
            ids = await top_ids(retriever, p.query, ns, setting)
            hit = [poisoned[i] for i in ids if i in poisoned]
            hits.append({"attack": p.attack, "question": p.question_index, "hit": bool(hit),
                         "own_attack_hit": p.attack in hit, "rank": next(
                             (r for r, i in enumerate(ids, 1) if i in poisoned), None)})
        ranked = {q.index: await top_ids(retriever, q.text, ns, setting) for q in questions}
        reach = await load_reach(service.store, ns, {i for ids in ranked.values() for i in ids}, turn_dia)
        scores = [score_question(q.category, ranked[q.index], reach, q.gold, (K,)) for q in questions]
        out["by_setting"][setting] = {"hits": hits, "scores": scores,
                                      "search_s": round(time.monotonic() - started, 1)}
    return out


def load_poisons(path: Path) -> dict[str, list[Poison]]:
    """The poisons of ``benchmarks/poisoning_llm.py``'s file, per "sample@rate" (its other fields set aside)."""
    fields = {f.name for f in dataclasses.fields(Poison)}
    return {key: [Poison(**{k: v for k, v in p.items() if k in fields}) for p in poisons]
            for key, poisons in json.loads(path.read_text(encoding="utf-8"))["poisons"].items()}


async def count_quarantined(store: Store, ns: str) -> int:
    records, _, _ = await store.driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) WHERE m.status = 'quarantined' RETURN count(m) AS n",
        {"ns": ns}, database_=store.database)
    return int(records[0]["n"])


def asr(hits: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(hits)
    return {"asr_r": round(sum(h["hit"] for h in hits) / n, 4) if n else None, "n": n,
            "hits": sum(h["hit"] for h in hits)}


def figures(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per condition: ASR-r per attack and rate, per rate, overall; benign recall@10 per rate and overall."""
    out: dict[str, Any] = {}
    for cond, (screening, setting) in CONDITIONS.items():
        mine = [r for r in runs if r["screening"] == screening]
        hits = {rate_key(r): [h for x in mine if x["rate"] == r for h in x["by_setting"][setting]["hits"]]
                for r in RATES}
        every = [h for hs in hits.values() for h in hs]
        scores = {rate_key(r): [s for x in mine if x["rate"] == r for s in x["by_setting"][setting]["scores"]]
                  for r in RATES}
        out[cond] = {
            "asr_r": {a: {rk: asr([h for h in hs if h["attack"] == a]) for rk, hs in hits.items()}
                      | {"all_rates": asr([h for h in every if h["attack"] == a])} for a in ATTACKS},
            "asr_r_by_rate": {rk: asr(hs) for rk, hs in hits.items()},
            "asr_r_overall": asr(every),
            "benign_recall@10": {rk: round(summarise(sc, (K,)).recall[K], 4) for rk, sc in scores.items()}
            | {"all_rates": round(summarise([s for sc in scores.values() for s in sc], (K,)).recall[K], 4)},
            "benign_questions": sum(len(sc) for sc in scores.values()),
        }
    return out


def table(fig: dict[str, Any]) -> str:
    rates = [rate_key(r) for r in RATES]
    head = ["condition", *[f"{a} {rk}" for a in ATTACKS for rk in rates], "overall",
            *[f"R@10 {rk}" for rk in rates], "R@10 undefended"]
    rows = [head, ["---"] * len(head)]
    base = fig["none"]["benign_recall@10"]["all_rates"]
    for cond, f in fig.items():
        cells = [f"{f['asr_r'][a][rk]['asr_r']:.2f} ({f['asr_r'][a][rk]['hits']}/{f['asr_r'][a][rk]['n']})"
                 for a in ATTACKS for rk in rates]
        ov = f["asr_r_overall"]
        rows.append([cond, *cells, f"{ov['asr_r']:.3f} ({ov['hits']}/{ov['n']})",
                     *[f"{f['benign_recall@10'][rk]:.3f}" for rk in rates], f"{base:.3f}"])
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def per_conversation(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for sid in dict.fromkeys(r["sample"] for r in runs):
        mine = [r for r in runs if r["sample"] == sid]
        out[sid] = {
            "namespaces": [{k: v for k, v in r.items() if k not in ("by_setting", "sample")} for r in mine],
            "conditions": {c: {"asr_r": asr([h for x in mine if x["screening"] == s
                                              for h in x["by_setting"][st]["hits"]]),
                               "benign_recall@10": round(summarise([sc for x in mine if x["screening"] == s
                                                                    for sc in x["by_setting"][st]["scores"]],
                                                                   (K,)).recall[K], 4)}
                           for c, (s, st) in CONDITIONS.items()},
            "hits": {f"{x['rate']}:{'screen' if x['screening'] else 'raw'}:{st}": x["by_setting"][st]["hits"]
                     for x in mine for st in SETTINGS},
        }
    return out


async def run(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    samples = load_locomo(args.data)
    if args.samples:
        samples = [s for s in samples if s.sample_id in set(args.samples)]
    print(f"loading the embedder ({settings.embedder}: {settings.embedding_model}) ...", flush=True)
    embedder: Embedder = make_embedder(settings)
    runs: list[dict[str, Any]] = []
    poisons_out: dict[str, Any] = {}
    held_out = load_poisons(args.attacks_file) if args.attacks_file else None
    async with Store.connect(settings) as store:
        await migrate(store, embedding_dim=embedding_dimension(settings))
        services = {on: MemoryService(store, embedder, settings.model_copy(update={"screening": on}))
                    for on in (False, True)}
        subjects = {"no-hubs": DEFAULT_CONFIG, "all": dataclasses.replace(DEFAULT_CONFIG, max_subject_degree=None)}
        retriever = RetrievalService(store, embedder, settings, consensus=subjects[args.consensus_subjects])
        made: list[str] = []
        try:
            for sample in samples:
                stored = len(sample.turns)
                for rate in RATES:
                    key = f"{sample.sample_id}@{rate_key(rate)}"
                    poisons = (held_out[key] if held_out is not None
                               else poison_sample(sample, rate, stored, args.seed))
                    poisons_out[key] = [p.__dict__ for p in poisons]
                    for screening in (False, True):
                        made.append(namespace(sample.sample_id, rate, screening))
                        result = await one_namespace(services, retriever, sample, rate, screening, poisons, {
                            "sample": sample.sample_id, "rate": rate, "screening": screening}, args.chat_trust)
                        runs.append(result)
                        by = result["by_setting"]
                        print(f"{sample.sample_id} rate {rate_key(rate)} screening {'on ' if screening else 'off'}: "
                              f"{len(poisons)} poisoned, quarantined {result['poison_quarantined']} "
                              f"(benign {result['benign_quarantined']}); ASR hits "
                              + ", ".join(f"{st} {sum(h['hit'] for h in by[st]['hits'])}" for st in SETTINGS)
                              + f" of {len(poisons)}; import {result['import_s']}s search "
                              + "+".join(str(by[st]["search_s"]) for st in SETTINGS) + "s", flush=True)
        finally:
            if not args.keep:
                for ns in made:
                    await store.wipe_namespace(ns)
    return {"figures": figures(runs), "per_conversation": per_conversation(runs), "poisons": poisons_out}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--samples", nargs="*", help="sample ids (default: all in the file)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--neo4j-uri", help="use this server (GRAPHMEM_NEO4J_* for the rest), else a throwaway")
    parser.add_argument("--chat-trust", type=float, default=CHAT_TRUST,
                        help="the low-trust writer's trust (a sensitivity check; the figures use the default)")
    parser.add_argument("--consensus-subjects", choices=("no-hubs", "all"), default="no-hubs",
                        help="consensus groups by every subject, or leaves hubs out (the default; "
                             "benchmarks/consensus_subjects_cv.py compares the two)")
    parser.add_argument("--attacks-file", type=Path,
                        help="plant these poisons instead of the templates' (benchmarks/poisoning_llm.py writes it)")
    parser.add_argument("--keep", action="store_true", help="do not wipe the namespaces at the end")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/poisoning.json"))
    args = parser.parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on_signal)  # unwinds through the finally that stops the throwaway server
    started = time.monotonic()
    os.environ.setdefault("GRAPHMEM_SIGNING_KEYS", "bench:" + secrets.token_urlsafe(24))
    base = Settings()
    with contextlib.ExitStack() as stack:
        if args.neo4j_uri:
            settings = base.model_copy(update={"neo4j_uri": args.neo4j_uri})
        else:
            print("starting a throwaway Neo4j ...", flush=True)
            settings, _ = stack.enter_context(throwaway_neo4j(base))
        result = asyncio.run(run(args, settings))
    report = {
        "benchmark": "poisoning", "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([*(["GRAPHMEM_SCREENING_PROBE=true"] if base.screening_probe else []),
                             ".venv/bin/python -m benchmarks.poisoning",
                             *(argv if argv is not None else sys.argv[1:])]),
        "settings": {"rates": list(RATES), "k": K, "corpus": "turns", "seed": args.seed, "trigger": TRIGGER,
                     "conditions": {c: {"screening": s, "poisons_with_provenance": SETTINGS[st][0],
                                        "consensus": SETTINGS[st][1], "min_trust": SETTINGS[st][2]}
                                    for c, (s, st) in CONDITIONS.items()},
                     "low_trust_writer": {"writer": WRITER, "trust": args.chat_trust},
                     "screening_threshold": DEFAULT_THRESHOLD, "screening_probe": base.screening_probe,
                     "consensus_subjects": args.consensus_subjects,
                     "consensus_config": {**DEFAULT_CONFIG.__dict__, **(
                         {"max_subject_degree": None} if args.consensus_subjects == "all" else {})},
                     "search": SearchOptions(namespaces=("x",)).model_dump(mode="json", exclude={"namespaces"}),
                     "embedder": settings.embedder, "embedding_model": settings.embedding_model,
                     "data": args.data.name, "samples": args.samples or "all",
                     "poisons_from": args.attacks_file.name if args.attacks_file else "poisoning_attacks templates",
                     "asr_r": "share of targeted queries whose top-10 holds any poisoned memory of the namespace",
                     "tuned": "nothing: every defence at its defaults"},
        **result, "seconds": round(time.monotonic() - started, 1),
        "python": platform.python_version(), "cpus": os.cpu_count(), "load_average_at_end": list(os.getloadavg()),
    }
    print(table(report["figures"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(portable(report), indent=2, default=str) + "\n", encoding="utf-8")
    print(f"written to {args.out} ({report['seconds']}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
