"""``graphmem import jsonl`` and ``graphmem export`` against the real Neo4j, as a user runs them: the import's line
counts the entities the write path made; an export's entities carry their stored properties; under a signing key
that did not sign the namespace, a re-import and an export both say how many memories fail verification, with the
fix, and exit 1 (instead of "unchanged 3" or an export without its memories, exit 0)."""

from __future__ import annotations

import asyncio
import re
import secrets
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner, Result

from graphmem.cli import cli
from graphmem.config import Settings
from graphmem.store import Store

LINES = ['{"kind": "semantic", "content": "Caroline moved to Paris in May 2023.", "id": "f1"}',
         '{"kind": "semantic", "content": "Melanie painted a sunrise over Lake Michigan.", "id": "f2"}',
         '{"kind": "episodic", "content": "Caroline met Melanie at the Boston library.", "id": "f3"}']
ENTITIES = "MATCH (e:Entity {namespace: $namespace}) RETURN e.name AS name, e.kind AS kind, e.created_at AS at"


@pytest.fixture
async def ns(store: Store) -> AsyncIterator[str]:
    name = f"helperx-{uuid.uuid4().hex[:10]}"
    yield name
    await store.wipe_namespace(name)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "memories.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


async def run(settings: Settings, *args: str, keys: str | None = None) -> Result:
    """The command, in a thread: it runs its own event loop (``asyncio.run``), as the installed command does."""
    assert settings.signing_keys is not None, "these tests sign: set GRAPHMEM_SIGNING_KEYS"
    env = {"GRAPHMEM_NEO4J_URI": settings.neo4j_uri,
           "GRAPHMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
           "GRAPHMEM_SIGNING_KEYS": keys or settings.signing_keys.get_secret_value(),
           "GRAPHMEM_INTEGRITY_FAILURES": "hide"}
    return await asyncio.to_thread(CliRunner().invoke, cli, list(args), env=env)


async def test_the_import_counts_its_entities_and_the_export_carries_their_properties(
        migrated: Settings, store: Store, ns: str, data: Path, tmp_path: Path) -> None:
    first = await run(migrated, "import", "jsonl", str(data), "--namespace", ns)
    assert first.exit_code == 0, first.output
    async with store.driver.session(database=store.database) as session:
        stored = [r.data() async for r in await session.run(ENTITIES, namespace=ns)]
    assert stored, "the extractor found no entity in the content"
    assert f"memories created 3 (episodic 1, semantic 2), strengthened 0, unchanged 0, {len(stored)} entities," \
        in first.stdout
    again = await run(migrated, "import", "jsonl", str(data), "--namespace", ns)
    assert again.exit_code == 0, again.output
    assert "memories created 0, strengthened 0, unchanged 3, 0 entities," in again.stdout

    out = tmp_path / "new" / "folder" / "g.graphml"
    exported = await run(migrated, "export", ns, "--out", str(out))
    assert exported.exit_code == 0, exported.output
    graph = nx.read_graphml(out)
    for row in stored:
        node = graph.nodes[f"Entity:{row['name']}"]
        assert (node["namespace"], node["name"], node["kind"]) == (ns, row["name"], row["kind"])
        assert node["created_at"] == row["at"].to_native().isoformat()


async def test_under_another_key_a_re_import_and_an_export_say_what_fails_and_exit_1(
        migrated: Settings, ns: str, data: Path, tmp_path: Path) -> None:
    assert (await run(migrated, "import", "jsonl", str(data), "--namespace", ns)).exit_code == 0
    other = f"other:{secrets.token_urlsafe(24)}"

    again = await run(migrated, "import", "jsonl", str(data), "--namespace", ns, keys=other)
    assert again.exit_code == 1, again.output
    assert "unchanged 3" in again.stdout
    assert "3 stored memories fail verification under the current signing keys" in again.stdout
    assert f"{ns}: 3 stored memories fail verification under GRAPHMEM_SIGNING_KEYS" in again.stderr
    assert f"graphmem db wipe-namespace {ns} --yes" in again.stderr

    out = tmp_path / "g.json"
    exported = await run(migrated, "export", ns, "--out", str(out), "--format", "json", keys=other)
    assert exported.exit_code == 1, exported.output
    match = re.fullmatch(rf"{ns}: (\d+) nodes, 0 edges -> {re.escape(str(out))}\n", exported.stdout)
    assert match is not None, exported.stdout  # the entities only
    assert f"{ns}: 3 stored memories fail verification under GRAPHMEM_SIGNING_KEYS" in exported.stderr
    assert "left out of the export" in exported.stderr
    assert f"graphmem integrity check --namespace {ns}" in exported.stderr
