"""Whole-store integrity work: list the memories whose signatures fail (``graphmem integrity check``) and re-sign
with the current key (``graphmem integrity resign``, for key rotation and for stores written before signing).

Resign never launders: a memory whose signature fails (changed outside graphmem, or signed by a key that is no
longer listed) is reported and left as it is; unsigned memories are signed only when asked (``unsigned=True``),
as that vouches for whatever they hold now. Both page through (namespace, id) order and can resume after a
cursor; resign is idempotent (a memory already signed by the current key is skipped), so running it again after
an interruption finishes the job.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from graphmem.errors import ConfigError
from graphmem.security.signing import Signer, Verdict, in_current_encoding
from graphmem.store import Store
from graphmem.store.store import Step

NO_SIGNER = ("signing is disabled (GRAPHMEM_SIGNING_DISABLED=true): there is no key to verify or sign memories "
             "with, so nothing would be checked. Set GRAPHMEM_SIGNING_KEYS to the keys that signed them (the first "
             "signs) and unset GRAPHMEM_SIGNING_DISABLED")


def signer_of(store: Store) -> Signer:
    """The store's signer; ``ConfigError`` when signing is disabled (every memory would pass unverified)."""
    if store.integrity.signer is None:
        raise ConfigError(NO_SIGNER)
    return store.integrity.signer


@dataclass(frozen=True)
class Failure:
    namespace: str
    id: str
    verdict: Verdict


@dataclass
class Tally:
    checked: int = 0
    resigned: int = 0
    failures: list[Failure] = field(default_factory=list)
    cursor: tuple[str, str] = ("", "")
    """The last (namespace, id) done: pass it as ``after`` to resume."""


async def pages(store: Store, namespace: str | None, page: int,
                after: tuple[str, str]) -> AsyncIterator[list[dict[str, object]]]:
    after_ns, after_id = after
    while True:
        rows = await store.read("security/page", namespace=namespace, after_ns=after_ns, after_id=after_id,
                                limit=page)
        if not rows:
            return
        maps = [r["memory"] for r in rows]
        yield maps
        after_ns, after_id = str(maps[-1]["namespace"]), str(maps[-1]["id"])


async def check(store: Store, *, namespace: str | None = None, page: int = 1000,
                after: tuple[str, str] = ("", "")) -> Tally:
    """Verify every memory (any status); failures listed, nothing changed. ``ConfigError`` without a signer."""
    signer = signer_of(store)
    tally = Tally(cursor=after)
    async for maps in pages(store, namespace, page, after):
        for data in maps:
            verdict = signer.verify(data)
            if verdict is not Verdict.OK:
                tally.failures.append(Failure(str(data["namespace"]), str(data["id"]), verdict))
        tally.checked += len(maps)
        tally.cursor = (str(maps[-1]["namespace"]), str(maps[-1]["id"]))
    return tally


async def resign(store: Store, *, namespace: str | None = None, page: int = 500, unsigned: bool = False,
                 after: tuple[str, str] = ("", "")) -> AsyncIterator[Tally]:
    """Re-sign, one transaction per page, with the current key: memories that verify with an older listed key or
    in an older encoding (``signing.VERSION``: gm2 did not sign metadata and titles), and (``unsigned``) unsigned
    ones. Yields the running tally after each page."""
    signer = signer_of(store)
    tally = Tally(cursor=after)
    async for maps in pages(store, namespace, page, after):
        todo = []
        for data in maps:
            verdict = signer.verify(data)
            stale = verdict is Verdict.OK and (data.get("signature_key") != signer.current.id
                                               or not in_current_encoding(data.get("signature")))
            if stale or (verdict is Verdict.UNSIGNED and unsigned):
                todo.append(data)
            elif verdict not in (Verdict.OK, Verdict.UNSIGNED):
                tally.failures.append(Failure(str(data["namespace"]), str(data["id"]), verdict))
        if todo:
            await store.write([Step("security/mark", {"rows": [{"namespace": d["namespace"], "id": d["id"]}
                                                              for d in todo]})])
        tally.checked += len(maps)
        tally.resigned += len(todo)
        tally.cursor = (str(maps[-1]["namespace"]), str(maps[-1]["id"]))
        yield tally


__all__ = ["NO_SIGNER", "Failure", "Tally", "check", "resign", "signer_of"]
