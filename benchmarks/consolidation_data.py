"""The data of benchmarks/consolidation.py: planted paraphrases of LoCoMo observations, and the clustering's scores.

A seeded sample of each conversation's observations gets one paraphrase each, made by rules (no model), derived
from the same turns as the original (so it keeps ``DERIVED_FROM``) and keeping every key detail the write path's
``same_details`` looks at (a paraphrase that would not pass is not planted): a lead-in phrase ("It was mentioned
that ...") and one or two word substitutions from a fixed table. Deterministic: the same seed and data give the same
paraphrases, and their ids are stable.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphmem.importers.plan import ImportPlan, stable_id
from graphmem.models import MemoryDraft, MemoryKind
from graphmem.service.dedupe import same_details

SOURCE = "locomo-paraphrase"
LEADS = ("It was mentioned that ", "From the conversation: ", "Noted: ", "As shared in the chat, ",
         "Worth remembering: ")
SWAPS = {
    "enjoys": "likes", "likes": "enjoys", "loves": "really likes", "values": "cherishes", "believes": "thinks",
    "thinks": "believes", "finds": "considers", "wants": "would like", "attended": "went to", "made": "created",
    "created": "made", "took": "brought", "suggests": "proposes", "appreciates": "is grateful for",
    "particularly": "especially", "especially": "particularly", "important": "significant", "special": "meaningful",
    "kids": "children", "children": "kids", "happy": "glad", "started": "began", "began": "started",
    "helps": "assists", "inspired": "motivated", "inspiring": "motivating", "passionate": "keen",
    "shared": "told", "mentioned": "said", "expressed": "voiced", "plans": "intends", "planning": "intending",
    "excited": "thrilled", "great": "wonderful", "big": "large", "supportive": "encouraging",
    "feels": "is feeling", "friends": "pals", "also": "as well", "received": "got", "bought": "purchased",
    "visited": "went to", "learning": "studying", "discussed": "talked about", "painting": "artwork",
}
_WORD = re.compile(r"\b[a-z]+\b")


def paraphrase(text: str, rng: random.Random) -> str | None:
    """A paraphrase of ``text`` (a lead-in and one or two substitutions), or None when the rules find nothing to
    change or the result would not keep the key details."""
    words = [m for m in _WORD.finditer(text) if m.group(0) in SWAPS]
    chosen = sorted(rng.sample(words, min(len(words), rng.choice((1, 2)))), key=lambda m: m.start())
    out, last = [], 0
    for m in chosen:
        out += [text[last:m.start()], SWAPS[m.group(0)]]
        last = m.end()
    body = "".join(out) + text[last:]
    new = rng.choice(LEADS) + body
    if new == text or not same_details(text, new):
        return None
    return new


@dataclass(frozen=True)
class Planted:
    plan: ImportPlan
    pairs: dict[str, str]
    """paraphrase id -> the original's id"""
    skipped: int
    """Sampled observations the rules could not paraphrase (nothing to change, or a detail would change)."""


def plant(plan: ImportPlan, *, fraction: float, seed: int) -> Planted:
    """``plan`` with paraphrases of a seeded ``fraction`` of its observations appended (after every original, as a
    second import of part of the data would write them)."""
    observations = [m for m in plan.memories if m.kind is MemoryKind.SEMANTIC]
    rng = random.Random(f"{seed}:{plan.namespace}")
    sample = rng.sample(observations, round(fraction * len(observations)))
    extra: list[MemoryDraft] = []
    pairs: dict[str, str] = {}
    skipped = 0
    for original in sorted(sample, key=lambda m: m.id or ""):
        assert original.id is not None
        text = paraphrase(original.content, random.Random(f"{seed}:{original.id}"))
        if text is None:
            skipped += 1
            continue
        pid = stable_id(plan.namespace, "paraphrase", original.id)
        extra.append(original.model_copy(update={"id": pid, "content": text, "source": SOURCE}))
        pairs[pid] = original.id
    return Planted(dataclasses.replace(plan, memories=(*plan.memories, *extra)), pairs, skipped)


# --- scoring the clusters ----------------------------------------------------------------------------------------


def pairs_of(clusters: Iterable[Sequence[str]]) -> set[frozenset[str]]:
    return {frozenset((a, b)) for ids in clusters for i, a in enumerate(ids) for b in ids[i + 1:]}


@dataclass(frozen=True)
class Score:
    found_pairs: int
    planted_pairs: int
    hits: int
    clusters: int
    clusters_with_planted: int

    @property
    def precision(self) -> float:
        return self.hits / self.found_pairs if self.found_pairs else 1.0

    @property
    def recall(self) -> float:
        return self.hits / self.planted_pairs if self.planted_pairs else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: Score) -> Score:
        return Score(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other), strict=True)))

    def as_dict(self) -> dict[str, float | int]:
        return {**dataclasses.asdict(self), "precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "f1": round(self.f1, 4)}


ZERO = Score(0, 0, 0, 0, 0)


def score(clusters: Sequence[Sequence[str]], planted: set[frozenset[str]]) -> Score:
    """Pairs inside the found clusters against the planted (original, paraphrase) pairs that are both stored."""
    found = pairs_of(clusters)
    return Score(found_pairs=len(found), planted_pairs=len(planted), hits=len(found & planted),
                 clusters=len(clusters), clusters_with_planted=sum(1 for c in clusters if pairs_of([c]) & planted))




# --- choosing eps: leave one conversation out ---------------------------------------------------------------------


def best_eps(scores: dict[float, Score]) -> float:
    """The eps with the highest pair F1 (ties: the smaller eps, which merges less)."""
    return max(sorted(scores), key=lambda eps: (round(scores[eps].f1, 6), -eps))


def leave_one_out(by_conv: dict[str, dict[float, Score]]) -> list[dict[str, object]]:
    """One fold per conversation: eps chosen on the others' summed scores, then scored on the held-out one."""
    folds: list[dict[str, object]] = []
    for held in by_conv:
        grid = next(iter(by_conv.values())).keys()
        train = {eps: sum((by_conv[c][eps] for c in by_conv if c != held), ZERO) for eps in grid}
        eps = best_eps(train)
        folds.append({"held_out": held, "eps": eps, "train": train[eps].as_dict(),
                      "held_out_score": by_conv[held][eps].as_dict()})
    return folds


__all__ = ["SOURCE", "ZERO", "Planted", "Score", "best_eps", "leave_one_out", "paraphrase", "plant", "score"]
