"""``graphmem lifecycle``: sweep one namespace by the life cycle policy now (expire, archive, purge)."""

from __future__ import annotations

import asyncio
import json

import click

from graphmem.config import Settings


@click.command("lifecycle")
@click.argument("namespace")
@click.option("--dry-run", is_flag=True, help="Count and list what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of lines.")
def lifecycle(namespace: str, dry_run: bool, as_json: bool) -> None:
    """Apply the life cycle policy to NAMESPACE: remove expired memories, archive old unused low-confidence ones
    (GRAPHMEM_ARCHIVE_AFTER_DAYS, GRAPHMEM_ARCHIVE_BELOW_CONFIDENCE) and purge memories deleted more than
    GRAPHMEM_PURGE_AFTER_DAYS ago. The maintenance worker (GRAPHMEM_MAINTENANCE_WORKER) runs this on a schedule."""
    from graphmem.embed import embedding_dimension
    from graphmem.lifecycle import LifecycleReport, Sweeper
    from graphmem.store import Store, migrate

    async def run() -> LifecycleReport:
        settings = Settings()
        async with Store.connect(settings) as store:
            await migrate(store, embedding_dim=embedding_dimension(settings))
            return await Sweeper(store, settings).run(namespace, dry_run=dry_run, list_ids=dry_run)

    report = asyncio.run(run())
    if as_json:
        click.echo(json.dumps({"namespace": report.namespace, "now": report.now.isoformat(),
                               "dry_run": report.dry_run, **report.counts(), "ms": report.ms,
                               **({"ids": report.ids} if dry_run else {})}))
        return
    for step, ids in report.ids.items():
        for memory_id in ids:
            click.echo(f"would {ACTIONS[step]} {memory_id}")
    line = f"{namespace}: expired {report.expired}, archived {report.archived}, purged {report.purged}"
    line += " (dry run: nothing written)" if dry_run else f", entities removed {report.entities}"
    click.echo(f"{line} in {report.ms:.0f} ms")


ACTIONS = {"expired": "remove (expired)", "archived": "archive", "purged": "purge"}
