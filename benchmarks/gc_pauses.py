"""Python's garbage-collector pauses while a benchmark times something: count, total and spread per generation.

A collection stops the whole process, so one that falls inside a timed search is part of its latency; the search
benchmark reports them beside the timings (``graphmem.heap`` explains the freeze that keeps them short).
"""

from __future__ import annotations

import gc
import time
from collections import defaultdict
from types import TracebackType
from typing import Any

from graphmem.eval.metrics import percentile


class GcPauses:
    """``with GcPauses() as pauses: ...`` then ``pauses.report()``."""

    def __init__(self) -> None:
        self._began = 0.0
        self.pauses: dict[int, list[float]] = defaultdict(list)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.pauses[int(info["generation"])].append((time.perf_counter() - self._began) * 1000.0)

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        gc.callbacks.remove(self._callback)

    def report(self) -> dict[str, Any]:
        """Per generation: collections, total ms, p50 / p95 / max ms."""
        return {f"gen{g}": {"n": len(ms), "total_ms": round(sum(ms), 1), "p50_ms": round(percentile(ms, 50), 2),
                            "p95_ms": round(percentile(ms, 95), 2), "max_ms": round(max(ms), 1)}
                for g, ms in sorted(self.pauses.items()) if ms}
