"""Consolidation: memories that say the same thing are merged into one (the originals archived, never deleted)."""

from graphmem.consolidation.report import ClusterReport, ConsolidationReport, Outcome
from graphmem.consolidation.service import Consolidator

__all__ = ["ClusterReport", "ConsolidationReport", "Consolidator", "Outcome"]
