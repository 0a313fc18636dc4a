"""endTask(reflect: true) when the reflection fails, on the real Neo4j: the task is ended and returned, the error is
on its reflection state (queued again), whatever failed: an LLM reply that is no chat completion (an HTML page, JSON
of another shape: it was INTERNAL, an AttributeError in the LLM client), or a bug."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

import graphmem.reflection.service as reflection_service
from graphmem.llm import LLMClient
from graphmem.models import Role, Task, TaskStatus
from graphmem.reflection import ReflectionService
from graphmem.retrieval.service import RetrievalService
from graphmem.security.tokens import Principal
from graphmem.service import MemoryService
from graphmem.service.browse import BrowseService
from graphmem.service.scoped import ScopedService
from tests.integration.reflection_support import Script, scripted_llm


def replying(service: MemoryService, reply: httpx.Response) -> LLMClient:
    settings = service.settings.model_copy(update={"llm_base_url": "http://replying.invalid/v1"})
    transport = httpx.MockTransport(lambda _: reply)
    return LLMClient(settings, http_client=httpx.AsyncClient(transport=transport), max_retries=0)


def scoped(service: MemoryService, namespace: str, llm: LLMClient) -> ScopedService:
    writer = Principal(name="writer", read=frozenset({namespace}), write=frozenset({namespace}))
    return ScopedService(writer, service, RetrievalService(service.store, service.embedder, service.settings),
                         BrowseService(service.store), shared_namespace="shared",
                         reflection=ReflectionService(service, llm))


async def open_task(service: MemoryService, namespace: str) -> str:
    task = await service.tasks.start(Task(namespace=namespace, title="Change the delivery address"))
    await service.tasks.log_turns(namespace, task.id, [
        (Role.USER, "Please change my delivery address, I moved from Paris to Berlin."),
        (Role.ASSISTANT, "Done, deliveries now go to your Berlin address."),
    ])
    return task.id


async def ended_with_error(api: ScopedService, namespace: str, task_id: str) -> dict[str, Any]:
    ended = await api.end_task(namespace, task_id, outcome="address changed", reflect=True)
    assert (ended.id, ended.status) == (task_id, TaskStatus.ENDED)
    state = await api.reflection_state(namespace, task_id)
    assert (state["status"], state["attempts"], state["report"]) == ("pending", 1, None)
    return state


@pytest.mark.parametrize("reply", [
    httpx.Response(200, text="<html>not json</html>", headers={"content-type": "text/html"}),
    httpx.Response(200, json={"choices": "nope"}),
], ids=["html", "choices-str"])
async def test_a_reply_that_is_no_chat_completion_is_recorded_and_the_task_returned(
        service: MemoryService, namespace: str, reply: httpx.Response) -> None:
    task_id = await open_task(service, namespace)
    state = await ended_with_error(scoped(service, namespace, replying(service, reply)), namespace, task_id)
    assert state["error"] in ("LLMOutputError: the LLM's reply is not a chat completion: '<html>not json</html>'",
                              "LLMOutputError: the LLM's reply is not a chat completion: choices='nope'")


async def test_a_bug_in_the_reflection_is_recorded_logged_and_the_task_returned(
        service: MemoryService, namespace: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    def prompt_bug(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("a bug in the prompt")

    monkeypatch.setattr(reflection_service, "render_prompt", prompt_bug)
    task_id = await open_task(service, namespace)
    api = scoped(service, namespace, scripted_llm(service.settings, Script([])))
    with caplog.at_level(logging.ERROR, logger="graphmem.service"):
        state = await ended_with_error(api, namespace, task_id)
    assert state["error"] == "RuntimeError: a bug in the prompt"
    assert any(r.exc_info and "a bug in the prompt" in str(r.exc_info[1]) for r in caplog.records)
