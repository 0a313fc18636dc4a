"""A scripted OpenAI-compatible endpoint (httpx MockTransport) for reflection tests that are about storage,
not about the model: the real LLMClient, parser and repair path run; Neo4j and the embedder are real."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import httpx

from graphmem.config import Settings
from graphmem.llm import LLMClient


class Script:
    """Answers chat completions with the given texts in order; records the requests."""

    def __init__(self, answers: Sequence[str | dict[str, Any]]) -> None:
        self.answers = [a if isinstance(a, str) else json.dumps(a) for a in answers]
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        if not self.answers:
            return httpx.Response(500, json={"error": {"message": "script exhausted"}})
        text = self.answers.pop(0)
        return httpx.Response(200, json={
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0, "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
        })


def scripted_llm(settings: Settings, script: Script) -> LLMClient:
    configured = settings.model_copy(update={"llm_base_url": "http://scripted.invalid/v1"})
    return LLMClient(configured, http_client=httpx.AsyncClient(transport=httpx.MockTransport(script)), max_retries=0)
