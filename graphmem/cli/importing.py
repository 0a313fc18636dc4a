"""``graphmem import``: bulk import of LoCoMo conversations and JSON Lines memories."""

from __future__ import annotations

import asyncio

import click

from graphmem.config import Settings

BATCH = click.IntRange(min=1)
"""Memories per write transaction: at least one."""


@click.group("import")
def import_() -> None:
    """Bulk import (idempotent: importing the same file twice adds nothing)."""


@import_.command("locomo")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--sample", "samples", multiple=True, help="Only these sample ids (e.g. conv-26); default all.")
@click.option("--batch", type=BATCH, default=500, show_default=True, help="Memories per write transaction.")
def import_locomo(path: str, samples: tuple[str, ...], batch: int) -> None:
    """Import LoCoMo conversations: sessions -> tasks and turns, turns -> episodic memories, observations ->
    semantic memories DERIVED_FROM their evidence turns, speakers -> entities. One namespace per sample."""
    from tqdm import tqdm

    from graphmem.importers.locomo import load_locomo, plan_locomo
    from graphmem.importers.runner import plan_units, run_plan, unverified_hint
    from graphmem.service.factory import open_service

    chosen = [s for s in load_locomo(path) if not samples or s.sample_id in samples]
    plans = [plan_locomo(s) for s in chosen]

    async def run() -> None:
        async with open_service(Settings()) as service:
            with tqdm(total=sum(plan_units(p) for p in plans), unit="item", desc="import locomo") as bar:
                reports = [await run_plan(service, p, batch_size=batch, progress=bar.update) for p in plans]
        for report in reports:
            click.echo(report.line())
        hidden = [r for r in reports if r.unverified]
        for report in hidden:
            click.echo(unverified_hint(report.namespace, report.unverified), err=True)
        if hidden:
            raise SystemExit(1)

    asyncio.run(run())


@import_.command("jsonl")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--namespace", default=None, help="Namespace for lines that do not name one.")
@click.option("--batch", type=BATCH, default=500, show_default=True, help="Memories per write transaction.")
@click.option("--no-dedupe", is_flag=True, help="Store near-duplicates as separate memories.")
def import_jsonl(path: str, namespace: str | None, batch: int, no_dedupe: bool) -> None:
    """Import memories from JSON Lines (one MemoryDraft object a line; give ids to make re-imports no-ops). Exits 1
    when a namespace holds memories that fail verification under the current signing keys (the hint says what to
    do): reads hide them, and importing again leaves them as they are."""
    from collections import defaultdict

    from tqdm import tqdm

    from graphmem.importers.jsonl import read_jsonl
    from graphmem.importers.runner import ImportReport, import_drafts, unverified_hint
    from graphmem.models import MemoryDraft
    from graphmem.service.factory import open_service

    groups: dict[str, list[MemoryDraft]] = defaultdict(list)
    for draft in read_jsonl(path, default_namespace=namespace):
        groups[draft.namespace].append(draft)

    async def run() -> list[ImportReport]:
        reports: list[ImportReport] = []
        async with open_service(Settings()) as service:
            total = sum(len(g) for g in groups.values())
            with tqdm(total=total, unit="memory", desc="import jsonl") as bar:
                for ns, drafts in groups.items():
                    report = await import_drafts(service, ns, drafts, batch_size=batch, dedupe=not no_dedupe,
                                                 progress=bar.update)
                    click.echo(report.line())
                    reports.append(report)
        return reports

    hidden = [r for r in asyncio.run(run()) if r.unverified]
    for report in hidden:
        click.echo(unverified_hint(report.namespace, report.unverified), err=True)
    if hidden:
        raise SystemExit(1)


@import_.command("graphiti")
@click.option("--uri", required=True, help="Bolt URI of the Neo4j that holds the Graphiti graph (read only).")
@click.option("--user", default="neo4j", show_default=True)
@click.option("--password", default="", envvar="GRAPHITI_NEO4J_PASSWORD", help="Or GRAPHITI_NEO4J_PASSWORD.")
@click.option("--database", default="neo4j", show_default=True)
@click.option("--group-id", "group_ids", multiple=True, help="Only these Graphiti group ids; default all.")
@click.option("--namespace-prefix", default="graphiti-", show_default=True, help="Namespace = prefix + group id.")
@click.option("--batch", type=BATCH, default=500, show_default=True, help="Memories per write transaction.")
def import_graphiti(uri: str, user: str, password: str, database: str, group_ids: tuple[str, ...],
                    namespace_prefix: str, batch: int) -> None:
    """Import a Graphiti graph: each group id -> a namespace; episodes -> turns of one task and episodic memories,
    RELATES_TO facts -> semantic memories ABOUT their entities and DERIVED_FROM their episodes (invalidated or
    expired ones superseded, validity kept), entity summaries -> semantic memories. Idempotent."""
    from tqdm import tqdm

    from graphmem.importers.graphiti import namespaces_for, plan_graphiti
    from graphmem.importers.graphiti_run import GraphitiSource, plan_units, run_graphiti_plan
    from graphmem.service.factory import open_service

    settings = Settings()

    async def run() -> None:
        async with GraphitiSource.connect(settings, uri=uri, user=user, password=password, database=database,
                                          page=max(batch, 100)) as source:
            groups = await source.groups(group_ids or None)
            mapping = namespaces_for([g.group_id for g in groups], namespace_prefix)
            for g in groups:
                click.echo(f"group {g.group_id or '(default)'!r} -> namespace {mapping[g.group_id]} "
                           f"({g.episodes} episodes, {g.facts} facts, {g.entities} entities)")
            plans = [plan_graphiti(await source.group(g.group_id), mapping[g.group_id]) for g in groups]
        async with open_service(settings) as service:
            with tqdm(total=sum(plan_units(p) for p in plans), unit="item", desc="import graphiti") as bar:
                reports = [await run_graphiti_plan(service, p, batch_size=batch, progress=bar.update) for p in plans]
        for report in reports:
            click.echo(report.line())

    asyncio.run(run())
