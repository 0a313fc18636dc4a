"""What the model must answer when it reflects on a task: pydantic models whose field descriptions are the
instructions (they are shown to the model and turned into a grammar by llama.cpp), and the reference checks
that pydantic alone cannot do (ids the model may use are only those it was shown)."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import LLMOutputError
from graphmem.models import RelationType

MAX_FACTS = 8
MAX_RELATIONS = 10
MAX_LESSONS = 3

NOT_FROM_MODEL = ("SUPERSEDES", "DERIVED_FROM", "SIMILAR_TO")
"""Edge types the model is not offered (see plan.MODEL_EDGE_TYPES)."""
FACT_REF = re.compile(r"^F([1-9][0-9]?)$")
REPAIR_ECHO = re.compile(
    r"unknown (memory )?id '|\(use F1\.\.F\d+ or the M ids shown\)|: no turn \d+|an edge from '[^']*' to itself"
    r"|lesson \d+: empty text|refers to things it was not shown|that answer was not valid", re.IGNORECASE)
"""The repair feedback of ``check_references`` and the LLM client: a small model, asked again, sometimes copies it
into its lessons or facts, which must never become memories (``plan.plan_reflection`` drops such items)."""
MEMORY_REF = re.compile(r"^M([1-9][0-9]?)$")


class FactOut(BaseModel):
    model_config = ConfigDict(extra="ignore")

    content: str = Field(min_length=3, max_length=1000, description=(
        "One self-contained fact in one short sentence, with names instead of pronouns, "
        "e.g. 'The user lives in Berlin.' or 'Refunds arrive 5-7 business days after the return is received.'"))
    kind: Literal["semantic", "episodic"] = Field(description=(
        "semantic: a lasting fact, preference, policy or rule; episodic: something that happened in this task"))
    entities: list[str] = Field(default_factory=list, max_length=8, description=(
        "Names of the people, places, products or orders the fact is about."))
    turns: list[int] = Field(default_factory=list, max_length=20, description=(
        "Numbers of the turns the fact comes from (turn T3 -> 3)."))
    replaces: str = Field(default="none", description=(
        "The id (M1, M2, ...) of the existing memory this fact makes outdated, e.g. the old address when the "
        "user moved; \"none\" when it replaces nothing."))
    confidence: float = Field(ge=0.0, le=1.0, description="How sure the log makes the fact, from 0 to 1.")


class RelationOut(BaseModel):
    model_config = ConfigDict(extra="ignore")

    source: str = Field(description="A new fact (F1 is the first of your facts, F2 the second, ...) or an existing "
                                    "memory (M1, M2, ...).")
    type: RelationType = Field(description=(
        "RELATES_TO (associated), CAUSES, PART_OF, IS_A, SUPPORTS (is evidence for), CONTRADICTS, "
        "FOLLOWS (happened after). To replace an outdated memory use the fact's replaces, not an edge."))
    target: str = Field(description="Another new fact (F..) or existing memory (M..).")


class ReflectionOutput(BaseModel):
    """The model's reflection on one task."""

    model_config = ConfigDict(extra="ignore")

    facts: list[FactOut] = Field(max_length=MAX_FACTS, description=(
        "What is worth remembering after this task: user preferences, decisions, facts about people and "
        "things, policies, outcomes. Not small talk, not what is already an existing memory unchanged."))
    relations: list[RelationOut] = Field(default_factory=list, max_length=MAX_RELATIONS, description=(
        "Typed edges between your new facts and the existing memories (or between new facts)."))
    errors: list[str] = Field(default_factory=list, max_length=MAX_LESSONS, description=(
        "Mistakes made in this task that an agent should avoid next time (empty if none)."))
    improvements: list[str] = Field(default_factory=list, max_length=MAX_LESSONS, description=(
        "What an agent should do better next time (empty if nothing)."))
    # Last, so that the facts come out as they did before summaries (a small model's facts moved when it wrote the
    # summary first). No max_length: llama.cpp writes a length bound into the grammar as nested optionals, and 1500
    # of them made its grammar parser fail (and the server stop); the draft cuts a long one (MAX_SUMMARY_CHARS).
    summary: str = Field(default="", description=(
        "The task in two to four sentences for someone who was not there: what was asked or talked about, what "
        "was done or decided, the outcome, the people and things involved, and the date if the log gives one."))
    dropped_relations: int = Field(default=0, ge=0, exclude=True)
    """Set by check_references, never by the model (left out of the schema it is shown)."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        schema = super().model_json_schema(*args, **kwargs)
        schema["properties"].pop("dropped_relations", None)
        return schema


def constrained_schema(*, memory_aliases: list[str], turn_numbers: list[int],
                       min_relations: int = 0) -> dict[str, Any]:
    """ReflectionOutput's JSON schema with the ids narrowed to those shown (enums): servers that turn the
    schema into a grammar (llama.cpp) then cannot produce an unknown id at all. ``min_relations`` makes the
    grammar ask for that many edges (a small model otherwise often links nothing)."""
    schema = ReflectionOutput.model_json_schema()
    schema["required"] = [*[r for r in schema.get("required", []) if r != "summary"], "summary"]
    if min_relations:
        schema["properties"]["relations"]["minItems"] = min_relations
    defs = schema["$defs"]
    refs = [f"F{i}" for i in range(1, MAX_FACTS + 1)] + memory_aliases
    for end in ("source", "target"):
        defs["RelationOut"]["properties"][end]["enum"] = refs
    edge_types = [t.value for t in RelationType if t.value not in NOT_FROM_MODEL]
    defs["RelationOut"]["properties"]["type"] = {"type": "string", "enum": edge_types,
                                                  "description": RelationOut.model_fields["type"].description}
    fact = defs["FactOut"]["properties"]
    fact["replaces"]["enum"] = ["none", *memory_aliases]
    if turn_numbers:
        fact["turns"]["items"] = {"type": "integer", "enum": turn_numbers}
    return schema


def check_references(output: ReflectionOutput, *, memory_aliases: set[str], turn_numbers: set[int],
                     last_try: bool = False) -> ReflectionOutput:
    """Every id the model used must be one it was shown. Raises LLMOutputError listing the problems (the
    client's repair retry shows them to the model). On the last try, relations that point at a fact the model
    did not write (F5 of four facts) or at themselves, and blank lessons, are dropped instead (relations counted in
    ``dropped_relations``): they are the model's most common slips, and the facts stay good. Unknown memory ids
    and turns still fail.
    """
    problems: list[str] = []
    n = len(output.facts)

    def ref_ok(ref: str) -> bool:
        if (m := FACT_REF.match(ref)) is not None:
            return int(m.group(1)) <= n
        return ref in memory_aliases

    for i, fact in enumerate(output.facts, start=1):
        if fact.replaces != "none" and fact.replaces not in memory_aliases:
            problems.append(f"facts[F{i}].replaces: unknown memory id {fact.replaces!r}")
        problems += [f"facts[F{i}].turns: no turn {t}" for t in fact.turns if t not in turn_numbers]
    kept: list[RelationOut] = []
    edge_problems = [f"lesson {k}: empty text"
                     for k, text in enumerate([*output.errors, *output.improvements]) if not text.strip()]
    for j, rel in enumerate(output.relations):
        bad = [end for end in (rel.source, rel.target) if not ref_ok(end)]
        if bad:
            edge_problems += [f"relations[{j}]: unknown id {end!r} (use F1..F{n} or the M ids shown)" for end in bad]
        elif rel.source == rel.target:
            edge_problems.append(f"relations[{j}]: an edge from {rel.source!r} to itself")
        else:
            kept.append(rel)
    if edge_problems and last_try and not problems:
        return output.model_copy(update={
            "relations": kept, "dropped_relations": len(output.relations) - len(kept),
            "errors": [t for t in output.errors if t.strip()],
            "improvements": [t for t in output.improvements if t.strip()]})
    problems += edge_problems
    if problems:
        raise LLMOutputError("the reflection refers to things it was not shown: " + "; ".join(problems[:8]))
    return output
