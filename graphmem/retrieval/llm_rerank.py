"""Listwise LLM reranking: one call, JSON out, cached, inside a time budget."""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from graphmem.errors import LLMOutputError
from graphmem.llm import LLMClient

MAX_PASSAGE_CHARS = 300


class Reranker(Protocol):
    async def rank(self, query: str, passages: Sequence[tuple[str, str]]) -> list[tuple[str, float]]: ...


class Judgement(BaseModel):
    n: int = Field(description="The number of the passage, as given in the list.")
    relevance: float = Field(ge=0.0, le=1.0, description="How well the passage helps answer the query: "
                                                           "1 = answers it, 0 = unrelated.")


class Ranking(BaseModel):
    judgements: list[Judgement] = Field(description="One judgement for every passage, most relevant first.")


SYSTEM = ("You rank memories of an AI agent by how useful each is for answering a query. "
          "Reply with JSON only.")


def build_prompt(query: str, passages: Sequence[tuple[str, str]]) -> str:
    lines = [f"Query: {query}", "", "Passages:"]
    lines += [f"[{i}] {' '.join(text.split())[:MAX_PASSAGE_CHARS]}" for i, (_, text) in enumerate(passages, 1)]
    lines += ["", 'Return {"judgements": [{"n": <passage number>, "relevance": <0..1>}, ...]} covering every '
                  "passage, most relevant first."]
    return "\n".join(lines)


def to_scores(ranking: Ranking, passages: Sequence[tuple[str, str]]) -> list[tuple[str, float]]:
    """Map numbered judgements back to ids; unknown numbers are an error, missing passages score 0."""
    scores: dict[str, float] = {}
    for j in ranking.judgements:
        if not 1 <= j.n <= len(passages):
            raise LLMOutputError(f"the ranking names passage {j.n}, but there are {len(passages)}")
        scores.setdefault(passages[j.n - 1][0], j.relevance)
    if not scores:
        raise LLMOutputError("the ranking judged no passage")
    return [(pid, scores.get(pid, 0.0)) for pid, _ in passages]


class LLMReranker:
    def __init__(self, client: LLMClient, *, timeout_s: float, cache_size: int = 512) -> None:
        self.client = client
        self.timeout_s = timeout_s
        self._cache: OrderedDict[tuple[tuple[str, ...], bytes], list[tuple[str, float]]] = OrderedDict()
        """Rankings by the passage ids and the hash of the prompt: the query and the passages' texts as the model
        reads them, so a memory whose content was updated is judged again."""
        self.cache_size = cache_size

    async def rank(self, query: str, passages: Sequence[tuple[str, str]]) -> list[tuple[str, float]]:
        prompt = build_prompt(query, passages)
        key = (tuple(pid for pid, _ in passages), hashlib.sha256(prompt.encode()).digest())
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        ranking = await asyncio.wait_for(
            self.client.complete_json(SYSTEM, prompt, Ranking, timeout=self.timeout_s,
                                      max_tokens=40 + 24 * len(passages), repair=False),
            timeout=self.timeout_s,
        )
        scores = to_scores(ranking, passages)
        self._cache[key] = scores
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return scores
