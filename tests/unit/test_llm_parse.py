"""Tolerant JSON extraction and strict validation of LLM output (the same first JSON as a rescan from every
bracket, in linear time), and the LLM reranker's mapping."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from graphmem.errors import LLMOutputError
from graphmem.llm.parse import _FENCE, _TRAILING_COMMA, extract_json, parse_output
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


def _first_json_by_rescanning(text: str) -> object:
    """The scan extract_json did before it was one pass (a scan to the end per opening bracket): the oracle."""
    for chunk in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        for start, opener in ((i, c) for i, c in enumerate(chunk) if c in "{["):
            closer, depth, in_string, escaped, end = "}" if opener == "{" else "]", 0, False, False, None
            for i in range(start, len(chunk)):
                ch = chunk[i]
                if in_string:
                    escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
                elif ch == '"':
                    in_string = True
                elif ch in (opener, closer):
                    depth += 1 if ch == opener else -1
                    if depth == 0:
                        end = i
                        break
            if end is None:
                continue
            for attempt in (chunk[start:end + 1], _TRAILING_COMMA.sub(r"\1", chunk[start:end + 1])):
                try:
                    return json.loads(attempt)
                except json.JSONDecodeError:
                    continue
            break
    return "no JSON"


def _extracted(text: str) -> object:
    try:
        return extract_json(text)
    except LLMOutputError:
        return "no JSON"


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet='{}[]"\\ ,:1a`json\n', max_size=40))
def test_one_pass_finds_what_a_rescan_from_every_bracket_found(text: str) -> None:
    assert _extracted(text) == _first_json_by_rescanning(text)


@pytest.mark.parametrize("text", ['{"a": "{x}" {"b": [1, "]"]}', 'x "{" [1, "\\"]", {"c": 2}] y', '{ "[1]"',
                                  '{"a": "\\\\"} ]', '```json\n{"a": [1,]}\n``` and {"b": 2}', '[{] {"a": 1}'])
def test_brackets_inside_and_around_strings_match_the_rescan(text: str) -> None:
    assert _extracted(text) == _first_json_by_rescanning(text)


@pytest.mark.parametrize("text", ["{" * 20_000, "[" * 20_000, '{"' * 20_000, '{"\\' * 20_000, "{[" * 20_000,
                                  "{" * 20_000 + '{"name": "a", "n": 1}', "```" + "{" * 20_000 + "```"])
def test_a_long_answer_of_unbalanced_brackets_takes_linear_time(text: str) -> None:
    started = time.perf_counter()
    with contextlib.suppress(LLMOutputError):
        extract_json(text)
    assert time.perf_counter() - started < 1.0, "extract_json rescans the text per opening bracket"
