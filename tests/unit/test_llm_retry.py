"""LLMClient's retries (llm/client): server errors, rate limits and timeouts are tried again, with a backoff that
doubles (and a random stretch of up to 2x), up to ``max_retries``; a 4xx other than 429 is not retried. The real
openai client runs against an httpx MockTransport; the backoff's sleeps are recorded instead of slept."""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx
import pytest

import graphmem.llm.client as llm_client
from graphmem.config import Settings
from graphmem.errors import LLMUnavailableError
from graphmem.llm import LLMClient
from graphmem.retrieval.llm_rerank import Ranking

RANKING = json.dumps({"judgements": [{"n": 1, "relevance": 1}]})
OK = {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
      "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": RANKING}}]}


class Endpoint:
    """Fails the first ``failures`` requests with ``fail`` (a status, or an httpx exception class), then answers."""

    def __init__(self, failures: int, fail: int | type[httpx.TransportError]) -> None:
        self.failures = failures
        self.fail = fail
        self.requests = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self.requests <= self.failures:
            if isinstance(self.fail, int):
                return httpx.Response(self.fail, json={"error": {"message": f"status {self.fail}"}})
            raise self.fail("simulated", request=request)
        return httpx.Response(200, json=OK)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(llm_client, "asyncio", SimpleNamespace(sleep=sleep))
    return slept


def _client(endpoint: Endpoint, max_retries: int) -> LLMClient:
    settings = Settings(llm_base_url="http://llm.invalid/v1")
    return LLMClient(settings, http_client=httpx.AsyncClient(transport=httpx.MockTransport(endpoint)),
                     max_retries=max_retries)


async def _ask(client: LLMClient) -> Ranking:
    return await client.complete_json("system", "user", Ranking, repair=False)


@pytest.mark.parametrize("fail", [500, 502, 503, 429, httpx.ReadTimeout, httpx.ConnectError])
async def test_retryable_failures_are_retried_with_a_doubling_backoff(
        fail: int | type[httpx.TransportError], sleeps: list[float]) -> None:
    endpoint = Endpoint(failures=3, fail=fail)
    answer = await _ask(_client(endpoint, max_retries=3))
    assert answer.judgements[0].relevance == 1
    assert endpoint.requests == 4
    assert len(sleeps) == 3
    for i, slept in enumerate(sleeps):  # 0.5 s doubling, each stretched by a random factor in [1, 2)
        assert 0.5 * 2 ** i <= slept < 0.5 * 2 ** (i + 1), sleeps


async def test_retries_give_up_after_max_retries(sleeps: list[float]) -> None:
    endpoint = Endpoint(failures=10, fail=503)
    client = _client(endpoint, max_retries=2)
    with pytest.raises(LLMUnavailableError, match="failed"):
        await _ask(client)
    assert endpoint.requests == 3
    assert len(sleeps) == 2
    assert client.usage.failures == 3


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_a_client_error_is_not_retried(status: int, sleeps: list[float]) -> None:
    endpoint = Endpoint(failures=1, fail=status)
    with pytest.raises(LLMUnavailableError, match=f"refused the request \\({status}\\)"):
        await _ask(_client(endpoint, max_retries=3))
    assert endpoint.requests == 1
    assert sleeps == []
