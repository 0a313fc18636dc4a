"""``graphmem consolidate``: merge the memories of a namespace that say the same thing (or, with --dry-run, show
which would be merged)."""

from __future__ import annotations

import asyncio

import click

from graphmem.config import Settings


@click.command("consolidate")
@click.argument("namespace")
@click.option("--dry-run", is_flag=True, help="Print the clusters and the plan; write nothing, ask no LLM.")
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object instead of text.")
@click.option("--no-llm", is_flag=True, help="Keep each cluster's best-supported member even when "
                                             "GRAPHMEM_LLM_BASE_URL is set (no merged text).")
def consolidate(namespace: str, dry_run: bool, as_json: bool, no_llm: bool) -> None:
    """Merge NAMESPACE's memories that say the same thing: clusters of near-identical meaning (DBSCAN over the
    embeddings, GRAPHMEM_CONSOLIDATION_EPS) whose names, numbers, dates and negations agree. Each cluster becomes its
    best-supported member, or with an LLM configured a new memory with the merged text; the others are archived
    with a MERGED_INTO edge, never deleted. One transaction per cluster: a failed cluster is rolled back and
    reported, the run goes on (exit status 1 when one failed); a second run changes nothing."""
    from graphmem.consolidation import ConsolidationReport, Consolidator
    from graphmem.llm import LLMClient
    from graphmem.service.factory import open_service
    from graphmem.service.tasks import check_namespace_arg

    check_namespace_arg(namespace)

    async def run() -> ConsolidationReport:
        settings = Settings()
        llm = LLMClient(settings) if settings.llm_base_url and not no_llm else None
        try:
            async with open_service(settings) as service:
                return await Consolidator(service, settings, llm).run(namespace, dry_run=dry_run)
        finally:
            if llm is not None:
                await llm.close()

    report = asyncio.run(run())
    click.echo(report.model_dump_json(indent=2) if as_json else "\n".join(report.lines()))
    if report.failed:
        raise SystemExit(1)


__all__ = ["consolidate"]
