"""The Graphiti import plan (pure): namespaces, the mapping of episodes, facts and entities, supersession."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.errors import ValidationError
from graphmem.graph.entities import normalise_name
from graphmem.importers.graphiti import (
    GraphitiEntity,
    GraphitiEpisode,
    GraphitiFact,
    GraphitiGroup,
    graphiti_namespace,
    namespaces_for,
    plan_graphiti,
    replacement_of,
)
from graphmem.importers.graphiti_run import GraphitiReport
from graphmem.importers.runner import ImportReport
from graphmem.models import MemoryKind

T1, T2 = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC)


def group() -> GraphitiGroup:
    ents = (GraphitiEntity("a", "Alice", "Alice is an engineer.", ("Person",)), GraphitiEntity("c", "Acme Corp"),
            GraphitiEntity("g", "Globex"), GraphitiEntity("z", "Zed"))
    eps = (GraphitiEpisode("e2", "two", "Alice moved to Globex.", "message", "chat", T2, None, ("a", "g")),
           GraphitiEpisode("e1", "one", "Alice joined Acme Corp.", "message", "chat", T1, None, ("a", "c")))
    facts = (GraphitiFact("f1", "WORKS_AT", "Alice works at Acme Corp.", "a", "c", ("e1",), T1, T2, T2),
             GraphitiFact("f2", "WORKS_AT", "Alice works at Globex.", "a", "g", ("e2",), T2),
             GraphitiFact("f3", "KNOWS", "Alice knows a ghost.", "a", "missing", ()))
    return GraphitiGroup("Team A", eps, ents, facts)


def test_namespaces_are_sanitised_and_collisions_refused() -> None:
    assert graphiti_namespace("Team A") == "graphiti-team-a"
    assert graphiti_namespace("") == "graphiti-default"
    assert graphiti_namespace("x", prefix="") == "x"
    with pytest.raises(ValidationError):
        namespaces_for(["Team A", "team-a"])


def test_plan_maps_episodes_facts_summaries_and_supersession() -> None:
    gp = plan_graphiti(group(), "ns")
    plan = gp.plan
    assert [t.content for t in plan.turns] == ["Alice joined Acme Corp.", "Alice moved to Globex."]  # time order
    assert [t.seq for t in plan.turns] == [0, 1]
    kinds = [m.kind for m in plan.memories]
    assert kinds.count(MemoryKind.EPISODIC) == 2
    facts = [m for m in plan.memories if m.source == "graphiti:fact"]
    assert [f.content for f in facts] == ["Alice works at Acme Corp.", "Alice works at Globex."]
    old = facts[0]
    assert old.valid_from == T1
    assert old.valid_until == T2
    assert old.entities == ("Alice", "Acme Corp")  # as written: the write path keys them as the entity rows
    assert [normalise_name(e) for e in old.entities] == ["alice", "acme corp"]
    episode_of_e1 = next(m.id for m in plan.memories if m.metadata.get("graphiti_uuid") == "e1")
    assert old.derived_from == (episode_of_e1,)
    assert gp.skipped["facts_unknown_entity"] == 1
    assert [s.old for s in gp.supersessions] == [old.id]
    assert gp.supersessions[0].new == facts[1].id
    summaries = [m for m in plan.memories if m.source == "graphiti:entity-summary"]
    assert [m.entities for m in summaries] == [("Alice",)]
    assert dict(gp.entity_rows) == {"alice": "person", "acme corp": None, "globex": None, "zed": None}
    named = {normalise_name(e) for m in plan.memories for e in m.entities}
    assert named <= set(dict(gp.entity_rows))  # every ABOUT edge the write path keys lands on an imported entity
    assert plan_graphiti(group(), "ns") == gp  # deterministic ids


def test_replacement_needs_exactly_one_fit() -> None:
    old = GraphitiFact("o", "R", "x", "a", "b", (), T1, T2)
    one = GraphitiFact("n", "R", "y", "a", "c", (), T2)
    other = GraphitiFact("m", "R", "z", "b", "d", (), T2)
    assert replacement_of(old, [old, one]) == one
    assert replacement_of(old, [old, one, other]) is None
    assert replacement_of(GraphitiFact("p", "R", "x", "a", "b", (), T1, None, T2), [one]) is None


def test_a_fact_invalidated_before_it_became_valid_imports_as_ended() -> None:
    base = group()
    odd = GraphitiFact("f4", "WORKS_AT", "Alice works at Zed.", "a", "z", ("e2",), T2, T1)  # invalid_at < valid_at
    gp = plan_graphiti(GraphitiGroup(base.group_id, base.episodes, base.entities, (*base.facts, odd)), "ns")
    (fact,) = [m for m in gp.plan.memories if m.metadata.get("graphiti_uuid") == "f4"]
    assert (fact.valid_from, fact.valid_until) == (T2, None)  # a draft's range may not be empty
    assert fact.metadata["graphiti_invalid_at"] == T1.isoformat()  # what graphiti said is kept
    assert fact.id in {s.old for s in gp.supersessions}  # and it is ended all the same


def test_a_citation_of_an_episode_the_group_lacks_is_counted_and_reported() -> None:
    base = group()
    ghost = GraphitiFact("f5", "KNOWS", "Alice knows Globex well.", "a", "g", ("e1", "gone", "gone", "also-gone"), T1)
    gp = plan_graphiti(GraphitiGroup(base.group_id, base.episodes, base.entities, (*base.facts, ghost)), "ns")
    (fact,) = [m for m in gp.plan.memories if m.metadata.get("graphiti_uuid") == "f5"]
    assert len(fact.derived_from) == 1  # e1's memory: the others name no episode of the group
    assert gp.skipped["citations_unknown_episode"] == 2
    assert plan_graphiti(base, "ns").skipped["citations_unknown_episode"] == 0
    out = {k: 0 for k in ("episodes", "facts", "summaries", "superseded", "supersedes", "quarantined", "entities")}
    report = GraphitiReport(gp.group_id, "ns", dict(gp.source_counts), dict(gp.skipped), ImportReport("ns"), out)
    assert "citations_unknown_episode 2" in report.line()
