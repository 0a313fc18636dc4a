"""Consolidation on the LoCoMo dev split: planted paraphrased duplicates, found and merged; recall before and after.

    .venv/bin/python -m benchmarks.consolidation --data ../shared/data/locomo/locomo-dev.json [--llm-sample 3]

Needs a running Neo4j (GRAPHMEM_NEO4J_URI; `graphmem neo4j start`). Per conversation, in its own namespace
``locomo-<sample>-consolidation`` (wiped first): the turns+facts corpus is imported as ``graphmem import`` does
(write-path dedupe on), then paraphrases of a seeded 20% of the observations (``consolidation_data.plant``) are
written with dedupe off, as a second import that bypassed dedupe would; what the write path's own dedupe would have
caught of them is counted first (its plan, nothing written). Then:

1. recall@5/10/20 (categories 1-4, the default search, access recording on: ``graphmem.eval.locomo``), before;
   then with every planted paraphrase archived (the oracle: a perfect consolidation, i.e. the corpus without the
   planted duplicates), and the paraphrases active again;
2. eps of DBSCAN chosen by leave-one-conversation-out cross-validation on the pair F1 of the clusters against the
   planted pairs (every fold reported); each conversation is then consolidated with the eps of its own fold, so no
   reported figure saw its own conversation; the eps chosen on all five is the shipped default;
3. the same candidates clustered by HDBSCAN (and DBSCAN without the key-detail split), for comparison;
4. ``Consolidator.run`` per namespace (no LLM): memories before/after, clusters vs planted, time per 1,000;
5. recall again, after. With ``--llm-sample N`` the local LLM writes the merged text of N clusters (timed, nothing
   written): LLM calls per 1,000 memories are otherwise estimated as one per cluster (plus the repairs seen).

Writes benchmarks/results/consolidation.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.consolidation_data import ZERO, Score, best_eps, leave_one_out, pairs_of, plant, score
from graphmem.config import Settings
from graphmem.consolidation import Consolidator
from graphmem.consolidation.candidates import read_candidates
from graphmem.consolidation.cluster import Candidate, find_clusters, split_group
from graphmem.consolidation.llm_merge import merge_text
from graphmem.eval.corpus import corpus_namespace, corpus_plan
from graphmem.eval.locomo import eval_namespace, evaluate_samples
from graphmem.importers.locomo import LocomoSample, load_locomo
from graphmem.importers.runner import run_plan
from graphmem.models import MemoryKind, WriteAction, utcnow
from graphmem.retrieval import RetrievalService
from graphmem.retrieval.access import AccessRecorder
from graphmem.service import MemoryService
from graphmem.service.browse import BrowseService
from graphmem.service.factory import open_service
from graphmem.store import Step

TAG = "consolidation"
CORPUS = "turns+facts"
GRID = tuple(round(0.02 * i, 2) for i in range(1, 14))  # 0.02 .. 0.26
OUT = Path("benchmarks/results/consolidation.json")


def namespace_of(sample: LocomoSample) -> str:
    return corpus_namespace(eval_namespace(sample.sample_id), CORPUS, TAG)


async def prepare(service: MemoryService, sample: LocomoSample, fraction: float, seed: int) -> dict[str, Any]:
    """Import the conversation and its planted paraphrases; what the write path's dedupe would have caught."""
    ns = namespace_of(sample)
    await service.store.wipe_namespace(ns)
    base = corpus_plan(sample, ns, CORPUS)
    planted = plant(base, fraction=fraction, seed=seed)
    started = time.monotonic()
    imported = await run_plan(service, base)
    extra = [m for m in planted.plan.memories if m.id in planted.pairs]
    verdict = await service.plan_write(extra, dedupe=True)  # the write path's decision; nothing written
    caught = {extra[r.index].id for r in verdict.results if r.action is WriteAction.STRENGTHENED}
    await service.write_memories(extra, dedupe=False)
    return {"namespace": ns, "import": imported.line(), "import_seconds": round(time.monotonic() - started, 1),
            "pairs": planted.pairs, "caught_by_write_path": sorted(i for i in caught if i is not None),
            "unparaphrased": planted.skipped}


async def counts(service: MemoryService, ns: str) -> dict[str, int]:
    stats = await BrowseService(service.store).stats(ns)
    return {k: v for k, v in sorted(stats.memories.items())}


def hdbscan_clusters(items: list[Candidate], eps: float, *, split: bool = True) -> list[tuple[str, ...]]:
    """HDBSCAN (min_cluster_size 2, cosine) groups, cut by the same key-detail split as DBSCAN's (``split``)."""
    from sklearn.cluster import HDBSCAN

    if len(items) < 2:
        return []
    labels = HDBSCAN(min_cluster_size=2, metric="cosine", copy=True).fit_predict(np.stack([c.vector for c in items]))
    groups: dict[int, list[Candidate]] = {}
    for c, label in zip(items, (int(x) for x in labels), strict=True):
        if label >= 0:
            groups.setdefault(label, []).append(c)
    if not split:
        return [tuple(c.memory.id for c in g) for g in groups.values()]
    return [c.ids for g in groups.values() for c in split_group(g, eps, 20)]


def unsplit_clusters(items: list[Candidate], eps: float) -> list[tuple[str, ...]]:
    """DBSCAN groups as they come, without the key-detail split."""
    from graphmem.consolidation.cluster import dbscan_groups

    matrix = np.stack([c.vector for c in items])
    return [tuple(items[r].memory.id for r in rows) for rows in dbscan_groups(matrix, eps)]


async def recall(service: MemoryService, retriever: RetrievalService, recorder: AccessRecorder,
                 samples: list[LocomoSample]) -> dict[str, Any]:
    report = await evaluate_samples(service, retriever, samples, modes=["formula"], ks=(5, 10, 20), corpus=CORPUS,
                                    usage=recorder, graph_tag=TAG)
    result = report["results"]["formula"]
    return {"by_category": result["by_category"], "by_sample": result["by_sample"],
            "latency_ms_p50": result["latency_ms"].get("wall", {}).get("p50")}


async def llm_sample(service: MemoryService, settings: Settings, clusters: list[Any], n: int) -> dict[str, Any]:
    from graphmem.llm import LLMClient

    llm = LLMClient(settings)
    out: list[dict[str, Any]] = []
    try:
        for cluster in clusters[:n]:
            started = time.monotonic()
            merged = await merge_text(llm, cluster, timeout=settings.consolidation_llm_timeout_s)
            out.append({"members": [c.memory.content for c in cluster.members], "text": merged.text,
                        "calls": merged.calls, "error": merged.error, "unreachable": merged.unavailable,
                        "seconds": round(time.monotonic() - started, 1)})
    finally:
        await llm.close()
    reached = [x for x in out if not x["unreachable"]]
    return {"model": settings.llm_model, "clusters": out, "reached": len(reached),
            "calls_per_cluster": round(sum(x["calls"] for x in reached) / len(reached), 3) if reached else None,
            "seconds_per_cluster": round(sum(x["seconds"] for x in reached) / len(reached), 1) if reached else None,
            "valid": sum(1 for x in reached if x["text"] is not None)}


async def set_status(service: MemoryService, prepared: dict[str, Any], old: str, new: str) -> None:
    """Every planted paraphrase from ``old`` to ``new`` (the oracle: a perfect consolidation, and back)."""
    for p in prepared.values():
        await service._write(p["namespace"], [Step("memory/set_status", {
            "ids": sorted(p["pairs"]), "namespace": p["namespace"], "from": [old], "to": new, "at": utcnow()})])


async def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings()
    samples = load_locomo(args.data)
    if args.samples:
        samples = [s for s in samples if s.sample_id in args.samples]
    out: dict[str, Any] = {"settings": {"fraction": args.fraction, "seed": args.seed, "grid": list(GRID),
                                        "embedding_model": settings.embedding_model,
                                        "dedupe_threshold": None}}
    async with open_service(settings) as service:
        out["settings"]["dedupe_threshold"] = service.threshold
        recorder = AccessRecorder(service.store)
        retriever = RetrievalService(service.store, service.embedder, settings, query_vectors=0,
                                     versions=service.versions, recorder=recorder)
        prepared = {s.sample_id: await prepare(service, s, args.fraction, args.seed) for s in samples}
        for sid, p in prepared.items():
            print(f"{sid}: {p['import']}; planted {len(p['pairs'])} ({len(p['caught_by_write_path'])} the write "
                  f"path would catch)", flush=True)
        before = {sid: await counts(service, p["namespace"]) for sid, p in prepared.items()}
        started = time.monotonic()
        out["recall_before"] = await recall(service, retriever, recorder, samples)
        out["eval_seconds_before"] = round(time.monotonic() - started, 1)
        print(f"recall@10 before {out['recall_before']['by_category']['all']['recall@10']:.4f}", flush=True)
        await set_status(service, prepared, "active", "archived")  # the oracle: every planted paraphrase merged
        out["recall_oracle"] = await recall(service, retriever, recorder, samples)
        await set_status(service, prepared, "archived", "active")
        print(f"recall@10 oracle {out['recall_oracle']['by_category']['all']['recall@10']:.4f}", flush=True)

        cands: dict[str, list[Candidate]] = {}
        planted: dict[str, set[frozenset[str]]] = {}
        grid: dict[str, dict[float, Score]] = {}
        missed: dict[str, set[frozenset[str]]] = {}
        missed_grid: dict[float, list[int]] = {eps: [0, 0] for eps in GRID}
        for sid, p in prepared.items():
            ns = p["namespace"]
            await service.store.write([Step("eval/reset_access", {"namespace": ns})])  # support: not the questions'
            items = (await read_candidates(service.store, ns, (MemoryKind.SEMANTIC,), page=1000, now=utcnow())).items
            stored = {c.memory.id for c in items}
            cands[sid] = items
            planted[sid] = {frozenset(pair) for pair in p["pairs"].items() if set(pair) <= stored}
            caught = set(p["caught_by_write_path"])
            missed[sid] = {frozenset(pair) for pair in p["pairs"].items() if pair[0] not in caught} & planted[sid]
            grid[sid] = {}
            for eps in GRID:
                found = [c.ids for c in find_clusters(items, eps=eps).clusters]
                grid[sid][eps] = score(found, planted[sid])
                missed_grid[eps][0] += len(pairs_of(found) & missed[sid])
                missed_grid[eps][1] += len(missed[sid])
        folds = leave_one_out(grid) if len(grid) > 1 else []
        eps_of = {f["held_out"]: float(f["eps"]) for f in folds}  # type: ignore[arg-type]
        overall = {eps: sum((grid[s][eps] for s in grid), ZERO) for eps in GRID}
        out["eps"] = {"folds": folds, "chosen_on_all": best_eps(overall),
                      "grid_all": {str(e): s.as_dict() for e, s in overall.items()},
                      "grid_recall_of_pairs_the_write_path_misses": {
                          str(e): f"{hit}/{n}" for e, (hit, n) in missed_grid.items()}}
        compare: dict[str, Score] = {"dbscan+split": ZERO, "dbscan_without_split": ZERO, "hdbscan+split": ZERO,
                                     "hdbscan_without_split": ZERO}
        for sid, items in cands.items():
            eps = eps_of.get(sid, out["eps"]["chosen_on_all"])
            compare["dbscan+split"] += grid[sid][eps]
            compare["dbscan_without_split"] += score(unsplit_clusters(items, eps), planted[sid])
            compare["hdbscan+split"] += score(hdbscan_clusters(items, eps), planted[sid])
            compare["hdbscan_without_split"] += score(hdbscan_clusters(items, eps, split=False), planted[sid])
        out["clusterers_held_out"] = {k: v.as_dict() for k, v in compare.items()}

        per: dict[str, Any] = {}
        total = ZERO
        unplanted: list[list[str]] = []
        llm_clusters: list[Any] = []
        for sid, p in prepared.items():
            ns, eps = p["namespace"], eps_of.get(sid, out["eps"]["chosen_on_all"])
            config = settings.model_copy(update={"consolidation_eps": eps})
            consolidator = Consolidator(service, config)
            if args.llm_sample and len(llm_clusters) < args.llm_sample:
                llm_clusters += (await consolidator.find(ns))[1].clusters
            report = await consolidator.run(ns)
            found = [c.member_ids for c in report.plans if c.outcome.value == "merged"]
            got = score(found, planted[sid])
            total += got
            late = missed[sid]  # what reaches consolidation in a deployment that writes through the dedupe
            per[sid] = {"eps": eps, "report": report.counts(), "seconds": report.seconds, "clusters": got.as_dict(),
                        "pairs_the_write_path_misses": len(late),
                        "of_those_found": len(pairs_of(found) & late), "planted": len(p["pairs"]),
                        "caught_by_write_path": len(p["caught_by_write_path"]), "memories_before": before[sid],
                        "memories_after": await counts(service, ns), "import": p["import"],
                        "import_seconds": p["import_seconds"]}
            unplanted += [[c.contents[i] for i in range(len(c.member_ids))] for c in report.plans
                          if not pairs_of([c.member_ids]) & planted[sid]][:3]
            print(f"{sid}: eps {eps}: {report.lines()[-1]}; planted pairs found {got.hits}/{got.planted_pairs}, "
                  f"pair precision {got.precision:.3f}", flush=True)
        out["per_conversation"] = per
        out["clusters_vs_planted"] = total.as_dict()
        out["unplanted_cluster_examples"] = unplanted[:12]
        memories = sum(sum(v for k, v in before[s].items() if k.endswith("/active")) for s in before)
        candidates = sum(len(c) for c in cands.values())
        seconds = sum(p["seconds"] for p in per.values())
        clusters = sum(p["report"]["clusters"] for p in per.values())
        out["per_1000"] = {"memories": memories, "candidates": candidates, "consolidation_seconds": round(seconds, 2),
                           "seconds_per_1000_memories": round(1000 * seconds / memories, 2),
                           "seconds_per_1000_candidates": round(1000 * seconds / candidates, 2),
                           "clusters_per_1000_memories": round(1000 * clusters / memories, 2),
                           "llm_calls_per_1000_memories_estimated": round(1000 * clusters / memories, 2)}
        if args.llm_sample:
            llm_settings = settings.model_copy(update={"llm_base_url": settings.llm_base_url or
                                                       "http://127.0.0.1:8088/v1"})
            out["llm_sample"] = await llm_sample(service, llm_settings, llm_clusters, args.llm_sample)
            factor = out["llm_sample"]["calls_per_cluster"] or 1.0  # unreachable: one call per cluster
            out["per_1000"]["llm_calls_per_1000_memories_estimated"] = round(1000 * clusters * factor / memories, 2)
        started = time.monotonic()
        out["recall_after"] = await recall(service, retriever, recorder, samples)
        out["eval_seconds_after"] = round(time.monotonic() - started, 1)
    r10 = {when: out[f"recall_{when}"]["by_category"]["all"]["recall@10"] for when in ("before", "oracle", "after")}
    out["recall@10"] = {**{k: round(v, 4) for k, v in r10.items()}, "delta": round(r10["after"] - r10["before"], 4),
                        "delta_to_oracle": round(r10["after"] - r10["oracle"], 4)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--fraction", type=float, default=0.2, help="Share of the observations paraphrased.")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--samples", nargs="*", help="Only these conversations (default: all).")
    parser.add_argument("--llm-sample", type=int, default=0, help="Clusters merged by the local LLM (timed).")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    started = time.monotonic()
    report = asyncio.run(run(args))
    report = {"command": "python -m benchmarks.consolidation --data ../shared/data/locomo/locomo-dev.json"
                         + (f" --llm-sample {args.llm_sample}" if args.llm_sample else ""),
              "data": Path(args.data).name, **report, "seconds": round(time.monotonic() - started, 1),
              "load_average": list(os.getloadavg())}
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"recall@10 {report['recall@10']}; clusters vs planted {report['clusters_vs_planted']}; "
          f"written to {args.out}")


if __name__ == "__main__":
    main()
