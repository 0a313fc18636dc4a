"""Neo4j Browser's guide against the real Neo4j: a real `graphmem serve` serves the guide and the style (with
CORS), every saved query the guide shows runs on a small hand-built namespace and returns rows, and the local
server tells Browser (dbms.clientConfig) to load both after login."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphmem.browser import GUIDE_PATH, STYLE_FILE, STYLE_PATH, BrowserLinks, saved_queries
from graphmem.config import Settings
from graphmem.models import MemoryDraft, MemoryKind, Role, Task, utcnow
from graphmem.neo4j_local.tools import free_port
from graphmem.security import add_token_entry, make_entry, new_token
from graphmem.service import MemoryService
from graphmem.store import Step, Store
from tests.integration.serve_support import serve_env, start, stop, wait_ready
from tests.unit.test_browser_guide import runnables


@pytest.fixture
def api(migrated: Settings, tmp_path: Path, namespace: str) -> Iterator[str]:
    _, sha = new_token()
    tokens = tmp_path / "tokens.yaml"
    add_token_entry(tokens, make_entry("browser-guide", sha, read=[namespace], write=[namespace]))
    port = free_port()
    log = tmp_path / "serve.log"
    proc = start(["graphmem", "serve"], serve_env(migrated, tokens, port), log)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(proc, url, log, timeout_s=180)
        yield url
    finally:
        stop([proc])


async def build_namespace(service: MemoryService, store: Store, namespace: str) -> None:
    """Memories about shared entities, a task with turns and its memories, a fact DERIVED_FROM a turn, a lesson,
    and a SUPERSEDES chain of three: the write path builds ABOUT, FOLLOWS, SIMILAR_TO and FROM_TASK."""
    task = await service.tasks.start(Task(namespace=namespace, title="pottery session"))
    turns = await service.tasks.log_turns(namespace, task.id, [
        (Role.USER, "Melanie signed up for a pottery class at the community centre."),
        (Role.ASSISTANT, "Nice: pottery on Tuesdays with Caroline?"),
        (Role.USER, "Yes, Caroline joins her on Tuesdays."),
    ])
    episodic = [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=t.content, task_id=task.id,
                            entities=("Melanie", "pottery")) for t in turns]
    await service.write_memories(episodic)
    chain = await service.write_memories([
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=text, entities=("Melanie", "pottery"))
        for text in ("Melanie takes pottery on Mondays.", "Melanie takes pottery on Wednesdays.",
                     "Melanie takes pottery on Tuesdays with Caroline.")])
    await service.write_memories([
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content="Caroline and Melanie do pottery "
                    "together.", derived_from=(turns[2].id,), task_id=task.id, entities=("Caroline",)),
        MemoryDraft(namespace=namespace, kind=MemoryKind.LESSON, content="Ask which day a class is before "
                    "planning around it.", derived_from=(turns[1].id,), task_id=task.id),
    ])
    old, mid, new = (item.id for item in chain.items)
    now = utcnow()
    await store.write([Step("memory/supersede", {"namespace": namespace, "source": "reflection", "rows": [
        {"new": mid, "old": old, "at": now}, {"new": new, "old": mid, "at": now}]})])


async def test_every_saved_query_of_the_served_guide_returns_rows(
        service: MemoryService, store: Store, namespace: str, api: str) -> None:
    await build_namespace(service, store, namespace)
    origin = {"Origin": "http://127.0.0.1:7474"}
    guide = httpx.get(api + GUIDE_PATH, headers={**origin, "Pragma": "no-cache"}, timeout=10)
    assert guide.status_code == 200
    assert guide.headers["access-control-allow-origin"] == "*"
    style = httpx.get(api + STYLE_PATH, headers=origin, timeout=10)
    assert style.headers["access-control-allow-origin"] == "*"
    assert style.text == STYLE_FILE.read_text()

    blocks = runnables(guide.text)
    params: dict[str, Any] = {**json.loads(blocks[0].removeprefix(":params ")), "namespace": namespace}
    # Browser's :params stores every JSON number as a float (seen in the real Browser: "limit": 12.0), and LIMIT
    # refuses 12.0: run the queries with the numbers as Browser hands them over
    params = {k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in params.items()}
    queries = blocks[1:]
    assert queries == [q.statement for q in saved_queries()]
    empty = []
    async with store.driver.session(database=store.database) as session:
        for query in queries:
            result = await session.run(query, params)  # the guide's text, verbatim
            if not await result.data():
                empty.append(query.splitlines()[0])
    assert not empty, f"saved queries with no rows on the hand-built namespace: {empty}"
    reflection = next(q.statement for q in saved_queries() if q.title == "What reflection wrote")
    async with store.driver.session(database=store.database) as session:
        rows = await (await session.run(reflection, params)).data()
    assert sorted(r["kind"] for r in rows) == ["lesson", "semantic"]  # not the turns' memories, which derive too


async def test_local_server_tells_browser_to_load_style_and_guide(store: Store, migrated: Settings) -> None:
    async with store.driver.session(database=store.database) as session:
        result = await session.run("CALL dbms.clientConfig()")
        config = {r["name"]: r["value"] for r in await result.data()}
    links = BrowserLinks.from_settings(migrated)
    assert config.get("browser.post_connect_cmd") == links.post_connect_cmd
    allow = config.get("browser.remote_content_hostname_whitelist", "")
    assert "127.0.0.1" in allow.split(","), config
