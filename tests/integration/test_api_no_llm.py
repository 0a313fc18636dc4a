"""A server without an LLM: reflecting is refused with a code that says so (it was INTERNAL), and endTask writes
the extractive summary when the server is configured to."""

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


LOG = """mutation($ns: String!, $id: String!, $turns: [TurnInput!]!) {
  logTurns(namespace: $ns, taskId: $id, turns: $turns) { seq }
}"""
END = """mutation($ns: String!, $id: ID!) {
  endTask(namespace: $ns, id: $id, outcome: "refunded") { status summary { id content source kind } }
}"""
TASK = "query($ns: String!, $id: ID!) { task(namespace: $ns, id: $id) { summary { id content } } }"


async def test_without_an_llm_end_task_writes_the_extractive_summary(migrated: Settings, embedder: Embedder) -> None:
    async with open_api(migrated, embedder, seed=False, llm_base_url=None, reflection_worker=False,
                        task_summary="extractive") as api:
        task = (await api.data(api.tokens.a, START, {"task": {"namespace": api.ns_a, "title": "Broken kettle"}}))
        task_id = task["startTask"]["id"]
        turns = [{"role": "USER", "content": "My kettle from order 42 arrived broken, please refund order 42."},
                 {"role": "ASSISTANT", "content": "Sorry! Order 42 is refunded to your card."}]
        await api.data(api.tokens.a, LOG, {"ns": api.ns_a, "id": task_id, "turns": turns})
        ended = (await api.data(api.tokens.a, END, {"ns": api.ns_a, "id": task_id}))["endTask"]
        summary = ended["summary"]
        assert ended["status"] == "ended"
        assert summary is not None
        assert (summary["source"], summary["kind"]) == ("summary:extractive", "EPISODIC")
        assert "Broken kettle" in summary["content"]
        assert "order 42" in summary["content"]
        again = (await api.data(api.tokens.a, TASK, {"ns": api.ns_a, "id": task_id}))["task"]["summary"]
        assert again == {"id": summary["id"], "content": summary["content"]}
