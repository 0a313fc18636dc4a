"""The ``graphmem`` command line: local Neo4j management and database maintenance."""

from __future__ import annotations

import asyncio
import contextlib
import sys

import click

from graphmem.config import NEO4J_VERSION, Settings
from graphmem.errors import GraphmemError
from graphmem.neo4j_local import LocalNeo4j


def _human(size: int) -> str:
    return f"{size / 1_048_576:.1f} MiB"


@click.group()
def cli() -> None:
    """graphmem: graph memory for LLM agents."""


@cli.group()
def neo4j() -> None:
    """Fetch, start, stop and inspect the local Neo4j server (no Docker needed)."""


@neo4j.command("fetch")
def neo4j_fetch() -> None:
    """Download the Neo4j Community jars from Maven Central into the cache (once)."""
    result = LocalNeo4j(Settings()).fetch()
    state = "cached" if result.cached else "fetched"
    click.echo(f"Neo4j {NEO4J_VERSION} {state}: {result.jars} jars, {_human(result.bytes)} "
               f"in {result.seconds:.1f}s at {result.lib_dir}")


@neo4j.command("start")
@click.option("--no-auth", is_flag=True, help="Run with authentication off (tests only).")
def neo4j_start(no_auth: bool) -> None:
    """Start the server in the background and wait until Bolt answers; applies the schema."""
    from graphmem.store.admin import wait_ready

    settings = Settings()
    server = LocalNeo4j(settings, auth=not no_auth)
    if (running := server.status()).running:
        click.echo(f"Neo4j already running (pid {running.pid}): {running.bolt_uri}, {running.browser_url}")
        return
    server.fetch()
    status = server.start(ready=lambda: wait_ready(settings, auth=not no_auth, uri=server.bolt_uri))
    click.echo(f"Neo4j {NEO4J_VERSION} running (pid {status.pid})\n  bolt:    {status.bolt_uri}\n"
               f"  browser: {status.browser_url}")


@neo4j.command("stop")
def neo4j_stop() -> None:
    """Stop the server started by ``graphmem neo4j start``."""
    stopped = LocalNeo4j(Settings()).stop()
    click.echo("stopped" if stopped else "not running")


@neo4j.command("status")
def neo4j_status() -> None:
    """Say whether the local server runs; exit 1 when it does not."""
    status = LocalNeo4j(Settings()).status()
    if status.running:
        click.echo(f"running (pid {status.pid}) bolt={status.bolt_uri} browser={status.browser_url}")
    else:
        click.echo("not running")
        sys.exit(1)


@cli.command()
@click.option("--host", default=None, help="Bind address (default GRAPHMEM_API_HOST, 127.0.0.1).")
@click.option("--port", default=None, type=int, help="Port (default GRAPHMEM_API_PORT, 8000).")
@click.option("--demo", is_flag=True, help="Local demo mode: requests without a token act as the demo principal.")
def serve(host: str | None, port: int | None, demo: bool) -> None:
    """Serve the GraphQL API (GraphiQL at /graphql), /healthz, /readyz and /metrics."""
    import uvicorn

    from graphmem.api.app import create_app

    settings = Settings()
    if demo:
        settings = settings.model_copy(update={"demo_mode": True})
    app = create_app(settings)
    uvicorn.run(app, host=host or settings.api_host, port=port or settings.api_port, log_config=None,
                access_log=False)


@cli.group()
def db() -> None:
    """Database maintenance."""


@db.command("migrate")
def db_migrate() -> None:
    """Apply the schema (constraints, indexes, vector index) idempotently and record its version."""
    from graphmem.store import Store, migrate

    async def run() -> str:
        settings = Settings()
        async with Store.connect(settings) as store:
            info = await migrate(store, embedding_dim=settings_dim(settings))
        return f"schema version {info.version}, vector index {info.vector_dimensions} dims ({info.similarity})"

    click.echo(asyncio.run(run()))


@cli.group("import")
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


@cli.group("eval")
def eval_() -> None:
    """Retrieval evaluation on benchmark data (recall of evidence, MRR, latency per stage)."""


@eval_.command("locomo")
@click.option("--data", "data", required=True, type=click.Path(exists=True, dir_okay=False),
              help="LoCoMo JSON (a list of samples).")
@click.option("--sample", "samples", multiple=True, help="Only these sample ids (e.g. conv-26); default all.")
@click.option("--modes", default="vector,fused,expanded,formula,llm", show_default=True,
              help="Comma-separated search modes (llm runs only with GRAPHMEM_LLM_BASE_URL set; "
                   "all-channels: formula with the recency and popularity seeds too).")
@click.option("--sessions", type=click.IntRange(min=1), default=None,
              help="Cut each sample to its first N sessions (own namespace; quick runs).")
@click.option("--reimport", is_flag=True, help="Run the (idempotent) import even when the namespace is complete.")
@click.option("--corpus", type=click.Choice(["turns+facts", "turns"]), default="turns+facts", show_default=True,
              help="turns: the dialog turns only (what an agent has before reflection; own namespace); "
                   "turns+facts: LoCoMo's observations too.")
@click.option("--passes", type=click.IntRange(min=1), default=1, show_default=True,
              help="Ask the questions this many times in order, access counts kept (as the API records them); "
                   "later passes are reported beside the first.")
@click.option("--out", default="benchmarks/results/locomo_eval.json", show_default=True,
              type=click.Path(dir_okay=False), help="Where to write the JSON report.")
def eval_locomo(data: str, samples: tuple[str, ...], modes: str, sessions: int | None, reimport: bool,
                corpus: str, passes: int, out: str) -> None:
    """Import LoCoMo samples (namespace locomo-<sample>) and score retrieval per mode and question category, with
    access recording on, as the service records them."""
    import json
    from pathlib import Path

    from tqdm import tqdm

    from graphmem.eval.locomo import count_searches, evaluate, llm_configured, split_modes
    from graphmem.eval.report import render

    settings = Settings()
    wanted = [m.strip() for m in modes.split(",") if m.strip()]
    runnable, _ = split_modes(wanted, llm_configured=llm_configured(settings))
    total = count_searches(data, samples or None, runnable, sessions, passes)

    async def run() -> dict[str, object]:
        with tqdm(total=total, unit="query", desc="eval locomo") as bar:
            return await evaluate(settings, data, samples=samples or None, modes=wanted, reimport=reimport,
                                  sessions=sessions, progress=bar.update, note=click.echo, corpus=corpus,
                                  passes=passes)

    report = asyncio.run(run())
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    click.echo(render(report))
    click.echo(f"\nreport written to {out}")


@cli.group()
def token() -> None:
    """API tokens. Only their SHA-256 is stored; a token is shown once, when it is created."""


def _namespace_list(value: str) -> list[str]:
    return [ns.strip() for ns in value.split(",") if ns.strip()]


@token.command("create")
@click.option("--name", required=True, help="Unique name of the caller (rate-limit key, shown in logs).")
@click.option("--read", "read_", default="", help="Comma-separated namespaces it may read.")
@click.option("--write", default="", help="Comma-separated namespaces it may write (writing implies reading).")
@click.option("--shared", is_flag=True, help="May read the shared namespace (GRAPHMEM_SHARED_NAMESPACE).")
@click.option("--admin", is_flag=True, help="May read and write every namespace.")
@click.option("--file", "path", type=click.Path(dir_okay=False), default=None,
              help="Token file to append to (created if missing). Default: GRAPHMEM_TOKENS_FILE.")
def token_create(name: str, read_: str, write: str, shared: bool, admin: bool, path: str | None) -> None:
    """Create a token, append its hashed entry to the token file and print the token (once) on stdout."""
    from graphmem.errors import ConfigError
    from graphmem.security.tokens import add_token_entry, make_entry, new_token

    target = path or Settings().tokens_file
    if target is None:
        raise click.UsageError("give --file or set GRAPHMEM_TOKENS_FILE")
    reads, writes = _namespace_list(read_), _namespace_list(write)
    if not (reads or writes or shared or admin):
        raise click.UsageError("a token needs at least one of --read, --write, --shared, --admin")
    secret, digest = new_token()
    try:
        add_token_entry(target, make_entry(name, digest, read=reads, write=writes, shared=shared, admin=admin))
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(secret)
    click.echo(f"token {name!r} added to {target}; it is shown only now, store it safely", err=True)


@cli.group()
def schema() -> None:
    """The GraphQL schema."""


@schema.command("export")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the SDL to this file (e.g. graphql/schema.graphql) instead of stdout.")
def schema_export(out: str | None) -> None:
    """Print the GraphQL SDL of the API (what graphql/schema.graphql must hold; tests/unit/test_sdl.py checks)."""
    from pathlib import Path

    from graphmem.api.schema import schema as api_schema

    sdl = api_schema.as_str() + "\n"
    if out is None:
        click.echo(sdl, nl=False)
        return
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(sdl, encoding="utf-8")
    click.echo(f"schema written to {out}", err=True)


@db.command("reembed")
@click.option("--page", default=256, show_default=True, help="Memories embedded per transaction.")
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
            with tqdm(unit="memory", desc="re-embed") as bar:
                report = await reembed(store, embedder, page=page, progress=bar.update)
        click.echo(f"re-embedded {report.memories} memories with {settings.embedding_model} "
                   f"({report.dimension} dims); index {'rebuilt' if report.index_rebuilt else 'kept'}; "
                   f"schema version {report.schema.version}")

    asyncio.run(run())


@db.command("rebuild-graph")
@click.option("--namespace", "namespaces", multiple=True, help="Only these namespaces (default: every one).")
@click.option("--page", default=500, show_default=True, help="Memories per transaction.")
def db_rebuild_graph(namespaces: tuple[str, ...], page: int) -> None:
    """Run the write path's graph construction (entities from content, SIMILAR_TO, FOLLOWS) over stored memories:
    for graphs written before it, or after GRAPHMEM_GRAPH_* changed. Idempotent."""
    from tqdm import tqdm

    from graphmem.graph.construct import graph_options
    from graphmem.graph.rebuild import rebuild_graph
    from graphmem.store import Store

    async def run() -> None:
        settings = Settings()
        async with Store.connect(settings) as store:
            with tqdm(unit="memory", desc="rebuild graph") as bar:
                report = await rebuild_graph(store, graph_options(settings), namespaces=namespaces or None,
                                             similarity=settings.embedding_similarity, page=page,
                                             progress=bar.update)
        click.echo(report.line())

    asyncio.run(run())


@cli.group()
def reflect() -> None:
    """Hindsight reflection (needs GRAPHMEM_LLM_BASE_URL; scripts/llm-server.sh start runs a local model)."""


@reflect.command("task")
@click.argument("namespace")
@click.argument("task_id")
@click.option("--force", is_flag=True, help="Reflect again even if the task was reflected (writes nothing twice).")
def reflect_task(namespace: str, task_id: str, force: bool) -> None:
    """Reflect on one task now and print the report (JSON)."""
    from graphmem.llm import LLMClient
    from graphmem.reflection import ReflectionService
    from graphmem.service.factory import open_service

    async def run() -> str:
        settings = Settings()
        llm = LLMClient(settings)
        try:
            async with open_service(settings) as service:
                report = await ReflectionService(service, llm).reflect(namespace, task_id, force=force)
        finally:
            await llm.close()
        return report.model_dump_json(indent=2)

    click.echo(asyncio.run(run()))


@reflect.command("worker")
@click.option("--once", is_flag=True, help="Run one batch of queued tasks (whether due or not), then exit.")
@click.option("--namespace", "namespaces", multiple=True, help="Only tasks of these namespaces (default all).")
def reflect_worker(once: bool, namespaces: tuple[str, ...]) -> None:
    """Reflect on queued (ended) tasks: every GRAPHMEM_REFLECTION_BATCH_SIZE tasks or
    GRAPHMEM_REFLECTION_INTERVAL_S seconds, until Ctrl-C (or one batch with --once)."""
    from graphmem.llm import LLMClient
    from graphmem.reflection import ReflectionService
    from graphmem.reflection.worker import ReflectionWorker
    from graphmem.service.factory import open_service

    async def run() -> None:
        settings = Settings()
        llm = LLMClient(settings)
        try:
            async with open_service(settings) as service:
                worker = ReflectionWorker(ReflectionService(service, llm), namespaces=list(namespaces) or None)
                if once:
                    done = await worker.run_once(force=True)
                    click.echo(f"reflected {done} task(s), {worker.stats.failed} failed"
                               + (f" (last error: {worker.stats.last_error})" if worker.stats.last_error else ""))
                    return
                worker.start()
                try:
                    await asyncio.Event().wait()
                finally:
                    await worker.stop()
        finally:
            await llm.close()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


def settings_dim(settings: Settings) -> int:
    from graphmem.embed import embedding_dimension

    return embedding_dimension(settings)


def main() -> None:
    try:
        cli(standalone_mode=True)
    except GraphmemError as exc:
        click.echo(f"error [{exc.code}]: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
