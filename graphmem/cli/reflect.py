"""``graphmem reflect``: hindsight reflection on one task now, or the batched worker."""

from __future__ import annotations

import asyncio
import contextlib

import click

from graphmem.config import Settings


@click.group()
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
