"""An import into a namespace whose stored memories were signed under a key that is no longer listed: the import
says so (they stay hidden, as an import leaves stored ids as they are), the evaluation refuses to score it, and
``wipe_namespace`` clears the way for an import that every read sees again."""

from __future__ import annotations

import dataclasses

import pytest

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import ConfigError
from graphmem.eval.locomo_run import ensure_imported
from graphmem.importers.locomo import load_locomo, plan_locomo
from graphmem.importers.plan import ImportPlan
from graphmem.importers.runner import run_plan
from graphmem.retrieval.cache import shard_keys
from graphmem.retrieval.service import RetrievalService
from graphmem.retrieval.types import SearchOptions
from graphmem.security.integrity import Integrity
from graphmem.security.signing import Signer, SigningKey
from graphmem.service import MemoryService
from graphmem.service.integrity_ops import check
from graphmem.service.wipe import wipe_namespace
from graphmem.store import Store
from tests.integration.test_import import LOCOMO, snapshot

NEW_KEY = SigningKey("made-again", b"a-demo-key-made-again-0123456789")


def small_plan(namespace: str) -> ImportPlan:
    sample = load_locomo(LOCOMO)[0]
    return plan_locomo(dataclasses.replace(sample, sessions=sample.sessions[:1]), namespace=namespace)


async def version(store: Store, namespace: str) -> int:
    (row,) = await store.read("retrieval/namespace_versions", keys=shard_keys(namespace))
    return sum(int(v) for _, v in row["versions"])


async def test_an_import_over_memories_of_an_unlisted_key_says_so_and_a_wipe_clears_the_way(
        service: MemoryService, store: Store, embedder: Embedder, migrated: Settings, namespace: str) -> None:
    plan = small_plan(namespace)
    first = await run_plan(service, plan, batch_size=64)
    assert first.created > 0
    assert first.unverified == 0
    assert "fail verification" not in first.line()

    # the key is made again (a demo key file deleted): every stored memory fails, and importing again changes nothing
    again = Store(store.driver, migrated, integrity=Integrity(Signer([NEW_KEY])))
    service_again = MemoryService(again, embedder, migrated)
    stored = (await check(store, namespace=namespace)).checked
    second = await run_plan(service_again, plan, batch_size=64)
    assert second.created == 0
    assert second.unverified == stored > 0
    assert f"{stored} stored memories fail verification" in second.line()
    with pytest.raises(ConfigError, match=f"graphmem db wipe-namespace {namespace} --yes"):
        await ensure_imported(service_again, plan, reimport=False)  # scoring hidden memories would be wrong
    retriever = RetrievalService(again, embedder, migrated)
    question = "What did Caroline research?"
    options = SearchOptions(namespaces=(namespace,), k=5)
    assert (await retriever.search(question, options)).results == ()

    before = await version(again, namespace)
    deleted = await wipe_namespace(again, namespace, page=50)  # pages of 50: several transactions
    assert deleted > stored  # memories, and the namespace's tasks, turns and entities
    assert await snapshot(again, namespace) == []
    assert await version(again, namespace) > before  # no replica serves a cached result of the wiped namespace

    third = await run_plan(service_again, plan, batch_size=64)
    assert third.created == first.created
    assert third.unverified == 0
    assert (await ensure_imported(service_again, plan, reimport=False))["imported"] is False
    assert (await retriever.search(question, options)).results != ()
