"""``graphmem export``: a namespace's graph as a file for other tools (GraphML for Gephi/yEd/Cytoscape, node-link
JSON for d3 or ``networkx.node_link_graph(data, name="key", edges="edges")``: the node key is under ``"key"``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from graphmem.cli.errors import CommandError
from graphmem.config import Settings
from graphmem.models import MemoryStatus, check_namespace


def _namespace(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        return check_namespace(value)
    except ValueError as exc:
        raise CommandError("INVALID_INPUT", str(exc)) from None


@click.command("export")
@click.argument("namespace", callback=_namespace)
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, writable=True),
              help="The file to write (its missing folders are created).")
@click.option("--format", "fmt", type=click.Choice(["graphml", "json"]), default="graphml", show_default=True)
@click.option("--status", "statuses", multiple=True, type=click.Choice([s.value for s in MemoryStatus]),
              help="Memory statuses to export (repeatable; default: active, superseded, archived).")
def export(namespace: str, out: str, fmt: str, statuses: tuple[str, ...]) -> None:
    """Export NAMESPACE (memories, entities, tasks, turns and their typed edges), page by page. Exits 1 when memories
    were left out because they fail verification under the current signing keys (the file holds the rest)."""
    import networkx as nx
    from tqdm import tqdm

    from graphmem.analysis import GraphFormat, export_namespace, write_graph
    from graphmem.analysis.export import DEFAULT_STATUSES
    from graphmem.importers.runner import unverified_hint
    from graphmem.store import Store

    wanted = tuple(MemoryStatus(s) for s in statuses) or DEFAULT_STATUSES
    target = Path(out)
    try:  # before the export reads anything: a folder that cannot be made fails at once
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError("INVALID_INPUT", f"cannot write {out}: {exc.strerror or exc}") from None

    async def run() -> nx.MultiDiGraph[str]:
        async with Store.connect(Settings()) as store:
            with tqdm(unit="node", desc=f"export {namespace}") as bar:
                def advance(n: int) -> None:
                    bar.update(n)

                return await export_namespace(store, namespace, statuses=wanted, progress=advance)

    graph = asyncio.run(run())
    try:
        write_graph(graph, target, GraphFormat(fmt))
    except OSError as exc:
        raise CommandError("INVALID_INPUT", f"cannot write {out}: {exc.strerror or exc}") from None
    click.echo(f"{namespace}: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges -> {out}")
    flagged = int(graph.graph.get("memories_flagged", 0))
    if flagged:
        click.echo(f"{namespace}: {flagged} memories fail verification and are exported flagged (their "
                   f"'integrity' attribute): graphmem integrity check --namespace {namespace} lists them", err=True)
    unverified = int(graph.graph.get("memories_unverified", 0))
    if unverified:
        click.echo(unverified_hint(namespace, unverified, exported=True), err=True)
        raise SystemExit(1)
