"""``graphmem db``: schema migration, re-embedding and graph rebuilds of the stored memories."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from graphmem.config import Settings
from graphmem.models import MemoryStatus

if TYPE_CHECKING:
    from graphmem.store import Store


@click.group()
def db() -> None:
    """Database maintenance."""


@db.command("migrate")
def db_migrate() -> None:
    """Apply the schema (constraints, indexes, vector index) idempotently and record its version."""
    from graphmem.embed import embedding_dimension
    from graphmem.store import Store, migrate

    async def run() -> str:
        settings = Settings()
        async with Store.connect(settings) as store:
            info = await migrate(store, embedding_dim=embedding_dimension(settings))
        return f"schema version {info.version}, vector index {info.vector_dimensions} dims ({info.similarity})"

    click.echo(asyncio.run(run()))


async def count_memories(store: Store, *, namespaces: Sequence[str] | None = None,
                         statuses: Sequence[MemoryStatus] = tuple(MemoryStatus)) -> int:
    """How many memories of these namespaces (default: every one) and statuses are stored: the total of a
    progress bar. ``db reembed`` pages through every memory, ``db rebuild-graph`` through the active ones."""
    names = list(namespaces) if namespaces else [row["namespace"] for row in await store.read("graph/namespaces")]
    if not names:
        return 0
    rows = await store.read("retrieval/count_namespaces", namespaces=names, statuses=[s.value for s in statuses])
    return int(rows[0]["n"]) if rows else 0


@db.command("reembed")
@click.option("--page", type=click.IntRange(min=1), default=256, show_default=True,
              help="Memories embedded per transaction.")
def db_reembed(page: int) -> None:
    """Re-embed every memory with the configured embedder and rebuild the vector index to fit it."""
    from tqdm import tqdm

    from graphmem.embed import make_embedder
    from graphmem.service.reembed import reembed
    from graphmem.store import Store

    async def run() -> None:
        settings = Settings()
        embedder = make_embedder(settings)
        async with Store.connect(settings) as store:
            total = await count_memories(store)
            with tqdm(total=total, unit="memory", desc="re-embed") as bar:
                report = await reembed(store, embedder, page=page, progress=bar.update)
        click.echo(f"re-embedded {report.memories} memories with {settings.embedding_model} "
                   f"({report.dimension} dims); index {'rebuilt' if report.index_rebuilt else 'kept'}; "
                   f"schema version {report.schema.version}")

    asyncio.run(run())


@db.command("rebuild-graph")
@click.option("--namespace", "namespaces", multiple=True, help="Only these namespaces (default: every one).")
@click.option("--page", type=click.IntRange(min=1), default=500, show_default=True, help="Memories per transaction.")
def db_rebuild_graph(namespaces: tuple[str, ...], page: int) -> None:
    """Run the write path's graph construction (entities from content, SIMILAR_TO, FOLLOWS) over stored memories:
    for graphs written before it, or after GRAPHMEM_GRAPH_* changed. Idempotent: it reports the edges it created
    (0 on a second run)."""
    from tqdm import tqdm

    from graphmem.graph.construct import graph_options
    from graphmem.graph.rebuild import rebuild_graph
    from graphmem.store import Store

    async def run() -> None:
        settings = Settings()
        async with Store.connect(settings) as store:
            total = await count_memories(store, namespaces=namespaces, statuses=(MemoryStatus.ACTIVE,))
            with tqdm(total=total, unit="memory", desc="rebuild graph") as bar:
                report = await rebuild_graph(store, graph_options(settings), namespaces=namespaces or None,
                                             similarity=settings.embedding_similarity, page=page,
                                             progress=bar.update)
        click.echo(report.line())

    asyncio.run(run())


@db.command("wipe-namespace")
@click.argument("namespace")
@click.option("--yes", is_flag=True, help="Confirm: without it nothing is deleted.")
def db_wipe_namespace(namespace: str, yes: bool) -> None:
    """Delete every node of NAMESPACE (memories, entities, tasks, turns) with its edges, for data better imported
    again than kept (a namespace written under a signing key no longer listed: `graphmem integrity check`). It
    cannot be undone. `graphmem export` is no backup (an analysis copy graphmem cannot import): dump the Neo4j database
    first (README, "Backups")."""
    from graphmem.service.wipe import wipe_namespace
    from graphmem.store import Store

    if not namespace.strip() or namespace == "*":
        raise click.BadParameter("name one namespace", param_hint="NAMESPACE")
    if not yes:
        raise click.UsageError(f"this deletes every memory of {namespace!r} and cannot be undone: pass --yes")

    async def run() -> int:
        async with Store.connect(Settings()) as store:
            return await wipe_namespace(store, namespace)

    click.echo(f"{namespace}: {asyncio.run(run())} nodes deleted")
