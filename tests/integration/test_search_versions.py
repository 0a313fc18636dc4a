"""Where a search reads the namespace versions that stamp its cached result (``retrieval/cache.py``): real Neo4j,
the real store behind a wrapper that lists the statements it runs. A question asked for the first time reads them
inside its own statement (one round trip); one whose cached entry must be checked reads them first."""

from __future__ import annotations

from typing import Any

from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.retrieval.cache import shared_versions, versions_from
from graphmem.retrieval.oversample import Oversample
from graphmem.service import MemoryService
from graphmem.store import Store
from tests.integration.test_retrieval import ids, write

VERSIONS, SEARCH = "retrieval/namespace_versions", "retrieval/search"


class Listing(Store):
    """The real store, listing every read statement it runs, and the versions each search statement read."""

    ran: list[str]
    stamped: list[Any]

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.ran.append(name)
        return await super().read(name, **params)

    async def read_row(self, name: str, /, **params: Any) -> dict[str, Any]:
        self.ran.append(name)
        row = await super().read_row(name, **params)
        if name == SEARCH:
            self.stamped.append(row["versions"])
        return row


def _listing(store: Store) -> Listing:
    listing = Listing(store.driver, store.settings)
    listing.ran, listing.stamped = [], []
    return listing


async def test_a_new_question_reads_the_versions_in_its_statement(service: MemoryService, store: Store,
                                                                  namespace: str) -> None:
    (a,) = await write(service, namespace, "Ines tunes harps in Porto.")
    listing = _listing(store)
    replica = RetrievalService(listing, service.embedder, service.settings)
    opts = SearchOptions(namespaces=(namespace,), k=1)
    first = await replica.search("Who tunes harps?", opts)
    assert ids(first) == [a]
    assert not first.cached
    assert set(listing.ran) == {SEARCH}  # no version read of its own (more than one statement only while the
    # oversampling learns how many index rows other namespaces take: retrieval/oversample.py)
    assert versions_from(listing.stamped[0], [namespace]) == await shared_versions(store, [namespace])
    assert versions_from(listing.stamped[0], [namespace])[1] > 0, "the namespace was written: its version counts"

    listing.ran.clear()
    again = await replica.search("Who tunes harps?", opts)
    assert again.cached, "the statement's versions did not match the ones read to check the entry"
    assert listing.ran == [VERSIONS]

    (b,) = await write(service, namespace, "Ines also tunes old harps for the conservatory.")  # another replica
    listing.ran.clear()
    after = await replica.search("Who tunes harps?", SearchOptions(namespaces=(namespace,), k=2))
    assert set(listing.ran) == {SEARCH}  # other options: another key, no entry to check
    assert set(ids(after)) == {a, b}
    listing.ran.clear()
    stale = await replica.search("Who tunes harps?", opts)
    assert not stale.cached, "the other service's write was not seen"
    assert listing.ran[0] == VERSIONS  # the entry checked and found stale: the search runs
    assert set(listing.ran[1:]) == {SEARCH}
    assert listing.stamped[-1] == [], "versions read apart are not read again by the statement"
    assert set(ids(stale)) <= {a, b}


async def test_an_expired_entry_is_not_checked_and_a_stepwise_search_reads_the_versions_first(
        service: MemoryService, store: Store, namespace: str) -> None:
    (a,) = await write(service, namespace, "Ines tunes harps in Porto.")
    listing = _listing(store)
    replica = RetrievalService(listing, service.embedder, service.settings)
    opts = SearchOptions(namespaces=(namespace,), k=1)
    await replica.search("Who tunes harps?", opts)
    replica.cache.ttl_s = 0.0
    listing.ran.clear()
    assert not (await replica.search("Who tunes harps?", opts)).cached
    assert set(listing.ran) == {SEARCH}

    listing.ran.clear()
    deep = await replica.search("Who tunes harps?", SearchOptions(namespaces=(namespace,), k=1, hops=2))
    assert ids(deep) == [a]
    assert listing.ran[0] == VERSIONS  # the stepwise statements have no versions of their own
    assert SEARCH not in listing.ran
    replica.cache.ttl_s = 60.0
    listing.ran.clear()
    assert (await replica.search("Who tunes harps?", SearchOptions(namespaces=(namespace,), k=1, hops=2))).cached
    assert listing.ran == [VERSIONS]


async def test_a_statement_run_again_for_more_index_rows_does_not_read_the_versions_again(
        service: MemoryService, store: Store, namespace: str) -> None:
    """The oversampling's second statement (retrieval/oversample.py): its versions would be later than the
    first's, and the result is stamped with the first's."""
    (a,) = await write(service, namespace, "Ines tunes harps in Porto.")
    await write(service, f"{namespace}-crowd", *(f"Harp note {n}: Ines may tune it on day {n}." for n in range(40)))
    try:
        listing = _listing(store)
        replica = RetrievalService(listing, service.embedder, service.settings,
                                   oversample=Oversample(adaptive=False, factor=1))  # 30 rows: the crowd's
        opts = SearchOptions(namespaces=(namespace,), k=1)
        first = await replica.search("Who tunes harps?", opts)
        assert ids(first) == [a]
        assert listing.ran.count(SEARCH) > 1, "the statement was not run again: nothing to check"
        assert VERSIONS not in listing.ran
        assert versions_from(listing.stamped[0], [namespace]) == await shared_versions(store, [namespace])
        assert all(s == [] for s in listing.stamped[1:]), "a statement run again read the versions again"
        listing.ran.clear()
        assert (await replica.search("Who tunes harps?", opts)).cached, "stamped with other versions than read"
        assert listing.ran == [VERSIONS]
    finally:
        await store.wipe_namespace(f"{namespace}-crowd")
