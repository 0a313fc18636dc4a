"""The search statement's parameters keep ONE plan-cache key whatever the question (``search_params.VARYING``).

Neo4j keys a cached plan on the statement and, per top-level parameter, its type and, for a string or a list, its
size bucket (0, 1, then the next power of ten: ``ParameterTypeInfo``). ``plan_key`` models that key; a parameter
whose size or nullness follows the question must live in the ``vary`` map, which carries no size hint."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.models import MemoryKind
from graphmem.retrieval.descend import VARYING as DESCEND_VARYING
from graphmem.retrieval.descend import descend_params
from graphmem.retrieval.expansion import ExpansionConfig
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.search_params import VARYING, search_filters, search_params
from graphmem.retrieval.service import RetrievalService, _walk_limits
from graphmem.retrieval.types import SearchOptions

NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)


def bucket(size: int) -> int:
    return size if size <= 1 else 10 ** math.ceil(math.log10(size))


def neo4j_type(value: Any) -> tuple[str, int | None]:
    """A top-level parameter's part of the plan-cache key: its type, and a size bucket for strings and lists."""
    if value is None:
        return ("null", None)
    if isinstance(value, str):
        return ("string", bucket(len(value)))
    if isinstance(value, list | tuple):
        return ("list", bucket(len(value)))
    return (type(value).__name__, None)


def plan_key(params: dict[str, Any]) -> dict[str, tuple[str, int | None]]:
    return {name: neo4j_type(value) for name, value in params.items()}


def params_for(query: str, options: SearchOptions, *, keep: int | None = 12,
               version_keys: list[str] | None = None) -> dict[str, Any]:
    asked = RetrievalService.query_context(query, NOW)
    filters = search_filters(options, NOW)
    return search_params(query, [0.1] * 384, options, filters, asked, FormulaWeights(), ExpansionConfig(),
                         _walk_limits(), keep=keep, version_keys=version_keys)


QUESTIONS = [
    "camping",
    "Where has Melanie camped?",
    "What did Caroline say about the LGBTQ support group she went to last May with her friends, her family, "
    "her mentors and the people from the adoption agency she researched in 2023?",
    "When did Jon go to Paris two weeks before the trip?",
    "卡罗琳上周去了哪里",
]


def test_questions_of_every_shape_share_one_key() -> None:
    options = SearchOptions(namespaces=("ns",))
    keys = [plan_key(params_for(q, options)) for q in QUESTIONS]
    assert all(k == keys[0] for k in keys[1:]), [
        {n: (k[n], keys[0][n]) for n in k if k[n] != keys[0][n]} for k in keys[1:]]


def test_filters_and_re_runs_share_the_key() -> None:
    plain = plan_key(params_for("Where has Melanie camped?", SearchOptions(namespaces=("ns",))))
    filtered = SearchOptions(namespaces=("a", "b", "shared"), kinds=(MemoryKind.EPISODIC, MemoryKind.SEMANTIC),
                             as_of=NOW, created_after=NOW, created_before=NOW, min_trust=0.5)
    assert plan_key(params_for("Where has Melanie camped?", filtered)) == plain
    assert plan_key(params_for("camping", SearchOptions(namespaces=("ns",)), keep=None,
                               version_keys=["v:ns:3", "v:shared:1"])) == plain


def test_what_varies_travels_in_the_map() -> None:
    params = params_for("When did Jon go to Paris last May?", SearchOptions(namespaces=("ns",)))
    assert set(params["vary"]) == set(VARYING)
    assert not set(VARYING) & set(params), "a varying parameter also passed top-level"
    assert params["vary"]["time_from"] is not None
    assert params["vary"]["query_words"]


@pytest.mark.parametrize("query", QUESTIONS)
def test_the_model_of_the_key_tells_sizes_apart(query: str) -> None:
    """The model can fail: the question's words, passed top-level, would split the key by their count."""
    options = SearchOptions(namespaces=("ns",))
    words = {q: plan_key({"w": list(params_for(q, options)["vary"]["query_words"])})["w"] for q in QUESTIONS}
    assert len(set(words.values())) > 1
    assert words[query] == ("list", bucket(len(params_for(query, options)["vary"]["query_words"])))


def test_descents_of_every_shape_share_one_key() -> None:
    """``retrieval/descend``: the leads, the candidates to exclude, the query's entities and the filters vary."""
    plain = SearchOptions(namespaces=("ns",))
    filtered = SearchOptions(namespaces=("a", "b", "shared"), kinds=(MemoryKind.EPISODIC,), as_of=NOW,
                             created_after=NOW, created_before=NOW, min_trust=0.5)
    shapes = [([], [], "camping", plain), (["s1"], ["m"] * 12, "Where has Melanie camped?", plain),
              (["s1", "s2", "s3"], ["m"] * 150, QUESTIONS[2], filtered)]
    keys = [plan_key(descend_params(leads, exclude, [0.1] * 384, search_filters(options, NOW),
                                    RetrievalService.query_context(query, NOW)))
            for leads, exclude, query, options in shapes]
    assert all(k == keys[0] for k in keys[1:]), keys
    assert set(descend_params(["s1"], [], [0.1] * 384, search_filters(plain, NOW),
                              RetrievalService.query_context("camping", NOW))["vary"]) == set(DESCEND_VARYING)
