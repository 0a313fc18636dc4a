"""Consolidator: merges the memories of a namespace that say the same thing, one transaction per cluster.

Read the candidates (active memories of the consolidated kinds, verified), cluster them (``cluster``), then for
each cluster: ask the LLM for the merged text when one is configured (before any transaction; a bad answer keeps
the best-supported member instead, counted), plan it (``plan``) and write it in its own transaction (``apply``).
A cluster whose transaction fails is rolled back alone and reported; the run goes on with the next. Running again
changes nothing: archived members are no candidates any more, and a survivor alone is no cluster.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable

from graphmem.config import Settings
from graphmem.consolidation.apply import ClusterChanged, apply_cluster
from graphmem.consolidation.candidates import Candidates, read_candidates
from graphmem.consolidation.cluster import Cluster, Found, consolidation_eps, find_clusters
from graphmem.consolidation.llm_merge import merge_text
from graphmem.consolidation.plan import SOURCE, ClusterPlan, merged_id, plan_cluster
from graphmem.consolidation.report import ClusterReport, ConsolidationReport, Outcome
from graphmem.embed import expected_dimension
from graphmem.errors import GraphmemError, StoreUnavailableError
from graphmem.llm import LLMClient
from graphmem.models import MemoryDraft, MemoryStatus, trust_of, utcnow
from graphmem.service.memory_service import MemoryService
from graphmem.service.planning import WritePlan
from graphmem.service.tasks import check_namespace_arg
from graphmem.store.store import Tx

log = logging.getLogger("graphmem.consolidation")
Observer = Callable[[ConsolidationReport], None]


class Consolidator:
    def __init__(self, service: MemoryService, settings: Settings, llm: LLMClient | None = None, *,
                 observer: Observer | None = None) -> None:
        self.service = service
        self.settings = settings
        self.llm = llm
        self.observer = observer
        """Told each run's report that wrote (not dry runs): the /metrics counters."""

    @property
    def eps(self) -> float:
        return consolidation_eps(self.settings)

    async def find(self, namespace: str) -> tuple[Candidates, Found]:
        """The candidates of ``namespace`` and their clusters (reads only)."""
        candidates = await read_candidates(self.service.store, check_namespace_arg(namespace),
                                           self.settings.consolidation_kinds,
                                           page=self.settings.consolidation_page_size, now=utcnow(),
                                           dimension=expected_dimension(self.settings))
        return candidates, find_clusters(candidates.items, eps=self.eps,
                                         max_members=self.settings.consolidation_max_members)

    async def run(self, namespace: str, *, dry_run: bool = False) -> ConsolidationReport:
        """Consolidate ``namespace``; with ``dry_run`` only plan (no LLM call, nothing written)."""
        started = time.perf_counter()
        candidates, found = await self.find(namespace)
        tally = {"merged": 0, "archived": 0, "skipped": 0, "failed": 0, "llm_calls": 0, "llm_fallbacks": 0}
        plans: list[ClusterReport] = []
        llm = self.llm
        for cluster in found.clusters:
            if dry_run:
                plans.append(ClusterReport.of(self._dry_plan(namespace, cluster), Outcome.PLANNED))
                continue
            plan, merged, fallback, calls, llm_down = await self._prepare(namespace, cluster, llm)
            tally["llm_calls"] += calls
            tally["llm_fallbacks"] += fallback
            if llm_down:
                llm = None  # unreachable: the rest of the run keeps the best-supported members
            plans.append(await self._merge(plan, merged, tally))
        report = ConsolidationReport(
            namespace=namespace, dry_run=dry_run, eps=self.eps, kinds=tuple(self.settings.consolidation_kinds),
            candidates=len(candidates.items), groups=found.groups, split_off=found.split_off,
            clusters=len(found.clusters), plans=tuple(plans), seconds=round(time.perf_counter() - started, 3),
            **tally)
        log.info("consolidated %s: %s", namespace, report.lines()[-1])
        if not dry_run and self.observer is not None:
            self.observer(report)
        return report

    def _dry_plan(self, namespace: str, cluster: Cluster) -> ClusterPlan:
        plan = plan_cluster(cluster, namespace=namespace, alpha=self.settings.dedupe_alpha)
        if self.llm is None:
            return plan
        new = merged_id(namespace, cluster.ids)
        return dataclasses.replace(plan, reason=f"{plan.reason}; when run, the LLM writes the merged text (a new "
                                                f"memory {new})")

    async def _prepare(self, namespace: str, cluster: Cluster, llm: LLMClient | None,
                       ) -> tuple[ClusterPlan, WritePlan | None, int, int, bool]:
        """(plan, write plan of the merged memory or None, fell back (0/1), LLM calls, LLM unreachable)."""
        alpha = self.settings.dedupe_alpha
        if llm is None:
            return plan_cluster(cluster, namespace=namespace, alpha=alpha), None, 0, 0, False
        answer = await merge_text(llm, cluster, timeout=self.settings.consolidation_llm_timeout_s,
                                  max_tokens=self.settings.consolidation_llm_max_tokens)
        fallback = answer.error
        if answer.text is not None:
            plan = plan_cluster(cluster, namespace=namespace, alpha=alpha, text=answer.text)
            merged = await self._merged_write(plan, cluster)
            if merged is not None:
                return plan, merged, 0, answer.calls, False
            fallback = "the poisoning screen flagged the merged text"
        plan = plan_cluster(cluster, namespace=namespace, alpha=alpha, fallback=fallback)
        return plan, None, 1, answer.calls, answer.unavailable

    async def _merged_write(self, plan: ClusterPlan, cluster: Cluster) -> WritePlan | None:
        """The write path's plan of the merged memory (embedded, screened, its graph construction looked up), before
        the transaction; None when the screen flags it (a merge must not quarantine what was active). The merged
        text is made from every member's words: it carries the provenance of the least trusted of them."""
        least = min((c.memory for c in cluster.members), key=trust_of)
        draft = MemoryDraft(
            namespace=plan.namespace, kind=plan.kind, content=plan.text, id=plan.survivor_id,
            confidence=cluster.kept.memory.confidence, importance=plan.importance, tags=plan.tags, source=SOURCE,
            valid_from=plan.valid_from, valid_until=plan.valid_until, writer=least.writer, trust=least.trust)
        write = await self.service.plan_write([draft], dedupe=False)
        if any(m.status is MemoryStatus.QUARANTINED for m in write.creates):
            return None
        members = set(plan.member_ids)  # they are archived in the same transaction: no SIMILAR_TO to them
        write.similar_rows = [r for r in write.similar_rows if r["target_id"] not in members]
        return write

    async def _merge(self, plan: ClusterPlan, merged: WritePlan | None, tally: dict[str, int]) -> ClusterReport:
        """Write one cluster in its own transaction; a failure rolls back this cluster only."""
        at = utcnow()

        async def work(tx: Tx) -> int:
            return await apply_cluster(tx, plan, merged, at=at)

        try:
            archived = await self.service._transact(plan.namespace, "consolidate", work)
        except ClusterChanged as exc:
            tally["skipped"] += 1
            log.info("consolidation of %s skipped a cluster: %s", plan.namespace, exc)
            return ClusterReport.of(plan, Outcome.SKIPPED, str(exc))
        except StoreUnavailableError:
            raise  # Neo4j is down: every later cluster would fail too; what is committed stays, a rerun resumes
        except GraphmemError as exc:
            tally["failed"] += 1
            log.warning("consolidation of %s: a cluster failed (rolled back): %s", plan.namespace, exc)
            return ClusterReport.of(plan, Outcome.FAILED, f"{exc.code}: {exc}"[:500])
        tally["merged"] += 1
        tally["archived"] += archived
        return ClusterReport.of(plan, Outcome.MERGED)


__all__ = ["Consolidator", "Observer"]
