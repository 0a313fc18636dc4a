"""The context stage of the formula rerank (pure): what the graph around a candidate says about it.

- **Turns around a hit** (``FOLLOWS``): a memory whose neighbour in time matches the query well is likely part of
  the same exchange (the answer after the question), so it gains ``w_before`` times the score of the memory it
  follows and ``w_after`` times the score of the one that follows it, among the candidates.
- **Its task** (``FROM_TASK``): a memory from a task whose other memories match gains ``w_task`` times the best of
  them (the session the question is about).
- **Its task's summary** (``retrieval.descend``): a memory whose task's summary is a candidate gains ``w_summary``
  times the summary's score (the session the question is about, said in one place). Summaries are not counted in
  the task term.
- **Provenance** (``DERIVED_FROM``): a result whose source turns are all among those of better results (a turn and
  the fact distilled from it) says nothing new; it moves after the others instead of taking a place.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence


def context_bonus(base: Mapping[str, float], before: Mapping[str, str | None], after: Mapping[str, str | None],
                  w_before: float, w_after: float, task: Mapping[str, str | None] | None = None,
                  w_task: float = 0.0, summaries: Collection[str] = (), w_summary: float = 0.0) -> dict[str, float]:
    """Per candidate: ``w_before * base[the memory it follows] + w_after * base[the memory that follows it]``,
    counting only neighbours that are candidates themselves (0 when none is), ``+ w_task *`` the best base of
    the other candidates of its task (``summaries`` not counted), ``+ w_summary *`` the best base of the
    ``summaries`` of its task among the candidates (a summary gains nothing from it)."""
    tasks = task or {}
    best: dict[str, list[tuple[float, str]]] = {}
    led: dict[str, float] = {}
    for mid, t in tasks.items():
        if t is None or mid not in base:
            continue
        if mid in summaries:
            led[t] = max(led.get(t, 0.0), base[mid])
        else:
            best.setdefault(t, []).append((base[mid], mid))
    for scores in best.values():
        scores.sort(key=lambda x: (-x[0], x[1]))
    out: dict[str, float] = {}
    for mid in base:
        prev, nxt = before.get(mid), after.get(mid)
        value = ((w_before * base[prev] if prev is not None and prev in base else 0.0)
                 + (w_after * base[nxt] if nxt is not None and nxt in base else 0.0))
        t = tasks.get(mid)
        if w_task and t is not None:
            others = [s for s, other in best.get(t, [])[:2] if other != mid]
            value += w_task * others[0] if others else 0.0
        if w_summary and t is not None and mid not in summaries:
            value += w_summary * led.get(t, 0.0)
        out[mid] = value
    return out


def fold_covered(order: Sequence[str], turns: Mapping[str, Sequence[str]]) -> tuple[list[str], dict[str, str]]:
    """``order`` with every result whose source turns are all covered by the results before it moved after the
    others (in their order); and, for each moved one, the first result that covered one of its turns."""
    seen: dict[str, str] = {}
    kept: list[str] = []
    moved: list[str] = []
    covered_by: dict[str, str] = {}
    for mid in order:
        own = list(turns.get(mid, ()))
        if own and all(t in seen for t in own):
            moved.append(mid)
            covered_by[mid] = seen[own[0]]
            continue
        for t in own:
            seen.setdefault(t, mid)
        kept.append(mid)
    return kept + moved, covered_by


__all__ = ["context_bonus", "fold_covered"]
