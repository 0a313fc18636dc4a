"""A small in-process result cache, invalidated per namespace by writes.

Each namespace has a version; a write bumps it; a cached search is valid only while the versions of the
namespaces it read are unchanged. (In-process: with several replicas, each keeps its own; entries also expire
after ``ttl_s`` so a write through another replica is seen within that time.)
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import Generic, TypeVar

V = TypeVar("V")


class NamespaceVersions:
    def __init__(self) -> None:
        self._versions: dict[str, int] = {}
        self._global = 0

    def bump(self, namespace: str | None = None) -> None:
        """A write happened in ``namespace`` (None: in any namespace, e.g. a sweep)."""
        if namespace is None:
            self._global += 1
            return
        self._versions[namespace] = self._versions.get(namespace, 0) + 1

    def of(self, namespaces: Iterable[str]) -> tuple[int, ...]:
        return (self._global, *(self._versions.get(ns, 0) for ns in namespaces))


class ResultCache(Generic[V]):
    def __init__(self, versions: NamespaceVersions, *, maxsize: int = 1024, ttl_s: float = 60.0) -> None:
        self.versions = versions
        self.maxsize = maxsize
        self.ttl_s = ttl_s
        self._items: OrderedDict[tuple[object, ...], tuple[float, tuple[int, ...], V]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[object, ...], namespaces: Iterable[str]) -> V | None:
        item = self._items.get(key)
        if item is not None:
            stamp, versions, value = item
            if time.monotonic() - stamp < self.ttl_s and versions == self.versions.of(namespaces):
                self._items.move_to_end(key)
                self.hits += 1
                return value
            del self._items[key]
        self.misses += 1
        return None

    def put(self, key: tuple[object, ...], namespaces: Iterable[str], value: V) -> None:
        self._items[key] = (time.monotonic(), self.versions.of(namespaces), value)
        self._items.move_to_end(key)
        while len(self._items) > self.maxsize:
            self._items.popitem(last=False)
