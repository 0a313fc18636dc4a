"""Retrieval: seeds -> fusion -> relation expansion -> rerank."""

from graphmem.retrieval.service import RetrievalService
from graphmem.retrieval.types import (
    Channel,
    Fusion,
    PathStep,
    RerankMode,
    ScoreParts,
    SearchOptions,
    SearchResponse,
    SearchResult,
)

__all__ = ["Channel", "Fusion", "PathStep", "RerankMode", "RetrievalService", "ScoreParts", "SearchOptions",
           "SearchResponse", "SearchResult"]
