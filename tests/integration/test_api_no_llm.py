"""A server without an LLM: reflecting is refused with a code that says so (it was INTERNAL)."""

from __future__ import annotations

from graphmem.config import Settings
from graphmem.embed import Embedder
from tests.integration.api_support import codes, open_api

START = "mutation($task: TaskInput!) { startTask(task: $task) { id } }"
REFLECT = "mutation($ns: String!, $id: ID!) { reflect(namespace: $ns, taskId: $id) { taskId } }"


async def test_reflect_without_an_llm_is_invalid_config_not_internal(migrated: Settings, embedder: Embedder) -> None:
    async with open_api(migrated, embedder, seed=False, llm_base_url=None, reflection_worker=False) as api:
        task = (await api.data(api.tokens.a, START, {"task": {"namespace": api.ns_a}}))["startTask"]
        body = await api.call(api.tokens.a, REFLECT, {"ns": api.ns_a, "id": task["id"]})
        assert codes(body) == ["INVALID_CONFIG"]
        assert "GRAPHMEM_LLM_BASE_URL" in body["errors"][0]["message"]
