"""Search latency benchmark: graphmem's retrieval at 10k and 100k memories with relations, and graphiti-core.

    .venv/bin/python -m benchmarks.search                          # 10k + 100k, 200 queries, throwaway Neo4j
    sudo nice -n -5 .venv/bin/python -m benchmarks.search          # the measurement run, ahead of other jobs
    .venv/bin/python -m benchmarks.search --sizes 1000,5000 --queries 40 --warmup 5 --no-graphiti   # quick

One run does everything:

1. Starts a throwaway Neo4j 5.26 (free ports, temp home, heap 2g, page cache 1g), unless ``--neo4j-uri``; it
   is stopped at the end, also on Ctrl-C, SIGTERM or an error.
2. Builds one dataset per size in its own namespace. Memories are entity-centric facts from
   ``graphiti_peer/make_facts.py`` ("Rafael Weber lives in Berlin"); each memory is ABOUT its entities (the
   person and the place, object or other person), and has typed edges to a few related memories: RELATES_TO
   towards memories about the same person, SUPPORTS towards a memory about the other person of a
   person-to-person fact, RELATES_TO towards one sharing its object. Creation times spread over a year, a
   share of the memories has access counts, so the recency, popularity and formula parts have data.
   Embeddings are real, made with the project's embedder (batched, ``--torch-threads``): first the ``--real``
   base facts (default 10,000, the 10k set and the start of every larger one). A larger size adds more facts
   in the same vocabulary about other people (named with a middle initial), embedded for real as well if the
   rate just measured says that takes at most ``--real-budget-s`` (default 600 s). If not (on the shared
   2-core box this was written on the rate swings between about 120 and 250 texts/s), the extra memories are
   *combinations* of two base facts about the same person ("A. B."), whose vector is the normalised sum of
   the two real vectors: such a dataset is for latency only, and the JSON and the table say so.
   The load is direct, through the store, in big UNWIND batches with the precomputed vectors:
   ``memory/create`` + ``memory/link_entities`` in one transaction per batch, then ``relation/relate``.
3. 200 distinct questions (``--queries``, plus ``--warmup`` others, default 60: a JVM just started or just
   loaded still compiles, and its first few hundred statements include stalls of 1-6 s; see HEAD), written
   from templates held apart from
   the fact templates ("Where does Rafael Weber live?", "Who did Rafael Weber marry?", "Who lives in Osaka?"),
   about facts present in every size. graphmem runs three modes, round-robin per query (so drifts in machine
   load hit all three alike), each through its own ``RetrievalService`` (its own result cache):
   - ``vector-only``: channels=(VECTOR,), hops=0, rerank=NONE;
   - ``fused``: the default channels (vector, full text), RRF, hops=0, rerank=FORMULA;
   - ``fused+expansion``: the defaults (vector + full-text seeds, hops=1, rerank=FORMULA);
   - ``all-channels+expansion``: a what-if, the defaults plus the recency and popularity seed channels.
   Reported per size and mode: p50/p95 of each stage of ``timings_ms`` (embed, seeds, expand, rerank, total),
   of the end-to-end time measured around ``search()`` in the client, and of each Cypher statement; every
   response is checked to be ``cached == False``.
4. graphiti-core 0.31.2 on the same server and the same facts, loaded through graphiti's own API by
   ``graphiti_peer/load_and_search.py`` (run with ``--graphiti-python``, its own group id), with the same
   measured queries (``--queries-file``); the ratios graphiti/graphmem of p50 and p95 are computed for
   every mode (the issue's pair: ``fused+expansion`` and ``vector-only``). It runs at the first size, and at a
   larger one only if that size is made of real facts and its load, extrapolated from the last graphiti run,
   fits in ``--graphiti-budget-s`` (default 900 s); otherwise the JSON says why not and what that run predicts.
5. After the largest size: ``PROFILE`` of every statement the default mode ran, with the parameters of a
   real query, and the query embedding time with 1 torch thread against torch's default.

Writes ``--out`` (default ``benchmarks/results/search.json``) and prints a table. Goals from the issue:
p95 <= 40 ms at 100k without an LLM, and >= 20x faster than graphiti-core.

The parts: ``search_data`` (facts, queries, embeddings, the load), ``search_timing`` (the modes and their timed
searches), ``search_graphiti`` (graphiti-core's run and ratios), ``search_report`` (goals, tables, notes) and
``harness`` (the throwaway server); this module runs them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import platform
import shlex
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.harness import (
    _exit_on_signal,
    jvm_peak_rss_mib,
    neo4j_server_version,
    package_version,
    portable,
    throwaway_neo4j,
)
from benchmarks.search_data import (
    build_dataset,
    delete_where,
    embed_real,
    embedding_rate,
    load,
    load_facts,
    loadavg,
    log,
    make_queries,
    more_facts,
    size_label,
)
from benchmarks.search_graphiti import graphiti_skip, ratios, run_graphiti
from benchmarks.search_report import code_digest, goals, notes, print_size, table
from benchmarks.search_timing import (
    DEFAULT_MODE,
    MODES,
    TimedStore,
    idle_cpu,
    measure,
    profile,
    python_profile,
    settle,
    thread_check,
)
from graphmem.config import Settings
from graphmem.embed import embedding_dimension, make_embedder
from graphmem.heap import settle as settle_heap
from graphmem.neo4j_local import LocalNeo4j
from graphmem.store import Store, migrate

HEAD = 10
"""The measured questions are the generated ones from HEAD on, whatever ``--warmup``, so that runs with other warm-ups
ask the same questions (the runs of 2026-12-05 and -06 used ``--warmup 10``); the warm-up asks the first HEAD and
then the ones after the measured. Why a longer warm-up than 10: on a JVM just started, the search statement now and
then takes 1.4-5.7 s server-side (the driver's ``t_first``), two statements in a row, in the first ~35 s of 45 s
runs on a database loaded long before (none on a JVM that had run this benchmark); not a GC pause (none logged), not
re-planning (the same with re-planning off) and not the expression engine (the same interpreted). Right after this
benchmark's load such stalls go on for longer (not understood). At 100k, with 10 warm-up questions vector-only's p95
was 108-129 ms in two runs, with 60 it was 35-52 ms in three; the default's p95 moved less (53-63 against 48-58 ms)."""


async def run(args: argparse.Namespace, settings: Settings, server: LocalNeo4j | None,
              workdir: Path) -> dict[str, Any]:
    import torch

    report: dict[str, Any] = {"loadavg": {"start": loadavg()}}
    sizes = sorted(args.sizes)
    n_real = min(args.real, sizes[-1])
    base = load_facts(n_real, args.seed)
    asked = make_queries(base[:sizes[0]], max(args.warmup, HEAD) + args.queries, args.seed + 1)
    queries = asked[HEAD:HEAD + args.queries]
    warmup = (asked[:HEAD] + asked[HEAD + args.queries:])[:args.warmup]

    log(f"loading the embedder ({settings.embedder}: {settings.embedding_model}), torch threads {args.torch_threads}")
    torch.set_num_threads(args.torch_threads)
    embedder = make_embedder(settings)
    embedder.embed_documents([f.text for f in base[:32]])
    log(f"embedding {n_real} base facts for real ...")
    base_vectors, embed_s = embed_real(embedder, [f.text for f in base], args.embed_cache)
    rate = n_real / embed_s if embed_s else embedding_rate(embedder, [f.text for f in base[:512]])
    report["embedding"] = {
        "model": settings.embedding_model, "dimension": embedder.dimension, "torch_threads": args.torch_threads,
        "runtime": getattr(embedder, "runtime", None),
        "base_facts": {"texts": n_real, "seconds": round(embed_s, 1) if embed_s is not None else None,
                       "from_cache": embed_s is None, "texts_per_s": round(rate, 1)},
        "real_budget_s": args.real_budget_s,
    }

    graphmem: dict[str, Any] = {}
    graphiti: dict[str, Any] = {}
    datasets: dict[str, Any] = {}
    profiles: dict[str, Any] = {}
    async with Store.connect(settings) as plain:
        store = TimedStore(plain.driver, settings)  # plain owns the driver
        await migrate(store, embedding_dim=embedding_dimension(settings))
        report["neo4j_server"] = await neo4j_server_version(store)
        previous: str | None = None
        namespaces = [f"{args.namespace}-{size_label(s)}" for s in sizes]
        for ns in namespaces:
            await delete_where(store, "namespace", ns)
        try:
            for size, ns in zip(sizes, namespaces, strict=True):
                label = size_label(size)
                if previous is not None:  # one graphmem namespace at a time: the sizes share their facts
                    log(f"removing namespace {previous} ...")
                    await delete_where(store, "namespace", previous)
                facts, vectors = base, base_vectors
                if size > n_real:  # more real facts if embedding them fits the budget, else combinations
                    extra = size - n_real
                    projected = extra / rate
                    decision: dict[str, Any] = {"extra_memories": extra, "projected_embed_s": round(projected),
                                                "rate_texts_per_s": round(rate, 1)}
                    if projected <= args.real_budget_s:
                        more = more_facts(extra, args.seed + 3)
                        log(f"[{label}] embedding {extra} more facts for real (projected {projected:.0f} s) ...")
                        more_vectors, more_s = embed_real(embedder, [f.text for f in more], args.embed_cache)
                        if more_s:
                            rate = extra / more_s
                        facts, vectors = [*base, *more], np.concatenate([base_vectors, more_vectors])
                        decision |= {"real": True, "seconds": round(more_s, 1) if more_s else None,
                                     "from_cache": more_s is None}
                    else:
                        log(f"[{label}] embedding {extra} more texts would take ~{projected:.0f} s > "
                            f"{args.real_budget_s} s: combinations of two base facts instead (latency only)")
                        decision |= {"real": False}
                    report["embedding"][label] = decision
                ds = build_dataset(size, ns, facts, vectors, args.seed)
                log(f"[{label}] loading {size} memories ({ds.real} real facts, {ds.synthetic} combinations), "
                    f"{len(ds.relations)} relations into {ns} ...")
                loaded = await load(store, ds, args.batch, args.relation_batch, args.seed + size)
                previous = ns
                datasets[label] = {
                    "namespace": ns, **loaded, "real_facts": ds.real, "synthetic_combinations": ds.synthetic,
                    "latency_only": ds.synthetic > 0,
                    "relation_types": dict(sorted(Counter(t for _, _, t, _ in ds.relations).items())),
                    "loadavg_after_load": loadavg(),
                }
                log(f"[{label}] loaded in {loaded['total_s']} s: {loaded}")
                log(f"[{label}] searching: {args.warmup} warm-up + {len(queries)} queries x {len(MODES)} modes ...")
                la0 = loadavg()
                jvm = server.read_pid() if server else None
                settled = await settle(jvm)
                log(f"[{label}] JVM quiet after {settled['waited_s']} s: {settled['readings_ms_per_s']} ms CPU/s")
                idle = await idle_cpu(jvm)
                heap = settle_heap(settings.gc_freeze)  # as the server does once it has started (graphmem.heap)
                measured = await measure(store, embedder, settings, ds, warmup, queries, args.k, jvm)
                measured["gc_freeze"] = dataclasses.asdict(heap) if heap else None
                log(f"[{label}] Python's collector among the timed searches (GRAPHMEM_GC_FREEZE="
                    f"{settings.gc_freeze}): {measured['python_gc']}")
                measured["neo4j_jvm_idle_cpu_ms_per_s"] = idle
                measured["settle"] = settled
                params = measured.pop("_profile_params")
                measured["loadavg_before"], measured["loadavg_after"] = la0, loadavg()
                graphmem[label] = measured
                print_size(label, measured)
                if size == sizes[-1]:
                    log(f"[{label}] PROFILE of the statements of {DEFAULT_MODE} ...")
                    for name, p in sorted(params.items()):
                        profiles[name] = await profile(store, name, p)
                    if args.cprofile:
                        log(f"[{label}] cProfile of {args.cprofile} more {DEFAULT_MODE} searches (not counted) ...")
                        report["cprofile"] = await python_profile(store, embedder, settings, ds,
                                                                  asked[: args.cprofile], args.k)
                if not args.no_graphiti:
                    skip = graphiti_skip(size, ds.synthetic > 0, graphiti, args.graphiti_budget_s)
                    if skip is None:
                        for done in graphiti:  # one graphiti group at a time, as for graphmem's namespaces
                            await delete_where(store, "group_id", f"{args.namespace}-graphiti-{done}")
                        graphiti[label] = run_graphiti(args, settings, facts[:size], queries,
                                                       f"{args.namespace}-graphiti-{label}", workdir,
                                                       getattr(embedder, "onnx_path", None))
                        if graphiti[label]["run"]:
                            graphiti[label]["ratios_graphiti_over_graphmem"] = ratios(graphiti[label], measured)
                    else:
                        graphiti[label] = skip
            if args.threads_check:
                log("query embedding: 1 torch thread against torch's default ...")
                report["query_embedding_threads"] = thread_check(
                    embedder, asked[: args.threads_check], sorted({1, os.cpu_count() or 1}))
        finally:
            if args.neo4j_uri and not args.keep:  # a server of the caller: leave nothing behind
                for ns in namespaces:
                    await delete_where(store, "namespace", ns)
                for label in graphiti:
                    await delete_where(store, "group_id", f"{args.namespace}-graphiti-{label}")
    report.update({"datasets": datasets, "graphmem": graphmem, "graphiti": graphiti, "profile": profiles,
                   "neo4j_jvm_peak_rss_mib": jvm_peak_rss_mib(server)})
    report["loadavg"]["end"] = loadavg()
    return report


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[10_000, 100_000],
                        help="dataset sizes, comma-separated (default 10000,100000)")
    parser.add_argument("--real", type=int, default=10_000,
                        help="base facts (make_facts, embedded for real; default 10000)")
    parser.add_argument("--real-budget-s", type=float, default=600,
                        help="embed a larger size's extra facts for real if that should take at most this; "
                             "else combine base facts (default 600)")
    parser.add_argument("--queries", type=int, default=200, help="measured queries per mode (default 200)")
    parser.add_argument("--warmup", type=int, default=60,
                        help="warm-up queries per mode, distinct from those (default 60: see HEAD)")
    parser.add_argument("--k", type=int, default=10, help="results per search (default 10)")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch threads for all embedding, graphiti's too (default 1: see the JSON's "
                             "query_embedding_threads for why)")
    parser.add_argument("--threads-check", type=int, default=30,
                        help="queries embedded with 1 thread and with torch's default at the end (0: skip)")
    parser.add_argument("--cprofile", type=int, default=20,
                        help="default-mode searches run under cProfile at the largest size (0: skip)")
    parser.add_argument("--batch", type=int, default=2000, help="memories per load transaction (default 2000)")
    parser.add_argument("--relation-batch", type=int, default=10_000, help="edges per load transaction")
    parser.add_argument("--neo4j-uri", help="use this server (GRAPHMEM_NEO4J_* for the rest), else a throwaway")
    parser.add_argument("--heap", default="2g", help="throwaway server heap (default 2g)")
    parser.add_argument("--pagecache", default="1g", help="throwaway server page cache (default 1g)")
    parser.add_argument("--namespace", default="bench-search", help="prefix of the namespaces and graphiti groups")
    parser.add_argument("--seed", type=int, default=7, help="make_facts seed (7: the graphiti_peer README's files)")
    parser.add_argument("--keep", action="store_true",
                        help="with --neo4j-uri: leave the last size's namespace there (to PROFILE by hand)")
    parser.add_argument("--embed-cache", type=Path, help="a folder to keep real embeddings in between runs")
    parser.add_argument("--no-graphiti", action="store_true", help="skip graphiti-core")
    parser.add_argument("--graphiti-python", type=Path,
                        default=Path(os.environ.get("GRAPHMEM_GRAPHITI_PYTHON", ".graphiti-venv/bin/python")),
                        help="python of graphiti's own venv (env GRAPHMEM_GRAPHITI_PYTHON; default "
                             ".graphiti-venv/bin/python; see benchmarks/graphiti_peer/README.md)")
    parser.add_argument("--graphiti-budget-s", type=float, default=900,
                        help="run graphiti at a larger size only if its extrapolated load fits (default 900)")
    parser.add_argument("--graphiti-timeout", type=int, default=3600, help="seconds for graphiti's load + search")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/search.json"))
    args = parser.parse_args(argv)
    if min(args.sizes) < 1 or args.queries < 1 or args.warmup < 0 or args.real < 1:
        parser.error("sizes, --queries and --real must be positive")
    if not args.no_graphiti and not args.graphiti_python.is_file():
        parser.error(f"{args.graphiti_python} not found (graphiti's venv; see benchmarks/graphiti_peer/README.md)"
                     " - or pass --no-graphiti")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on_signal)
    base = Settings()
    started = time.perf_counter()
    header = {
        "benchmark": "search", "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": shlex.join([Path(sys.executable).name, "-m", "benchmarks.search", *sys.argv[1:]]),
        "niceness": os.nice(0), "cpus": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), "neo4j_driver": package_version("neo4j"),
        "neo4j_rust_ext": package_version("neo4j-rust-ext"), "torch": package_version("torch"),
        "sentence_transformers": package_version("sentence-transformers"),
        "graphmem": package_version("graphmem"), "code": code_digest(),
        "embedder": base.embedder, "embedding_model": base.embedding_model,
        "sizes": args.sizes, "queries": args.queries, "warmup": args.warmup, "k": args.k, "seed": args.seed,
        "modes": {m: {k: [c.value for c in v] if k == "channels" else getattr(v, "value", v) for k, v in kw.items()}
                  or "defaults" for m, kw in MODES.items()},
        "neo4j": "throwaway local" if not args.neo4j_uri else args.neo4j_uri,
        "neo4j_heap": args.heap if not args.neo4j_uri else None,
        "neo4j_pagecache": args.pagecache if not args.neo4j_uri else None,
        "neo4j_jvm_flags": base.neo4j_jvm_flags if not args.neo4j_uri else None, "gc_freeze": base.gc_freeze,
    }
    with tempfile.TemporaryDirectory(prefix="graphmem-search-work-") as work, contextlib.ExitStack() as stack:
        server: LocalNeo4j | None = None
        if args.neo4j_uri:
            settings = base.model_copy(update={"neo4j_uri": args.neo4j_uri})
        else:
            log(f"starting a throwaway Neo4j (heap {args.heap}, page cache {args.pagecache}) ...")
            settings, server = stack.enter_context(throwaway_neo4j(base, heap=args.heap, pagecache=args.pagecache,
                                                                    prefix="graphmem-search-"))
        report = {**header, **asyncio.run(run(args, settings, server, Path(work)))}
    report["goals"] = goals(report)
    report["wall_s"] = round(time.perf_counter() - started, 1)
    report["notes"] = notes(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    graphiti_venv = {str(args.graphiti_python.absolute().parents[1]): "<graphiti-venv>"} if args.graphiti_python else {}
    report = portable(json.loads(json.dumps(report, default=str)), extra=graphiti_venv)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(table(report))
    print(f"\nload average: start {report['loadavg']['start']}, end {report['loadavg']['end']}; "
          f"niceness {report['niceness']}; wall {report['wall_s']} s")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

