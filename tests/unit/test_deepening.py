"""``oversample.deepening``: the per-row vector lookups (dedupe, SIMILAR_TO) ask again, deeper, only for the rows
whose index answer may hide more of their namespace, and stop at MAX_OVERSAMPLE."""

from __future__ import annotations

from typing import Any

from graphmem.retrieval.oversample import MAX_OVERSAMPLE, deepening


async def test_only_rows_that_may_hide_more_are_asked_again_deeper_until_the_cap() -> None:
    asked: list[tuple[list[int], int]] = []

    async def read(todo: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
        asked.append(([r["idx"] for r in todo], k))
        # row 0 is full at once; row 1 keeps finding one more and says there may be more; row 2 has nothing more
        return [{"idx": r["idx"], "hits": ["a", "b"] if r["idx"] == 0 else ["a"] * (len(asked)) if r["idx"] == 1
                 else [], "more": r["idx"] == 1} for r in todo]

    rows = await deepening(read, [{"idx": i} for i in range(3)], 20, per_row=2, found="hits")
    assert asked[:2] == [([0, 1, 2], 20), ([1], 80)]
    assert [r["idx"] for r in rows] == [0, 1, 2, 1], "the deeper answer of row 1 comes last"
    assert rows[-1]["hits"] == ["a", "a"]
    assert len(asked) == 2, "row 1 has per_row hits now: not asked again"


async def test_the_depth_stops_at_the_cap() -> None:
    ks: list[int] = []

    async def read(todo: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
        ks.append(k)
        return [{"idx": 0, "hits": [], "more": True}]

    await deepening(read, [{"idx": 0}], 20, per_row=1, found="hits")
    assert ks[-1] == MAX_OVERSAMPLE
    assert ks == sorted(ks)
    assert len(ks) == len(set(ks))


async def test_a_row_is_asked_again_when_any_of_its_lists_may_hide_more() -> None:
    asked: list[list[int]] = []

    async def read(todo: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
        asked.append([r["idx"] for r in todo])
        # row 0: duplicates full, similar short but maybe more behind; row 1: similar short, nothing more behind
        return [{"idx": r["idx"], "hits": ["a"], "more": r["idx"] == 0, "similar": [],
                 "more_similar": r["idx"] == 0 and len(asked) == 1} for r in todo]

    rows = await deepening(read, [{"idx": 0}, {"idx": 1}], 20, per_row=1, found="hits",
                           also=[("similar", "more_similar", 3)])
    assert asked == [[0, 1], [0]]
    assert [r["idx"] for r in rows] == [0, 1, 0]
