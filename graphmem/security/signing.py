"""Signed memories: HMAC-SHA256 over a canonical encoding of a memory's meaning-bearing fields.

Someone with write access to Neo4j (bypassing graphmem) can change what an agent will read and act on; a
signature made with a key that the database never sees lets every read notice. The key id is stored beside the
signature (``signature_key``), so several keys can verify at once and rotation (``graphmem integrity resign``)
needs no flag day: the first key of ``GRAPHMEM_SIGNING_KEYS`` signs, every listed key verifies, a memory signed
with a key no longer listed fails.

The encoding is versioned (``gm3``, named in the stored signature; a bare hex signature is ``gm2``, or ``gm1`` for
memories without provenance, see ``VERSION`` and ``PROVENANCE_FIELDS``), one JSON array of the fields in a fixed
order, each value normalised the same way whichever way it was read back: Neo4j
``DateTime``, Python ``datetime`` or the ISO string that ``toString()`` gives are all the same UTC instant to the
microsecond; numbers are floats; lists keep their order. Access counts, timestamps of use and the embedding are not
signed: they change on every read, or are derived.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from neo4j.time import DateTime

from graphmem.errors import ConfigError

_GM2_FIELDS: tuple[str, ...] = (
    "id", "namespace", "kind", "content", "status", "confidence", "importance", "source", "sources", "tags",
    "created_at", "valid_from", "valid_until", "expires_at", "writer", "trust",
)
DESCRIPTIVE_FIELDS: tuple[str, ...] = ("metadata_json", "title")
"""What an agent is shown beside the content (the metadata, where a quarantine reason is kept too, and a summary's
title): signed from ``gm3`` on."""
SIGNED_FIELDS: tuple[str, ...] = (*_GM2_FIELDS, *DESCRIPTIVE_FIELDS)
"""What a signature covers (in this order). ``tests/unit/test_signing.py`` checks every one of them matters."""
PROVENANCE_FIELDS: tuple[str, ...] = ("writer", "trust")
"""Who wrote a memory and how far it is trusted (``graphmem.security.tokens``: a token's ``trust``): signed from
``gm2`` on. A memory written before them has neither and is signed ``gm1`` (the fields before them); one with either
is signed ``gm2`` over all of them. Removing both from a ``gm2`` memory does not make it a valid ``gm1`` one: its
signature was made over the other encoding."""
_LEGACY_FIELDS = _GM2_FIELDS[: -len(PROVENANCE_FIELDS)]
_TIMES = frozenset({"created_at", "valid_from", "valid_until", "expires_at"})
_NUMBERS = frozenset({"confidence", "importance", "trust"})
_LISTS = frozenset({"sources", "tags"})
VERSION = "gm3"
"""What ``Signer.sign`` writes: every field of ``SIGNED_FIELDS``. Its signature is stored as ``gm3:<hex>``; a bare
hex signature is an older encoding, ``gm2`` (the fields before ``DESCRIPTIVE_FIELDS``) or ``gm1`` (those before the
provenance too, for a memory without it), verified as such until ``graphmem integrity resign`` re-signs it."""
PROVENANCE_VERSION = "gm2"
LEGACY_VERSION = "gm1"
_PREFIX = VERSION + ":"
MIN_SECRET_CHARS = 16
_KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,32}")


class IntegrityMode(StrEnum):
    """What reads do with a memory that fails verification."""

    HIDE = "hide"
    FLAG = "flag"


class Verdict(StrEnum):
    OK = "ok"
    UNSIGNED = "unsigned"
    UNKNOWN_KEY = "unknown_key"
    MISMATCH = "mismatch"


@dataclass(frozen=True)
class SigningKey:
    id: str
    secret: bytes


def parse_keys(text: str) -> tuple[SigningKey, ...]:
    """``"kid1:secret1,kid2:secret2"`` (the first signs). Raises ``ConfigError`` on anything else."""
    keys: list[SigningKey] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        kid, sep, secret = part.partition(":")
        if not sep or not _KEY_ID.fullmatch(kid):
            raise ConfigError("GRAPHMEM_SIGNING_KEYS must be 'keyid:secret[,keyid:secret...]' (key ids: 1-32 of "
                              "letters, digits, '_', '.', '-')")
        if len(secret) < MIN_SECRET_CHARS:
            raise ConfigError(f"signing key {kid!r}: the secret must be at least {MIN_SECRET_CHARS} characters")
        if any(k.id == kid for k in keys):
            raise ConfigError(f"signing key id {kid!r} is listed twice")
        keys.append(SigningKey(kid, secret.encode()))
    if not keys:
        raise ConfigError("GRAPHMEM_SIGNING_KEYS lists no key")
    return tuple(keys)


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
"""Built once: ``json.dumps`` with these options builds a new encoder per call (a third of a verification)."""
_UTC_TIME = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z")
"""toString() of a UTC time: Neo4j drops the fraction's trailing zeros ("...:00Z", "...:00.12Z"), which padding
to six digits restores without parsing (most of a verification's time was parsing whole-second import times)."""


def _time(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and (utc := _UTC_TIME.fullmatch(value)) is not None:
        return f"{utc[1]}.{(utc[2] or '').ljust(6, '0')}Z"
    if isinstance(value, DateTime):
        value = value.to_native()
    if isinstance(value, str):
        # toString() of a time in a named zone ends in its name ("...Z[UTC]", "+08:00[Asia/Shanghai]"): the
        # offset before it fixes the instant
        value = datetime.fromisoformat(value.split("[", 1)[0])
    if not isinstance(value, datetime):
        raise TypeError(f"not a time: {value!r}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return str(value.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")) + "Z"


def _value(name: str, value: Any) -> Any:
    if value is None:
        return [] if name in _LISTS else None
    if name in _TIMES:
        return _time(value)
    if name in _NUMBERS:
        return float(value)
    if name in _LISTS:
        return [str(v) for v in value]
    return str(value)


def canonical(data: Mapping[str, Any], *, current: bool = True) -> bytes:
    """The bytes a signature is computed over: the version, then every signed field's normalised value. ``current``
    False: the encoding of a bare hex signature (``gm2`` without the descriptive fields; ``gm1`` without the
    provenance fields too, for a memory that has none of them)."""
    if current:
        values = [VERSION, *(_value(name, data.get(name)) for name in SIGNED_FIELDS)]
    elif all(data.get(name) is None for name in PROVENANCE_FIELDS):
        values = [LEGACY_VERSION, *(_value(name, data.get(name)) for name in _LEGACY_FIELDS)]
    else:
        values = [PROVENANCE_VERSION, *(_value(name, data.get(name)) for name in _GM2_FIELDS)]
    return _ENCODER.encode(values).encode()


class Signer:
    """Signs with the first key, verifies with any listed one. Pure and thread-safe."""

    def __init__(self, keys: Sequence[SigningKey]) -> None:
        if not keys:
            raise ConfigError("a signer needs at least one key")
        self.keys = tuple(keys)
        self.current = self.keys[0]
        self._by_id = {k.id: k.secret for k in self.keys}

    def sign(self, data: Mapping[str, Any]) -> tuple[str, str]:
        """(signature, ``gm3:`` and the hex, and key id) of a memory's fields."""
        return _PREFIX + _mac(self.current.secret, canonical(data)), self.current.id

    def verify(self, data: Mapping[str, Any]) -> Verdict:
        signature, key_id = data.get("signature"), data.get("signature_key")
        if not signature or not key_id:
            return Verdict.UNSIGNED
        secret = self._by_id.get(str(key_id))
        if secret is None:
            return Verdict.UNKNOWN_KEY
        signature = str(signature)
        current = signature.startswith(_PREFIX)  # a bare hex signature was made over an older encoding
        try:
            message = canonical(data, current=current)
        except (TypeError, ValueError):  # a field tampered into something of another type
            return Verdict.MISMATCH
        mac = signature[len(_PREFIX):] if current else signature
        return Verdict.OK if hmac.compare_digest(_mac(secret, message), mac) else Verdict.MISMATCH


def in_current_encoding(signature: object) -> bool:
    """Whether a stored signature was made over the current encoding (``VERSION``): else re-signing it with any key
    extends it to the fields the older one left out."""
    return str(signature or "").startswith(_PREFIX)


def _mac(secret: bytes, message: bytes) -> str:
    return hmac.digest(secret, message, hashlib.sha256).hex()


__all__ = ["DESCRIPTIVE_FIELDS", "PROVENANCE_FIELDS", "SIGNED_FIELDS", "IntegrityMode", "Signer", "SigningKey",
           "Verdict", "canonical", "in_current_encoding", "parse_keys"]
