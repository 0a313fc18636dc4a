"""LLMClient reads only chat completions (llm/client): a 200 whose body the openai SDK cannot read as one (an HTML
page, JSON of another shape, a JSON content type without JSON) is LLMOutputError, as an answer with no choices is,
not an AttributeError deep in the client. The real openai client runs against an httpx MockTransport."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from graphmem.config import Settings
from graphmem.errors import LLMOutputError
from graphmem.llm import LLMClient
from graphmem.retrieval.llm_rerank import Ranking

RANKING = json.dumps({"judgements": [{"n": 1, "relevance": 1}]})


def completion(**changes: Any) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": RANKING}}],
            **changes}


def client(reply: httpx.Response) -> LLMClient:
    settings = Settings(llm_base_url="http://llm.invalid/v1")
    return LLMClient(settings, http_client=httpx.AsyncClient(transport=httpx.MockTransport(lambda _: reply)),
                     max_retries=0)


@pytest.mark.parametrize("reply", [
    httpx.Response(200, text="<html>not json</html>", headers={"content-type": "text/html"}),
    httpx.Response(200, text="", headers={"content-type": "text/plain"}),
    httpx.Response(200, json={"choices": "nope"}),
    httpx.Response(200, json="a string"),
    httpx.Response(200, json=[1, 2]),
    httpx.Response(200, json=completion(choices=[{"message": 5}])),
    httpx.Response(200, json=completion(choices=[{"message": {"role": "assistant", "content": 5}}])),
    httpx.Response(200, json=completion(choices=["nope"])),
    httpx.Response(200, content=b"<html>", headers={"content-type": "application/json"}),
    httpx.Response(200, content=b"\xff\xfe{", headers={"content-type": "application/json"}),
], ids=["html", "plain-empty", "choices-str", "json-str", "json-list", "message-int", "content-int", "choice-str",
        "json-type-no-json", "json-type-bad-bytes"])
async def test_a_reply_that_is_no_chat_completion_is_llm_output_error(reply: httpx.Response) -> None:
    llm = client(reply)
    with pytest.raises(LLMOutputError, match="not a chat completion"):
        await llm.complete_json("system", "user", Ranking)
    assert (llm.usage.calls, llm.usage.failures) == (1, 1)  # nothing to repair: no retry


async def test_no_choices_is_still_its_own_error() -> None:
    with pytest.raises(LLMOutputError, match="no choices"):
        await client(httpx.Response(200, json=completion(choices=[]))).complete_json("system", "user", Ranking)


@pytest.mark.parametrize("usage", [None, "lots", {"prompt_tokens": "many", "completion_tokens": 3}])
async def test_usage_of_another_shape_is_not_counted_and_the_answer_is_read(usage: object) -> None:
    llm = client(httpx.Response(200, json=completion(usage=usage)))
    answer = await llm.complete_json("system", "user", Ranking)
    assert answer.judgements[0].relevance == 1
    assert (llm.usage.prompt_tokens, llm.usage.completion_tokens, llm.usage.failures) == (0, 0, 0)


async def test_usage_is_counted() -> None:
    llm = client(httpx.Response(200, json=completion(usage={"prompt_tokens": 7, "completion_tokens": 3,
                                                            "total_tokens": 10})))
    await llm.complete_json("system", "user", Ranking)
    assert (llm.usage.prompt_tokens, llm.usage.completion_tokens) == (7, 3)
