"""Importers: pure parsing and planning of external data into graphmem's domain types (no database, no embeddings).

An importer reads a source and returns an ``ImportPlan`` (or drafts); writing it is the service's job.
"""

from __future__ import annotations

from graphmem.importers.jsonl import parse_jsonl, read_jsonl
from graphmem.importers.locomo import (
    LocomoObservation,
    LocomoQuestion,
    LocomoSample,
    LocomoSession,
    LocomoTurn,
    load_locomo,
    locomo_namespace,
    malformed_evidence,
    memory_evidence,
    parse_evidence_ids,
    parse_sample,
    parse_session_datetime,
    plan_locomo,
    split_evidence,
    turn_memory_ids,
)
from graphmem.importers.plan import ImportPlan, stable_id

__all__ = [
    "ImportPlan",
    "LocomoObservation",
    "LocomoQuestion",
    "LocomoSample",
    "LocomoSession",
    "LocomoTurn",
    "load_locomo",
    "locomo_namespace",
    "malformed_evidence",
    "memory_evidence",
    "parse_evidence_ids",
    "parse_jsonl",
    "parse_sample",
    "parse_session_datetime",
    "plan_locomo",
    "read_jsonl",
    "split_evidence",
    "stable_id",
    "turn_memory_ids",
]
