"""Tolerant JSON extraction and strict validation of LLM output, and the LLM reranker's mapping."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pydantic import BaseModel

from graphmem.errors import LLMOutputError
from graphmem.llm.parse import extract_json, parse_output
from graphmem.retrieval.llm_rerank import Judgement, LLMReranker, Ranking, build_prompt, to_scores


class Out(BaseModel):
    name: str
    n: int


@pytest.mark.parametrize("text", [
    '{"name": "a", "n": 1}',
    '```json\n{"name": "a", "n": 1}\n```',
    'Sure! Here is the JSON:\n{"name": "a", "n": 1}\nHope this helps.',
    '{"name": "a", "n": 1,}',
])
def test_tolerant_extraction(text: str) -> None:
    assert parse_output(text, Out) == Out(name="a", n=1)


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ('{"name": "a", "n": ', "no JSON"),
    ("I cannot help with that.", "no JSON"),
    ('{"name": "a", "n": "lots"}', "does not fit Out"),
    ('{"name": "a"}', "n: Field required"),
])
def test_bad_outputs_are_typed_errors(text: str, message: str) -> None:
    with pytest.raises(LLMOutputError, match=message):
        parse_output(text, Out)


def test_braces_inside_strings_do_not_confuse_the_scan() -> None:
    assert parse_output('x {"name": "a {with} \\"braces}", "n": 1} y', Out).name == 'a {with} "braces}'


def test_extract_array() -> None:
    assert extract_json("result: [1, 2, 3,]") == [1, 2, 3]


def test_rerank_mapping() -> None:
    passages = [("m1", "a"), ("m2", "b"), ("m3", "c")]
    ranking = Ranking(judgements=[Judgement(n=2, relevance=0.9), Judgement(n=1, relevance=0.2)])
    assert to_scores(ranking, passages) == [("m1", 0.2), ("m2", 0.9), ("m3", 0.0)]
    with pytest.raises(LLMOutputError, match="passage 7"):
        to_scores(Ranking(judgements=[Judgement(n=7, relevance=1.0)]), passages)
    assert "[2] b" in build_prompt("q", passages)


class FakeClient:
    """Stands in for the LLM at the I/O edge: returns canned rankings and counts calls."""

    def __init__(self, ranking: Ranking) -> None:
        self.ranking = ranking
        self.calls = 0

    async def complete_json(self, system: str, user: str, output: type[Ranking], **kw: object) -> Ranking:
        self.calls += 1
        return self.ranking


async def test_reranker_caches() -> None:
    client = FakeClient(Ranking(judgements=[Judgement(n=1, relevance=1.0)]))
    reranker = LLMReranker(client, timeout_s=1.0)  # type: ignore[arg-type]
    passages: Sequence[tuple[str, str]] = [("m1", "x"), ("m2", "y")]
    first = await reranker.rank("q", passages)
    assert await reranker.rank("q", passages) == first
    assert client.calls == 1
