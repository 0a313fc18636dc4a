"""Plain-text tables of an evaluation report (the dict ``graphmem.eval.locomo.evaluate`` returns)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

STAGES = ("embed", "graph", "seeds", "expand", "rerank", "total", "wall")


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    lines = ["  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths,
                                                                                                strict=True)))
             for r in (header, *rows)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _category_order(by_category: dict[str, Any], main: Sequence[int]) -> list[str]:
    cats = [str(c) for c in main if str(c) in by_category]
    rest = sorted(c for c in by_category if c not in cats and c != "all")
    return [*cats, "all", *rest]


def recall_table(report: dict[str, Any]) -> str:
    """Rows mode x category (the main categories, ``all`` of them, then the rest such as 5); recall@k, MRR, n."""
    ks = report["ks"]
    header = ["mode", "cat", *(f"R@{k}" for k in ks), "MRR", "n"]
    rows: list[list[str]] = []
    for mode, result in report["results"].items():
        table = result["by_category"]
        for cat in _category_order(table, report["main_categories"]):
            s = table[cat]
            label = "1-4" if cat == "all" else cat
            rows.append([mode, label, *(_num(s[f"recall@{k}"]) for k in ks), _num(s["mrr"]), str(s["n"])])
    return _table(header, rows)


def latency_table(report: dict[str, Any]) -> str:
    """Per mode: p50/p95 of each stage's milliseconds (``wall``: the whole call as the harness timed it)."""
    present = [s for s in STAGES if any(s in r["latency_ms"] for r in report["results"].values())]
    others = sorted({s for r in report["results"].values() for s in r["latency_ms"]} - set(present))
    stages = [*present, *others]
    header = ["mode", *(f"{s} p50/p95" for s in stages)]
    rows = []
    for mode, result in report["results"].items():
        lat = result["latency_ms"]
        rows.append([mode, *(f"{_num(lat[s]['p50'], 1)}/{_num(lat[s]['p95'], 1)}" if s in lat else "-"
                             for s in stages)])
    return _table(header, rows)


def summary_lines(report: dict[str, Any]) -> list[str]:
    q = report["questions"]
    lines = [
        f"samples {', '.join(report['samples'])}: {q['total']} questions, "
        f"{q['excluded_without_evidence']['total']} excluded without valid evidence "
        f"{q['excluded_without_evidence']['by_category']}, "
        f"{report['unmatched_evidence']['count']} evidence ids matching no turn",
    ]
    if report.get("integrity_failures"):
        lines.append(f"{report['integrity_failures']} reads of a memory failed signature verification (hidden from "
                     "the searches unless GRAPHMEM_INTEGRITY_FAILURES=flag, and a hidden one counts as missed): was "
                     "the corpus imported under other GRAPHMEM_SIGNING_KEYS? `graphmem integrity check` lists them")
    if report.get("retrieved_memories_reaching_no_turn"):
        lines.append(f"{report['retrieved_memories_reaching_no_turn']} retrieved memories reach no turn")
    for mode, why in report.get("skipped_modes", {}).items():
        lines.append(f"mode {mode} skipped: {why}")
    for mode, result in report["results"].items():
        if result["fallbacks"]:
            lines.append(f"mode {mode}: reranker fell back {result['fallbacks']}")
    return lines


def passes_table(report: dict[str, Any]) -> str:
    """Per mode and pass: categories 1-4 recall@k and MRR (access counts kept from the passes before)."""
    ks = report["ks"]
    header = ["mode", "pass", *(f"R@{k}" for k in ks), "MRR"]
    rows = [[mode, str(i), *(_num(p[f"recall@{k}"]) for k in ks), _num(p["mrr"])]
            for mode, result in report["results"].items() for i, p in enumerate(result.get("passes", []), 1)]
    return _table(header, rows)


def render(report: dict[str, Any]) -> str:
    parts = [*summary_lines(report), recall_table(report), "latency (ms)\n" + latency_table(report)]
    if report.get("passes", 1) > 1:
        parts.append("passes (categories 1-4; access counts kept)\n" + passes_table(report))
    return "\n\n".join(parts)
