"""What the store does with signatures: seals every memory a write transaction changed (inside it), and checks every
memory a read hands on. One object per store, built from settings.

A memory that fails is dropped from what a read returns (``integrity_failures = "hide"``, the default) or returned
with its verdict in ``Memory.integrity`` (``"flag"``, an admin's choice); either way it is counted (listeners: the
``graphmem_integrity_failures_total`` metric) and logged: a memory checked alone with its id, the failures of one
read together, in one warning with their count by verdict and namespace and a few ids (a namespace written under a
key that is no longer listed would otherwise log a line per memory on every search). ``graphmem integrity check``
lists them all.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from graphmem.config import Settings
from graphmem.errors import ConfigError
from graphmem.security.signing import IntegrityMode, Signer, Verdict, parse_keys

log = logging.getLogger("graphmem.integrity")
M = TypeVar("M", bound=Mapping[str, Any])
EXAMPLES = 3
"""Ids named in the one warning of a read whose memories failed."""
FailureListener = Callable[[str, str, Verdict], None]
"""Called with (namespace, id, verdict) for every failed check."""


class Integrity:
    def __init__(self, signer: Signer | None, mode: IntegrityMode = IntegrityMode.HIDE) -> None:
        self.signer = signer
        self.mode = mode
        self.failures = 0
        self._listeners: list[FailureListener] = []

    @classmethod
    def from_settings(cls, settings: Settings) -> Integrity:
        """Refuses (``ConfigError``) when no key is set and signing is not explicitly disabled."""
        if settings.signing_disabled:
            return cls(None)
        if settings.signing_keys is None or not settings.signing_keys.get_secret_value().strip():
            raise ConfigError(
                "GRAPHMEM_SIGNING_KEYS is not set: memories are signed with HMAC-SHA256 and verified on every read. "
                "Set it to 'keyid:secret' (a secret of 16+ random characters, e.g. from `graphmem integrity new-key`)"
                ", or set GRAPHMEM_SIGNING_DISABLED=true to run without signatures")
        return cls(Signer(parse_keys(settings.signing_keys.get_secret_value())), settings.integrity_failures)

    @property
    def enabled(self) -> bool:
        return self.signer is not None

    def on_failure(self, listener: FailureListener) -> None:
        self._listeners.append(listener)

    def signature(self, data: Mapping[str, Any]) -> tuple[str | None, str | None]:
        """``(signature, key id)`` of a memory's signed fields; ``(None, None)`` when signing is disabled."""
        return self.signer.sign(data) if self.signer is not None else (None, None)

    def seal_rows(self, maps: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """``security/seal`` rows for memories as ``security/dirty`` reads them (unsigned when disabled)."""
        rows = []
        for data in maps:
            signature, key = self.signature(data)
            rows.append({"namespace": data["namespace"], "id": data["id"], "signature": signature, "key": key})
        return rows

    def sign_rows(self, rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Rows of new memories (``Memory.to_row``) with their signature and key id (None when disabled)."""
        out = []
        for row in rows:
            signature, key = self.signature(row)
            out.append({**row, "signature": signature, "signature_key": key})
        return out

    def verdict(self, data: Mapping[str, Any]) -> Verdict:
        return self.signer.verify(data) if self.signer is not None else Verdict.OK

    def passed(self, data: Mapping[str, Any]) -> bool:
        """Whether a memory passes (counting and logging it when not): for reads that only use memories."""
        verdict = self.verdict(data)
        if verdict is Verdict.OK:
            return True
        self._failed(data, verdict)
        return False

    def checked(self, maps: Iterable[M]) -> list[M]:
        """The memory maps a read may hand on: failures dropped, or kept with ``integrity`` set (flag mode); one
        warning for all of them."""
        out: list[M] = []
        failed: list[tuple[str, str, Verdict]] = []
        for data in maps:
            verdict = self.verdict(data)
            if verdict is Verdict.OK:
                out.append(data)
                continue
            failed.append(self._count(data, verdict))
            if self.mode is IntegrityMode.FLAG:
                out.append({**data, "integrity": verdict.value})  # type: ignore[arg-type]
        if failed:
            log.warning("integrity: %d memories of one read failed verification and were %s (%s; %s); e.g. %s; "
                        "`graphmem integrity check` lists them",
                        len(failed), "hidden" if self.mode is IntegrityMode.HIDE else "flagged",
                        _tally(v.value for _, _, v in failed), _tally(ns for ns, _, _ in failed),
                        ", ".join(f"{ns}/{mid}" for ns, mid, _ in failed[:EXAMPLES]))
        return out

    def _failed(self, data: Mapping[str, Any], verdict: Verdict) -> None:
        namespace, mid, _ = self._count(data, verdict)
        log.warning("integrity: memory %s/%s failed verification (%s)", namespace, mid, verdict.value)

    def _count(self, data: Mapping[str, Any], verdict: Verdict) -> tuple[str, str, Verdict]:
        self.failures += 1
        namespace, mid = str(data.get("namespace")), str(data.get("id"))
        for listener in self._listeners:
            listener(namespace, mid, verdict)
        return namespace, mid, verdict


def _tally(values: Iterable[str]) -> str:
    """``"unknown_key: 265, mismatch: 1"``: most common first."""
    return ", ".join(f"{value}: {n}" for value, n in Counter(values).most_common())


__all__ = ["Integrity", "IntegrityMode"]
