"""Python's garbage collector after start-up: what a long-running process loaded stays out of its collections.

By the time the service is ready it holds about 630,000 objects that live as long as the process: torch,
transformers and the tokenizer, the embedding model, the Neo4j driver, pydantic's models, the GraphQL schema.
CPython's cyclic collector walks every one of them in each full (generation 2) collection: about 0.3 s of a
stopped process on these 2 cores. In the 100k search benchmark one fell among the 800 timed searches (about 100 s
of searching) and took 540 ms; with the freeze there was none, and the younger collections were as before
(``benchmarks/README.md``, "Python's collector"). It is a tail (max) fix: the p95 does not move. What a process
makes after the freeze (results, caches) still gets full collections, over less: in the benchmark's full run
(200 questions, eight modes with a result cache each) 4-6 of 120-210 ms.

:func:`settle` collects once, then moves everything that survived into the permanent generation
(:func:`gc.freeze`), which later collections skip. Objects created afterwards (caches, results, connections) are
collected as before; garbage among the frozen objects would not be, which is why the collection comes first and
why this runs once, after start-up, not per request. ``GRAPHMEM_GC_FREEZE=false`` turns it off.
"""

from __future__ import annotations

import gc
import logging
import time
from dataclasses import dataclass

log = logging.getLogger("graphmem.heap")


@dataclass(frozen=True)
class Settled:
    """What :func:`settle` did."""

    frozen: int
    """Objects now in the permanent generation (all frozen so far, by this call or earlier ones)."""
    collected: int
    """Unreachable objects the collection before the freeze found."""
    seconds: float


def settle(enabled: bool = True) -> Settled | None:
    """Collect, then freeze what survived; ``None`` (nothing done) when ``enabled`` is false. Safe to call again:
    a second call freezes only what is new since the first."""
    if not enabled:
        return None
    started = time.perf_counter()
    collected = gc.collect()
    gc.freeze()
    done = Settled(gc.get_freeze_count(), collected, round(time.perf_counter() - started, 3))
    log.info("heap settled", extra={"frozen": done.frozen, "collected": done.collected, "seconds": done.seconds})
    return done
