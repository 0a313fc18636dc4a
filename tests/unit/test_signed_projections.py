"""Every statement that reads a memory's signature reads every field the signature covers.

A read that verifies signatures gets its fields from the statement's projection. A projection that left out a
signed field (or a field added to ``SIGNED_FIELDS`` but not to every projection) would make every memory it reads
fail verification, or worse, verify a value the statement never read. The projections are written out in several
statements (map projections, explicit maps); this test holds them all to ``SIGNED_FIELDS``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem.security.signing import SIGNED_FIELDS

CYPHER = Path(__file__).resolve().parents[2] / "cypher"
WRITERS = {"memory/create.cypher", "security/seal.cypher"}
"""Statements that write signatures rather than read them."""


def _readers() -> list[str]:
    found = []
    for path in sorted(CYPHER.rglob("*.cypher")):
        name = path.relative_to(CYPHER).as_posix()
        if name not in WRITERS and "signature_key" in _code(path.read_text(encoding="utf-8")):
            found.append(name)
    return found


def _code(text: str) -> str:
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def _named(code: str) -> set[str]:
    """Names a statement projects: ``.field`` in a map projection, ``field:`` as a map key."""
    return set(re.findall(r"\.(\w+)\b", code)) | set(re.findall(r"\b(\w+)\s*:", code))


def test_the_known_readers_are_found() -> None:
    readers = _readers()
    for expected in ("security/page.cypher", "memory/by_hash.cypher", "memory/nearest_stored.cypher",
                     "graph/neighborhood.cypher", "retrieval/candidates.cypher", "retrieval/search.cypher"):
        assert expected in readers


@pytest.mark.parametrize("name", _readers())
def test_every_signature_reader_projects_every_signed_field(name: str) -> None:
    named = _named(_code((CYPHER / name).read_text(encoding="utf-8")))
    missing = [f for f in (*SIGNED_FIELDS, "signature", "signature_key") if f not in named]
    assert not missing, f"{name} reads signatures but not {missing}"
