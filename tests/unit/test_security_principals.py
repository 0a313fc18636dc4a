"""Principals: which namespaces a token's principal may read and write, the shared namespace, admins, and
refusals that do not tell whether a namespace exists."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from graphmem.errors import ForbiddenError
from graphmem.security import Principal

pytestmark = pytest.mark.usefixtures("clean_security_env")  # tests/unit/conftest.py

ALICE = Principal("alice", read=frozenset({"alice-notes"}), write=frozenset({"alice"}), shared=True)
BOB = Principal("bob", read=frozenset({"bob"}), write=frozenset())
ADMIN = Principal("root", admin=True)


def test_write_implies_read() -> None:
    assert ALICE.can_read("alice")
    assert ALICE.can_write("alice")
    assert ALICE.can_read("alice-notes")
    assert not ALICE.can_write("alice-notes")
    assert not ALICE.can_read("bob")
    assert not ALICE.can_write("bob")


def test_shared_namespace_readable_only_with_shared_flag() -> None:
    assert ALICE.can_read("shared")
    assert not BOB.can_read("shared")
    other = Principal("x", shared=True, shared_namespace="common")
    assert other.can_read("common")
    assert not other.can_read("shared")


def test_shared_namespace_writable_only_by_admin_or_listed() -> None:
    assert not ALICE.can_write("shared")
    assert ADMIN.can_write("shared")
    writer = Principal("w", write=frozenset({"shared"}))
    assert writer.can_write("shared")
    assert writer.can_read("shared")


def test_admin_reads_and_writes_everything() -> None:
    for ns in ("alice", "bob", "shared", "anything"):
        assert ADMIN.can_read(ns)
        assert ADMIN.can_write(ns)
        ADMIN.require_read(ns)
        ADMIN.require_write(ns)


def test_require_raises_forbidden() -> None:
    ALICE.require_read("alice-notes")
    ALICE.require_write("alice")
    with pytest.raises(ForbiddenError, match="may not read"):
        ALICE.require_read("bob")
    with pytest.raises(ForbiddenError, match="may not write"):
        ALICE.require_write("alice-notes")


def _message(fn: Callable[[str], None], ns: str) -> str:
    with pytest.raises(ForbiddenError) as info:
        fn(ns)
    return str(info.value)


@pytest.mark.parametrize("method", ["require_read", "require_write"])
def test_refusal_does_not_tell_whether_the_namespace_exists(method: str) -> None:
    # "bob" exists (another token uses it), "no-such-ns" does not: the refusals have the same shape.
    fn = getattr(ALICE, method)
    existing, missing = _message(fn, "bob"), _message(fn, "no-such-ns")
    assert existing.replace("'bob'", "<ns>") == missing.replace("'no-such-ns'", "<ns>")
    for text in (existing, missing):
        assert "exist" not in text.lower()
        assert "not found" not in text.lower()


def test_refusal_message_is_bounded() -> None:
    assert len(_message(ALICE.require_read, "x" * 10_000)) < 200


def test_readable_none_merges_own_and_shared() -> None:
    assert ALICE.readable(None, "shared") == ("alice", "alice-notes", "shared")
    assert ALICE.readable() == ("alice", "alice-notes", "shared")
    assert BOB.readable(None, "shared") == ("bob",)
    listed = Principal("l", read=frozenset({"shared", "a"}), shared=True)
    assert listed.readable(None, "shared") == ("a", "shared")  # no duplicate


def test_readable_requested_keeps_order_drops_duplicates() -> None:
    assert ALICE.readable(["shared", "alice", "shared", "alice-notes"], "shared") == (
        "shared", "alice", "alice-notes")
    assert ALICE.readable([], "shared") == ()


def test_readable_refuses_any_unreadable_namespace() -> None:
    with pytest.raises(ForbiddenError, match="'bob'"):
        ALICE.readable(["alice", "bob"], "shared")
    with pytest.raises(ForbiddenError):
        BOB.readable(["shared"], "shared")


def test_readable_shared_ns_argument_wins() -> None:
    assert ALICE.readable(["common"], "common") == ("common",)
    with pytest.raises(ForbiddenError):
        ALICE.readable(["shared"], "common")


def test_admin_must_name_namespaces() -> None:
    with pytest.raises(ForbiddenError, match="name the namespaces"):
        ADMIN.readable(None, "shared")
    assert ADMIN.readable(["x", "y", "x"], "shared") == ("x", "y")


def test_readable_rejects_a_bare_string() -> None:
    with pytest.raises(TypeError):
        ALICE.readable("alice", "shared")
