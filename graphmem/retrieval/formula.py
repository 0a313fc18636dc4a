"""The formula reranker (pure): similarity, exponential time decay, log access frequency, confidence."""

from __future__ import annotations

import math
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class FormulaWeights(BaseModel):
    model_config = ConfigDict(frozen=True)

    similarity: float = Field(default=0.6, ge=0)
    recency: float = Field(default=0.2, ge=0)
    frequency: float = Field(default=0.1, ge=0)
    confidence: float = Field(default=0.1, ge=0)
    half_life_days: float = Field(default=30.0, gt=0)
    """Recency halves every this many days (decay rate ln 2 / half life)."""
    frequency_cap: int = Field(default=100, ge=1)
    """Access counts at or above this score 1.0 on the log scale."""


def recency(created: datetime, now: datetime, half_life_days: float) -> float:
    age_days = max((now - created).total_seconds(), 0.0) / 86_400
    return math.exp(-math.log(2) * age_days / half_life_days)


def frequency(access_count: int, cap: int) -> float:
    return min(math.log1p(max(access_count, 0)) / math.log1p(cap), 1.0)


def formula_score(similarity: float, created: datetime, access_count: int, confidence: float, now: datetime,
                  w: FormulaWeights) -> tuple[float, float, float]:
    """(score, recency part, frequency part); similarity and confidence enter as they are."""
    rec = recency(created, now, w.half_life_days)
    freq = frequency(access_count, w.frequency_cap)
    total = w.similarity * similarity + w.recency * rec + w.frequency * freq + w.confidence * confidence
    return total, rec, freq
