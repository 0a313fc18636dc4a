"""Fusing the seed channels into one ranking (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graphmem.retrieval.types import Channel, Fusion

RRF_K = 60
"""The usual reciprocal-rank-fusion constant (Cormack et al. 2009)."""


def rrf(lists: Mapping[Channel, Sequence[str]], weights: Mapping[Channel, float], k: int = RRF_K) -> dict[str, float]:
    """Weighted reciprocal rank fusion: sum over channels of weight / (k + rank)."""
    fused: dict[str, float] = {}
    for channel, ids in lists.items():
        w = weights.get(channel, 1.0)
        for rank, item in enumerate(ids, start=1):
            fused[item] = fused.get(item, 0.0) + w / (k + rank)
    return fused


def weighted(scores: Mapping[Channel, Mapping[str, float]], weights: Mapping[Channel, float]) -> dict[str, float]:
    """Weighted sum of min-max normalised channel scores (a channel with one score counts it as 1)."""
    fused: dict[str, float] = {}
    for channel, by_id in scores.items():
        if not by_id:
            continue
        lo, hi = min(by_id.values()), max(by_id.values())
        w = weights.get(channel, 1.0)
        for item, score in by_id.items():
            norm = 1.0 if hi == lo else (score - lo) / (hi - lo)
            fused[item] = fused.get(item, 0.0) + w * norm
    return fused


def fuse(method: Fusion, scores: Mapping[Channel, Mapping[str, float]],
         weights: Mapping[Channel, float]) -> dict[str, float]:
    """Fused scores scaled so the best is 1.0 (the activation a seed starts the expansion with)."""
    if method is Fusion.RRF:
        ranked = {c: sorted(s, key=lambda i: -s[i]) for c, s in scores.items()}
        fused = rrf(ranked, weights)
    else:
        fused = weighted(scores, weights)
    top = max(fused.values(), default=0.0)
    return {i: v / top for i, v in fused.items()} if top > 0 else fused
