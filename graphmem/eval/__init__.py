"""Evaluation harnesses: retrieval quality and latency on benchmark data (``metrics`` is pure)."""

from __future__ import annotations

from graphmem.eval.locomo import DEFAULT_MODES, MODES, evaluate
from graphmem.eval.metrics import percentile, recall_at_k, reciprocal_rank

__all__ = ["DEFAULT_MODES", "MODES", "evaluate", "percentile", "recall_at_k", "reciprocal_rank"]
