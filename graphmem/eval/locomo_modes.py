"""The search modes of the LoCoMo evaluation (one ``Mode`` per search configuration under test), and the checks of
the modes and cut-offs a run asks for."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from graphmem.errors import ValidationError
from graphmem.retrieval.types import Channel, RerankMode, SearchOptions, SummaryMode

DEFAULT_CHANNELS: tuple[Channel, ...] = SearchOptions.model_fields["channels"].default
"""The seed channels a search uses by default (vector and full text): the modes measure the defaults."""
ALL_CHANNELS = tuple(Channel)


@dataclass(frozen=True)
class Mode:
    """One search configuration under test."""

    channels: tuple[Channel, ...]
    hops: int
    rerank: RerankMode
    summaries: SummaryMode = SummaryMode.LEAD

    def options(self, namespace: str, k: int) -> SearchOptions:
        return SearchOptions(namespaces=(namespace,), k=k, channels=self.channels, hops=self.hops,
                             rerank=self.rerank, summaries=self.summaries)


MODES: dict[str, Mode] = {
    "vector": Mode((Channel.VECTOR,), 0, RerankMode.NONE),
    "fused": Mode(DEFAULT_CHANNELS, 0, RerankMode.NONE),
    "expanded": Mode(DEFAULT_CHANNELS, 1, RerankMode.NONE),
    "formula": Mode(DEFAULT_CHANNELS, 1, RerankMode.FORMULA),
    "llm": Mode(DEFAULT_CHANNELS, 1, RerankMode.LLM),
    # not run by default: the formula search with the recency and popularity seeds too (--modes all-channels)
    "all-channels": Mode(ALL_CHANNELS, 1, RerankMode.FORMULA),
    # nor this: the formula search without the descent from the task summaries (they are not returned either)
    "no-descent": Mode(DEFAULT_CHANNELS, 1, RerankMode.FORMULA, SummaryMode.HIDE),
}
DEFAULT_MODES = ("vector", "fused", "expanded", "formula", "llm")


def check_modes(modes: Iterable[str]) -> list[str]:
    chosen = list(dict.fromkeys(modes))
    unknown = [m for m in chosen if m not in MODES]
    if unknown or not chosen:
        raise ValidationError(f"unknown or no modes {unknown}; choose from {list(MODES)}", field="modes")
    return chosen


def split_modes(modes: Iterable[str], *, llm_configured: bool) -> tuple[list[str], dict[str, str]]:
    """``(modes to run, {skipped mode: why})``: the ``llm`` mode needs an LLM."""
    chosen = check_modes(modes)
    skipped = {m: "no LLM configured" for m in chosen if MODES[m].rerank is RerankMode.LLM and not llm_configured}
    return [m for m in chosen if m not in skipped], skipped


def check_ks(ks: Iterable[int]) -> list[int]:
    out = sorted(set(ks))
    if not out or out[0] < 1 or out[-1] > 200:
        raise ValidationError(f"ks must be within 1..200, got {list(ks)}", field="ks")
    return out
