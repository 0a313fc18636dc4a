"""``graphmem import``: bulk import of LoCoMo conversations and JSON Lines memories."""

from __future__ import annotations

import asyncio

import click

from graphmem.config import Settings


@click.group("import")
def import_() -> None:
    """Bulk import (idempotent: importing the same file twice adds nothing)."""


@import_.command("locomo")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--sample", "samples", multiple=True, help="Only these sample ids (e.g. conv-26); default all.")
@click.option("--batch", default=500, show_default=True, help="Memories per write transaction.")
def import_locomo(path: str, samples: tuple[str, ...], batch: int) -> None:
    """Import LoCoMo conversations: sessions -> tasks and turns, turns -> episodic memories, observations ->
    semantic memories DERIVED_FROM their evidence turns, speakers -> entities. One namespace per sample."""
    from tqdm import tqdm

    from graphmem.importers.locomo import load_locomo, plan_locomo
    from graphmem.importers.runner import plan_units, run_plan
    from graphmem.service.factory import open_service

    chosen = [s for s in load_locomo(path) if not samples or s.sample_id in samples]
    plans = [plan_locomo(s) for s in chosen]

    async def run() -> None:
        async with open_service(Settings()) as service:
            with tqdm(total=sum(plan_units(p) for p in plans), unit="item", desc="import locomo") as bar:
                reports = [await run_plan(service, p, batch_size=batch, progress=bar.update) for p in plans]
        for report in reports:
            click.echo(report.line())

    asyncio.run(run())


@import_.command("jsonl")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--namespace", default=None, help="Namespace for lines that do not name one.")
@click.option("--batch", default=500, show_default=True)
@click.option("--no-dedupe", is_flag=True, help="Store near-duplicates as separate memories.")
def import_jsonl(path: str, namespace: str | None, batch: int, no_dedupe: bool) -> None:
    """Import memories from JSON Lines (one MemoryDraft object a line; give ids to make re-imports no-ops)."""
    from collections import defaultdict

    from tqdm import tqdm

    from graphmem.importers.jsonl import read_jsonl
    from graphmem.importers.runner import ImportReport, write_drafts
    from graphmem.models import MemoryDraft
    from graphmem.service.factory import open_service

    groups: dict[str, list[MemoryDraft]] = defaultdict(list)
    for draft in read_jsonl(path, default_namespace=namespace):
        groups[draft.namespace].append(draft)

    async def run() -> None:
        async with open_service(Settings()) as service:
            total = sum(len(g) for g in groups.values())
            with tqdm(total=total, unit="memory", desc="import jsonl") as bar:
                for ns, drafts in groups.items():
                    report = ImportReport(namespace=ns)
                    await write_drafts(service, drafts, report, batch_size=batch, dedupe=not no_dedupe,
                                       progress=bar.update)
                    click.echo(report.line())

    asyncio.run(run())
