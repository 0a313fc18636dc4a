"""A task over MCP ended with reflect: true, with the real local LLM (one reflection: slow on CPU)."""

from __future__ import annotations

from graphmem.config import Settings
from graphmem.embed import Embedder
from tests.integration.mcp_support import data, http_client, serve

TURNS = [
    {"role": "user", "content": "Hi, I bought running shoes from you last week (order 4411) and they are too small. "
                                "What is your return policy?"},
    {"role": "assistant", "content": "You can return unworn items within 30 days of delivery for a full refund. "
                                     "Start the return from the Orders page and print the free return label."},
    {"role": "user", "content": "Thanks, I'll ship it today."},
]


async def test_a_task_ended_with_reflect_writes_facts_found_by_search(llm_settings: Settings,
                                                                      embedder: Embedder) -> None:
    async with serve(llm_settings, embedder) as s, http_client(s.url, s.tokens.a) as client:
        task = data(await client.call_tool("task_start", {"title": "Return policy question", "agent": "support"}))
        data(await client.call_tool("task_log", {"task_id": task["id"], "turns": TURNS}))
        ended = data(await client.call_tool("task_end", {"task_id": task["id"], "outcome": "answered",
                                                         "reflect": True}))
        assert ended["task"]["status"] == "ended"
        assert ended["reflection_status"] == "done", ended
        report = ended["reflection"]
        assert report is not None
        assert report["llm_calls"] >= 1
        assert report["facts"], report
        again = data(await client.call_tool("memory_reflect", {"task_id": task["id"]}))  # stored: no LLM call
        assert again["replayed"]
        assert [f["id"] for f in again["facts"]] == [f["id"] for f in report["facts"]]
        found = data(await client.call_tool("memory_search", {"query": "What is the return policy?", "k": 5}))
        assert {f["id"] for f in report["facts"]} & {h["id"] for h in found["results"]}, (report, found)
