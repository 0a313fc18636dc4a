"""Prometheus metrics, JSON logs and request ids."""

from __future__ import annotations

import contextvars
import json
import logging
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram
from strawberry.extensions import SchemaExtension

from graphmem.security.signing import Verdict

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
LATENCY_BUCKETS = (0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24)
MAX_OPERATION_LABELS = 50
"""Client-chosen operation names labelled as themselves, besides the known ones; later new names are "other"."""
OPERATION_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]{0,63}")
LOG_FIELDS = ("path", "method", "status", "ms", "principal", "code", "operation", "field", "error")


if TYPE_CHECKING:
    from graphmem.consolidation import ConsolidationReport
    from graphmem.reflection import ReflectionReport


class Metrics:
    def __init__(self, *, known_operations: Iterable[str] = (), max_operation_labels: int = MAX_OPERATION_LABELS,
                 ) -> None:
        self.known_operations = frozenset(known_operations)
        self.max_operation_labels = max_operation_labels
        self._admitted: set[str] = set()
        self.registry = CollectorRegistry()
        self.http_requests = Counter("graphmem_http_requests_total", "HTTP requests", ["path", "status"],
                                     registry=self.registry)
        self.operations = Counter("graphmem_graphql_operations_total", "GraphQL operations by name and outcome",
                                  ["operation", "outcome"], registry=self.registry)
        self.operation_seconds = Histogram("graphmem_graphql_operation_seconds", "GraphQL operation latency",
                                           ["operation"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.search_stage_seconds = Histogram("graphmem_search_stage_seconds", "Search latency per stage",
                                              ["stage"], buckets=LATENCY_BUCKETS, registry=self.registry)

        self.reflections = Counter("graphmem_reflections_total", "Reflections by outcome (ok, replayed, error)",
                                   ["outcome"], registry=self.registry)
        self.reflection_seconds = Histogram("graphmem_reflection_seconds", "Reflection latency (LLM included)",
                                            buckets=(1, 5, 10, 30, 60, 120, 300, 600), registry=self.registry)
        self.llm_tokens = Counter("graphmem_llm_tokens_total", "LLM tokens spent by reflection", ["kind"],
                                  registry=self.registry)
        self.llm_calls = Counter("graphmem_llm_calls_total", "LLM calls made by reflection",
                                 registry=self.registry)
        self.integrity_failures = Counter("graphmem_integrity_failures_total",
                                          "Memories whose signature failed when read, by verdict", ["verdict"],
                                          registry=self.registry)
        self.consolidation_clusters = Counter("graphmem_consolidation_clusters_total",
                                              "Clusters of same-saying memories found by consolidation runs (not dry "
                                              "runs), by outcome (merged, skipped, failed)", ["outcome"],
                                              registry=self.registry)
        self.consolidation_merges = Counter("graphmem_consolidation_merges_total",
                                            "Clusters merged into one memory, by survivor (kept: the best-supported "
                                            "member; llm: a new memory with the LLM's text)", ["survivor"],
                                            registry=self.registry)
        self.consolidation_archived = Counter("graphmem_consolidation_archived_total",
                                              "Memories archived into their cluster's survivor (MERGED_INTO)",
                                              registry=self.registry)
        self.consolidation_llm_calls = Counter("graphmem_consolidation_llm_calls_total",
                                               "LLM calls made by consolidation (repair retries included)",
                                               registry=self.registry)
        self.maintenance_runs = Counter("graphmem_maintenance_runs_total",
                                        "Maintenance job runs (graphmem.lifecycle.worker) by job and outcome (ok, "
                                        "error)", ["job", "outcome"], registry=self.registry)
        self.maintenance_items = Counter("graphmem_maintenance_items_total",
                                         "What maintenance jobs changed, by job and item (lifecycle: expired, "
                                         "archived, purged, entities)", ["job", "item"], registry=self.registry)

    def observe_integrity_failure(self, namespace: str, memory_id: str, verdict: Verdict) -> None:
        self.integrity_failures.labels(verdict=verdict.value).inc()

    def observe_maintenance(self, job: str, outcome: str, counts: Mapping[str, int]) -> None:
        """One run of a maintenance job (the worker's observer); the item labels are the job's own count names."""
        self.maintenance_runs.labels(job=job, outcome=outcome).inc()
        for item, n in counts.items():
            if n > 0:
                self.maintenance_items.labels(job=job, item=item).inc(n)

    def observe_consolidation(self, report: ConsolidationReport) -> None:
        """One consolidation run that wrote (the Consolidator's observer)."""
        for plan in report.plans:
            self.consolidation_clusters.labels(outcome=plan.outcome.value).inc()
            if plan.outcome.value == "merged":
                self.consolidation_merges.labels(survivor=plan.merged_by.value).inc()
        self.consolidation_archived.inc(report.archived)
        self.consolidation_llm_calls.inc(report.llm_calls)

    def observe_reflection(self, outcome: str, report: ReflectionReport | None) -> None:
        self.reflections.labels(outcome=outcome).inc()
        if report is not None and not report.replayed:
            self.reflection_seconds.observe(report.latency_ms / 1000)
            self.llm_calls.inc(report.llm.calls)
            self.llm_tokens.labels(kind="prompt").inc(report.llm.prompt_tokens)
            self.llm_tokens.labels(kind="completion").inc(report.llm.completion_tokens)

    def operation_label(self, name: str | None, *, admit: bool) -> str:
        """The ``operation`` label of an operation named ``name`` by the client, from a bounded set.

        A known name (a root field's, as in graphql/operations/) is itself; so are the first
        ``max_operation_labels`` other valid names seen with ``admit`` (the document parsed);
        "anonymous" without a name; "other" for the rest. The label set can never grow past known + max + 2.
        """
        if not name:
            return "anonymous"
        if name in self.known_operations or name in self._admitted:
            return name
        if admit and len(self._admitted) < self.max_operation_labels and OPERATION_NAME.fullmatch(name):
            self._admitted.add(name)
            return name
        return "other"

    def observe_search(self, timings_ms: Mapping[str, float]) -> None:
        for stage, ms in timings_ms.items():
            self.search_stage_seconds.labels(stage=stage).observe(ms / 1000)


class OperationMetrics(SchemaExtension):
    """Counts and times each GraphQL operation by name (a bounded label: Metrics.operation_label); outcome is ok
    or error."""

    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        yield
        execution = self.execution_context
        metrics = getattr(execution.context, "metrics", None)
        if metrics is None:
            return
        result = execution.result
        outcome = "error" if result is not None and getattr(result, "errors", None) else "ok"
        name = metrics.operation_label(execution.operation_name, admit=execution.graphql_document is not None)
        metrics.operations.labels(operation=name, outcome=outcome).inc()
        metrics.operation_seconds.labels(operation=name).observe(time.perf_counter() - started)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        request_id = getattr(record, "request_id", None) or request_id_var.get()
        entry = {"ts": round(record.created, 3), "level": record.levelname, "logger": record.name,
                 "message": record.getMessage(), "request_id": request_id}
        for key in LOG_FIELDS:
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger("graphmem")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
