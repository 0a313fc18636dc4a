"""``graphmem export``: a namespace's graph as a file for other tools (GraphML for Gephi/yEd/Cytoscape, node-link
JSON for d3 or ``networkx.node_link_graph``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from graphmem.config import Settings
from graphmem.models import MemoryStatus


@click.command("export")
@click.argument("namespace")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, writable=True),
              help="The file to write.")
@click.option("--format", "fmt", type=click.Choice(["graphml", "json"]), default="graphml", show_default=True)
@click.option("--status", "statuses", multiple=True, type=click.Choice([s.value for s in MemoryStatus]),
              help="Memory statuses to export (repeatable; default: active, superseded, archived).")
def export(namespace: str, out: str, fmt: str, statuses: tuple[str, ...]) -> None:
    """Export NAMESPACE (memories, entities, tasks, turns and their typed edges), page by page."""
    from tqdm import tqdm

    from graphmem.analysis import GraphFormat, export_namespace, write_graph
    from graphmem.analysis.export import DEFAULT_STATUSES
    from graphmem.store import Store

    wanted = tuple(MemoryStatus(s) for s in statuses) or DEFAULT_STATUSES

    async def run() -> tuple[int, int]:
        async with Store.connect(Settings()) as store:
            with tqdm(unit="node", desc=f"export {namespace}") as bar:
                def advance(n: int) -> None:
                    bar.update(n)

                graph = await export_namespace(store, namespace, statuses=wanted, progress=advance)
        write_graph(graph, Path(out), GraphFormat(fmt))
        return graph.number_of_nodes(), graph.number_of_edges()

    nodes, edges = asyncio.run(run())
    click.echo(f"{namespace}: {nodes} nodes, {edges} edges -> {out}")
