"""Two-level retrieval: from the task summaries a search found down to the turns and facts of their tasks.

A summary says what a whole session was about, so it matches a question whose evidence is spread over the session
(or over several) better than any one turn does; a turn says what was said. The ``LEAD_SUMMARIES`` summaries among
the candidates nearest to the query each bring the ``PER_SUMMARY`` memories of their task nearest to the
query (``cypher/retrieval/descend``), which join the candidates with the path summary -FROM_TASK-> task
<-FROM_TASK- memory. The ranking then weighs them as any candidate: their own cosine, and the context stage's
task term, which a summary among the candidates raises for the memories of its task. The two numbers are set, not
fitted: a handful of summaries, a handful of memories each, as the expansion's other bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.retrieval.candidates import Candidate, cosine, graph_fields, memory_data
from graphmem.retrieval.ranking import QueryContext
from graphmem.retrieval.types import PathStep, SearchOptions, SummaryMode
from graphmem.retrieval.vary import FILTERS, in_map
from graphmem.store import Store

LEAD_SUMMARIES = 3
"""Summaries that lead down (the nearest to the query of those the search found)."""
PER_SUMMARY = 3
"""Memories of its task each one brings (the nearest to the query that are no candidates yet)."""
VARYING = ("sources", "exclude", "query_entities", *FILTERS)
"""The parameters whose size or nullness changes from one search to the next, passed in ONE map, ``$vary``: as for
the search statement (``search_params.VARYING``), a new size bucket of a top-level list (the candidates to exclude,
20 to 100; the summaries that lead; the query's entities) made Neo4j plan this statement again, 0.3-0.5 s on this
machine."""


def descended(rows: list[dict[str, Any]], known: Mapping[str, Candidate]) -> dict[str, Candidate]:
    """The ``retrieval/descend`` rows as candidates (those not ``known`` already), each with the path from the
    summary that brought it."""
    out: dict[str, Candidate] = {}
    for row in rows:
        data = memory_data(row["memory"])
        mid, via = data["id"], row["via"]
        if mid in known or mid in out:
            continue
        fields = graph_fields(row)
        task = row.get("via_task") or fields["task"] or ""  # the task it came down through: a memory of two tasks
        lead = known.get(via)
        out[mid] = Candidate(
            data=data, cosine=cosine(row["score"]),
            path=(PathStep(source_id=via, target_id=task, type="FROM_TASK", weight=1.0),
                  PathStep(source_id=mid, target_id=task, type="FROM_TASK", weight=1.0)),
            seed_id=via, seed_cosine=lead.cosine if lead is not None else None, descended=True, **fields)
    return out


def descend_params(leads: list[str], exclude: list[str], qvec: list[float], filters: dict[str, Any],
                   asked: QueryContext) -> dict[str, Any]:
    """The ``retrieval/descend`` parameters: the summaries that lead, the ids that are candidates already, the query
    vector, the query's entities and the common filters; those in ``VARYING`` in the map ``vary``."""
    return in_map(VARYING, sources=leads, summaries=LEAD_SUMMARIES, per_summary=PER_SUMMARY, exclude=exclude,
                  embedding=qvec, query_entities=list(asked.entities), **filters)


async def descend(store: Store, candidates: dict[str, Candidate], options: SearchOptions, qvec: list[float],
                  filters: dict[str, Any], asked: QueryContext) -> dict[str, Candidate]:
    """``candidates`` and what the summaries among them lead down to (unchanged with ``SummaryMode.HIDE``, and
    without a statement when no candidate is a summary)."""
    leads = [i for i, c in candidates.items() if c.summary]
    if options.summaries is SummaryMode.HIDE or not leads:
        return candidates
    (row,) = await store.read("retrieval/descend", **descend_params(leads, list(candidates), qvec, filters, asked))
    found = descended(row["candidates"], candidates)
    return {**candidates, **found} if found else candidates


__all__ = ["LEAD_SUMMARIES", "PER_SUMMARY", "VARYING", "descend", "descend_params", "descended"]
