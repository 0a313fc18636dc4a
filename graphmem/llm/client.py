"""One client for any OpenAI-compatible chat endpoint: structured JSON output, retries, counting."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import openai
import pydantic
from openai.types import CompletionUsage
from openai.types.chat import ChatCompletion, ChatCompletionMessage

from graphmem.config import Settings
from graphmem.errors import ConfigError, LLMOutputError, LLMUnavailableError
from graphmem.llm.parse import parse_output
from graphmem.llm.prompt import fit_to_context

M = TypeVar("M", bound=pydantic.BaseModel)
RETRYABLE = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0


class LLMClient:
    def __init__(self, settings: Settings, *, http_client: Any = None,
                 max_retries: int = 2) -> None:
        if not settings.llm_base_url:
            raise ConfigError("no LLM configured: set GRAPHMEM_LLM_BASE_URL (e.g. http://127.0.0.1:8088/v1)")
        self.settings = settings
        self.model = settings.llm_model
        self.max_retries = max_retries
        self.usage = Usage()
        self._client = openai.AsyncOpenAI(
            base_url=settings.llm_base_url, api_key=settings.llm_api_key.get_secret_value(),
            timeout=settings.llm_timeout_s, max_retries=0, http_client=http_client,
        )

    async def close(self) -> None:
        await self._client.close()

    def response_format(self, model: type[pydantic.BaseModel] | dict[str, Any]) -> dict[str, Any]:
        schema = model if isinstance(model, dict) else model.model_json_schema()
        if self.settings.llm_structured_output == "json_schema":
            name = str(schema.get("title", "output")) if isinstance(model, dict) else model.__name__
            return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
        return {"type": "json_object", "schema": schema}

    async def complete_json(self, system: str, user: str, output: type[M], *, timeout: float | None = None,
                            max_tokens: int = 1024, repair: bool = True,
                            check: Callable[[M, bool], M] | None = None, schema: dict[str, Any] | None = None) -> M:
        """Ask for JSON fitting ``output``; one repair retry on bad output, then LLMOutputError.

        ``check(answer, last_try)`` runs after the schema validation (e.g. ids the model may use): it raises
        LLMOutputError (its message is part of the repair request) or returns the answer, possibly cleaned
        (on the last try it may drop what cannot be repaired any more). ``schema`` replaces ``output``'s JSON
        schema in the request (e.g. narrowed with enums); the answer is still validated against ``output``.
        The user message is cut to fit the context window.
        """
        user = fit_to_context(system, user, context_tokens=self.settings.llm_context_tokens,
                              reserve_tokens=max_tokens)
        messages: list[dict[str, str]] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        wanted = schema or output.model_json_schema()
        text = await self._chat(messages, wanted, timeout, max_tokens)
        try:
            return self._validated(text, output, check, last_try=not repair)
        except LLMOutputError as first:
            if not repair:
                raise
            # The schema is repeated only where the server does not enforce it as a grammar (it is long).
            shape = "" if self.settings.llm_structured_output == "json_object_schema" else (
                f", fitting this schema: {json.dumps(wanted)}")
            messages += [{"role": "assistant", "content": text[:2000]},
                         {"role": "user", "content": f"That answer was not valid: {first}. Reply again with only "
                                                     f"the corrected JSON object{shape}."}]
            retry = fit_to_context(system, "\n\n".join(m["content"] for m in messages[1:]),
                                   context_tokens=self.settings.llm_context_tokens, reserve_tokens=max_tokens)
            if len(retry) < sum(len(m["content"]) for m in messages[1:]):  # did not fit: one turn, cut
                messages = [messages[0], {"role": "user", "content": retry}]
            return self._validated(await self._chat(messages, wanted, timeout, max_tokens), output, check,
                                   last_try=True)

    @staticmethod
    def _validated(text: str, output: type[M], check: Callable[[M, bool], M] | None, *, last_try: bool) -> M:
        parsed = parse_output(text, output)
        return check(parsed, last_try) if check is not None else parsed

    async def _chat(self, messages: list[dict[str, str]], output: type[pydantic.BaseModel] | dict[str, Any],
                    timeout: float | None,
                    max_tokens: int) -> str:
        delay = 0.5
        for attempt in range(self.max_retries + 1):
            try:
                self.usage.calls += 1
                request: dict[str, Any] = {
                    "model": self.model, "messages": messages, "response_format": self.response_format(output),
                    "temperature": 0.0, "max_tokens": max_tokens, "timeout": timeout or self.settings.llm_timeout_s,
                }
                response: object = await self._client.chat.completions.create(**request)
            except RETRYABLE as exc:
                self.usage.failures += 1
                if attempt == self.max_retries:
                    raise LLMUnavailableError(f"LLM at {self.settings.llm_base_url} failed: {exc}") from exc
                await asyncio.sleep(delay * (1 + random.random()))
                delay *= 2
                continue
            except openai.APIStatusError as exc:
                self.usage.failures += 1
                raise LLMUnavailableError(f"LLM refused the request ({exc.status_code}): {exc.message}") from exc
            except (openai.APIResponseValidationError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                self.usage.failures += 1  # a 200 whose body the SDK could not read (JSON declared, none sent)
                raise LLMOutputError(f"the LLM's reply is not a chat completion: {exc}") from exc
            return self._reply_text(response)
        raise AssertionError("unreachable")

    def _reply_text(self, response: object) -> str:
        """The text of the reply's first choice, its tokens counted. What the SDK could not read as a chat
        completion it hands back unchecked (an HTML page's text, JSON of another shape built field by field): that
        is LLMOutputError, as an answer with no choices is."""
        if isinstance(response, ChatCompletion):
            usage: object = response.usage
            if isinstance(usage, CompletionUsage) and isinstance(usage.prompt_tokens, int) \
                    and isinstance(usage.completion_tokens, int):
                self.usage.prompt_tokens += usage.prompt_tokens
                self.usage.completion_tokens += usage.completion_tokens
            choices: object = response.choices
            if choices == []:
                raise LLMOutputError("the LLM answered with no choices")
            message = getattr(choices[0], "message", None) if isinstance(choices, list) else None
            content = getattr(message, "content", None)
            if isinstance(message, ChatCompletionMessage) and isinstance(content, str | None):
                return content or ""
        self.usage.failures += 1
        shown = f"choices={response.choices!r}" if isinstance(response, ChatCompletion) else repr(response)
        raise LLMOutputError(f"the LLM's reply is not a chat completion: {shown[:200]}")
