"""``graphmem eval``: retrieval evaluation on benchmark data."""

from __future__ import annotations

import asyncio

import click

from graphmem.config import Settings

CORPUS_CHOICES = ("turns+facts", "turns", "turns+reflection", "turns+facts+summaries", "turns+summaries")
"""``graphmem.eval.corpus.CORPORA``, spelt out: importing the harness here would slow every command's start."""


@click.group("eval")
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
@click.option("--corpus", type=click.Choice(list(CORPUS_CHOICES)), default="turns+facts",
              show_default=True,
              help="turns: the dialog turns only (what an agent has before reflection; own namespace); "
                   "turns+facts: LoCoMo's observations too; turns+reflection: the turns, then graphmem's own "
                   "reflection once per session, its facts and the session's summary (needs GRAPHMEM_LLM_BASE_URL; "
                   "sessions reflected before are skipped; own namespace); +summaries: LoCoMo's session summaries "
                   "as the sessions' summaries too (own namespaces).")
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
    from graphmem.eval.reflection import require_llm
    from graphmem.eval.report import render

    settings = Settings()
    require_llm(corpus, configured=llm_configured(settings))
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
