"""The LLM rerank cache (retrieval/llm_rerank): a ranking is reused for the same query and passages, and asked
again when a passage's content changed (an updated memory keeps its id). The real LLMClient runs against an
httpx MockTransport."""

from __future__ import annotations

import json
from typing import Any

import httpx

from graphmem.config import Settings
from graphmem.llm import LLMClient
from graphmem.retrieval.llm_rerank import LLMReranker


class Endpoint:
    """Answers every chat completion with the ranking 'the last passage first'; records the prompts."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        prompt = json.loads(request.content)["messages"][-1]["content"]
        self.prompts.append(prompt)
        n = prompt.count("\n[")
        ranking = {"judgements": [{"n": i, "relevance": round(i / n, 3)} for i in range(n, 0, -1)]}
        return httpx.Response(200, json=_completion(json.dumps(ranking)))


def _completion(text: str) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}


def _reranker(endpoint: Endpoint) -> LLMReranker:
    settings = Settings(llm_base_url="http://llm.invalid/v1")
    client = LLMClient(settings, http_client=httpx.AsyncClient(transport=httpx.MockTransport(endpoint)),
                       max_retries=0)
    return LLMReranker(client, timeout_s=5)


async def test_the_same_passages_are_ranked_once() -> None:
    endpoint = Endpoint()
    reranker = _reranker(endpoint)
    passages = [("a", "Anna lives in Lisbon."), ("b", "Ben lives in Oslo.")]
    first = await reranker.rank("Where does Anna live?", passages)
    assert await reranker.rank("Where does Anna live?", passages) == first
    assert len(endpoint.prompts) == 1


async def test_an_updated_content_is_ranked_again() -> None:
    endpoint = Endpoint()
    reranker = _reranker(endpoint)
    await reranker.rank("Where does Anna live?", [("a", "Anna lives in Lisbon."), ("b", "Ben lives in Oslo.")])
    await reranker.rank("Where does Anna live?", [("a", "Anna moved to Porto."), ("b", "Ben lives in Oslo.")])
    assert len(endpoint.prompts) == 2, "the ranking of the old content was served for the updated memory"
    assert "Anna moved to Porto." in endpoint.prompts[1]
    await reranker.rank("Where does Ben live?", [("a", "Anna moved to Porto."), ("b", "Ben lives in Oslo.")])
    assert len(endpoint.prompts) == 3
