"""``store.prepared_rows``: a statement that parses its row times itself (``datetime(row.x)``) gets them as ISO-8601
text (the driver packs a Python datetime slowly); rows are signed on the Python values first; other statements
get their rows unchanged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from graphmem.security.integrity import Integrity
from graphmem.security.signing import Signer, SigningKey
from graphmem.store.cypher import CypherLoader
from graphmem.store.store import prepared_rows

AT = datetime(2026, 12, 6, 0, 7, 21, 123456, tzinfo=UTC)


def integrity() -> Integrity:
    return Integrity(Signer([SigningKey("k1", b"0123456789abcdef0123456789abcdef")]))


def test_times_become_text_for_a_statement_that_parses_them() -> None:
    rows: list[dict[str, Any]] = [
        {"memory_id": "a", "at": AT, "weight": 0.5},
        {"memory_id": "b", "at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))},
        {"memory_id": "c", "at": datetime(2026, 1, 2, 3, 4, 5)},  # naive: taken as UTC, as signing takes it
        {"memory_id": "d", "at": None}]
    out = prepared_rows("UNWIND $rows AS row SET r.created_at = datetime(row.at)", rows, integrity())
    assert [r["at"] for r in out] == ["2026-12-06T00:07:21.123456+00:00", "2026-01-02T03:04:05+02:00",
                                      "2026-01-02T03:04:05+00:00", None]
    assert out[0]["weight"] == 0.5
    assert rows[0]["at"] is AT, "the caller's rows are not changed"


def test_a_statement_that_does_not_parse_times_gets_its_rows_as_they_are() -> None:
    rows = [{"id": "a", "at": AT}]
    assert prepared_rows("UNWIND $rows AS row SET m.updated_at = row.at", rows, integrity()) == rows


def test_a_created_memory_is_signed_on_its_python_times_and_sent_as_text() -> None:
    query = CypherLoader()("memory/create")
    row = {"id": "m1", "namespace": "ns", "kind": "semantic", "content": "x", "status": "active",
           "confidence": 1.0, "importance": 0.5, "source": None, "sources": [], "tags": [], "created_at": AT,
           "valid_from": AT, "valid_until": None, "expires_at": None, "writer": None, "trust": None}
    (out,) = prepared_rows(query, [row], integrity())
    assert out["created_at"] == AT.isoformat()
    (signed,) = integrity().sign_rows([row])
    assert out["signature"] == signed["signature"]
    assert integrity().passed({**row, "signature": out["signature"], "signature_key": out["signature_key"]})
