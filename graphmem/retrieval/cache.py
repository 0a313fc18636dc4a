"""The search result cache, invalidated per namespace by writes, correct across API replicas.

Each namespace has a version; a write bumps it; a cached search is valid only while the versions of the
namespaces it read are unchanged. Two kinds of versions make up a cached entry's stamp:

- shared ones, in Neo4j (``(:NamespaceVersion {key})``): every write transaction of the services ends with
  ``bump_step`` (``retrieval/bump_version``), and a search reads the versions of the namespaces it searches
  before anything else: in one small auto-commit read (``shared_versions``) when the cache holds an entry of its
  key to check, else as the first clause of its own statement (``retrieval/search``'s ``versions``; a search
  asked for the first time pays no extra round trip). Either way a write through any replica invalidates the
  cached searches of all of them as soon as it has committed. A namespace's version is the sum of
  ``VERSION_SHARDS`` counters (keys ``<namespace>#<shard>``, plus the unsharded ``<namespace>`` of older
  stores): a bump takes the write lock of ONE counter until its transaction commits, and this process's bumps
  go round the shards, so concurrent writes to one namespace do not queue behind one lock. The sum only grows,
  so it never goes back to a value a cache saw;
- local ones (``NamespaceVersions``), bumped by this process after each write it makes, also when the write
  failed (and by tools that write around the services, e.g. the LoCoMo evaluation's reset).

Entries also expire after ``ttl_s``: what the versions cannot see (a memory's expiry passing, an admin wipe)
ages out.
"""

from __future__ import annotations

import itertools
import random
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any, Generic, TypeVar

from graphmem.store import Step, Store

V = TypeVar("V")
ALL_NAMESPACES = "*"
"""The shared version key of writes to every namespace (a sweep); no namespace can be named so."""
BUMP = "retrieval/bump_version"
VERSION_SHARDS = 16
"""Counters per namespace version: up to this many writes to one namespace commit without waiting on each
other's bump (namespace names cannot hold ``#``, so ``<namespace>#<shard>`` is no other namespace's key)."""
_shards = itertools.count(random.randrange(VERSION_SHARDS))


def shard_keys(key: str) -> list[str]:
    """The counters whose sum is ``key``'s version: the unsharded one of older stores, then every shard."""
    return [key, *(f"{key}#{shard}" for shard in range(VERSION_SHARDS))]


def bump_step(namespace: str | None) -> Step:
    """The statement a write transaction of ``namespace`` (None: of every namespace) ends with: it bumps the
    next shard of this process's round (two writes in flight here never bump the same counter)."""
    key = ALL_NAMESPACES if namespace is None else namespace
    return Step(BUMP, {"keys": [f"{key}#{next(_shards) % VERSION_SHARDS}"]})


def version_keys(namespaces: Iterable[str]) -> list[str]:
    """The counters a search of ``namespaces`` reads: those of every namespace (``'*'``) and of each of them."""
    return [k for key in (ALL_NAMESPACES, *namespaces) for k in shard_keys(key)]


def versions_from(counters: Iterable[Sequence[Any]], namespaces: Iterable[str]) -> tuple[int, ...]:
    """The shared versions of every namespace and of ``namespaces``, in that order (0: never written), from the
    ``[key, version]`` pairs of the counters read (``retrieval/namespace_versions``, or ``retrieval/search``'s
    ``versions``)."""
    found = {str(key): int(version) for key, version in counters}
    return tuple(sum(found.get(k, 0) for k in shard_keys(key)) for key in (ALL_NAMESPACES, *namespaces))


async def shared_versions(store: Store, namespaces: Sequence[str]) -> tuple[int, ...]:
    """The shared versions of every namespace and of ``namespaces``, in that order (0: never written)."""
    row = await store.read_row("retrieval/namespace_versions", keys=version_keys(namespaces))
    return versions_from(row["versions"], namespaces)


class NamespaceVersions:
    """The local versions: what this process wrote."""

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

    def _stamp(self, namespaces: Iterable[str], shared: tuple[int, ...]) -> tuple[int, ...]:
        return (*self.versions.of(namespaces), *shared)

    def _live(self, key: tuple[object, ...]) -> tuple[float, tuple[int, ...], V] | None:
        """The entry of ``key`` while younger than the TTL (an older one is dropped)."""
        item = self._items.get(key)
        if item is not None and time.monotonic() - item[0] >= self.ttl_s:
            del self._items[key]
            return None
        return item

    def may_hold(self, key: tuple[object, ...]) -> bool:
        """Whether an entry of ``key`` is there and young enough to be served if its versions still hold: only
        then does a search read the versions before it runs (``get``). Otherwise the search reads them inside
        its own statement and this counts a miss."""
        if self._live(key) is not None:
            return True
        self.misses += 1
        return False

    def get(self, key: tuple[object, ...], namespaces: Iterable[str], shared: tuple[int, ...] = ()) -> V | None:
        """The cached value while the local and the ``shared`` versions (read before) are what they were."""
        item = self._live(key)
        if item is not None and item[1] == self._stamp(namespaces, shared):
            self._items.move_to_end(key)
            self.hits += 1
            return item[2]
        if item is not None:
            del self._items[key]
        self.misses += 1
        return None

    def put(self, key: tuple[object, ...], namespaces: Iterable[str], value: V,
            shared: tuple[int, ...] = ()) -> None:
        """Cache ``value``, stamped with the ``shared`` versions read BEFORE it was computed (a write that
        committed in between makes the next ``get`` miss, never serve a result older than its stamp)."""
        self._items[key] = (time.monotonic(), self._stamp(namespaces, shared), value)
        self._items.move_to_end(key)
        while len(self._items) > self.maxsize:
            self._items.popitem(last=False)
