"""graphmem.heap: collect, then freeze what survived; nothing when turned off."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from graphmem.config import Settings
from graphmem.heap import settle


class Node:
    def __init__(self) -> None:
        self.me: Node | None = None


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def tracked(obj: object) -> bool:
    """Whether the collector's generations hold ``obj`` (frozen objects are in none of them)."""
    return any(o is obj for o in gc.get_objects())


def test_settle_collects_garbage_then_freezes_what_lives() -> None:
    garbage = Node()
    garbage.me = garbage  # a cycle: only the collector frees it
    gone = weakref.ref(garbage)
    del garbage
    live = Node()
    live.me = live
    done = settle(True)
    assert done is not None
    assert gone() is None  # collected before the freeze, not kept forever in the permanent generation
    assert done.collected >= 1
    assert not tracked(live)  # frozen: later collections skip it
    assert done.frozen == gc.get_freeze_count() > 0


def test_settle_again_freezes_only_what_is_new() -> None:
    first = settle(True)
    assert first is not None
    later = Node()
    later.me = later
    assert tracked(later)
    second = settle(True)
    assert second is not None
    assert not tracked(later)
    assert second.frozen > first.frozen


def test_settle_turned_off_does_nothing() -> None:
    live = Node()
    live.me = live
    assert settle(False) is None
    assert tracked(live)
    assert gc.get_freeze_count() == 0


def test_on_by_default_and_off_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_GC_FREEZE", raising=False)
    assert Settings().gc_freeze is True
    monkeypatch.setenv("GRAPHMEM_GC_FREEZE", "false")
    assert Settings().gc_freeze is False
