"""The auto-commit read's retry loop (store/autocommit), against a scripted stand-in for the driver: which
failures it tries again, how long, and that it returns the one row. The real Neo4j path of read_row runs in every
integration test that searches."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import exceptions as nx

from graphmem.store import autocommit
from graphmem.store.autocommit import read_one_row


class Record:
    def __init__(self, row: dict[str, Any]) -> None:
        self._row = row

    def keys(self) -> list[str]:
        return list(self._row)

    def values(self) -> list[Any]:
        return list(self._row.values())


class Result:
    def __init__(self, row: dict[str, Any]) -> None:
        self._row = row

    async def single(self, strict: bool = False) -> Record:
        assert strict
        return Record(self._row)


class Session:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def run(self, query: str, params: dict[str, Any]) -> Result:
        self.driver.runs += 1
        outcome = next(self.driver.script)
        if isinstance(outcome, Exception):
            raise outcome
        return Result({"echo": params["x"], "n": outcome})


class Driver:
    def __init__(self, script: Iterator[Any]) -> None:
        self.script = script
        self.runs = 0
        self.modes: list[str] = []
        self.bookmark_managers: list[object] = []

    def session(self, *, database: str, default_access_mode: str, bookmark_manager: object = None) -> Session:
        self.modes.append(default_access_mode)
        self.bookmark_managers.append(bookmark_manager)
        return Session(self)


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(autocommit, "FIRST_DELAY_S", 0.001)
    monkeypatch.setattr(autocommit, "MAX_DELAY_S", 0.004)


async def test_the_row_comes_back_from_a_read_session() -> None:
    driver = Driver(iter([7]))
    row = await read_one_row(driver, "neo4j", "RETURN 1", {"x": "a"}, retry_s=1.0)  # type: ignore[arg-type]
    assert row == {"echo": "a", "n": 7}
    assert driver.modes == ["READ"]
    assert driver.bookmark_managers == [None]


async def test_the_session_carries_the_bookmark_manager_it_is_given() -> None:
    driver = Driver(iter([7]))
    manager = object()
    await read_one_row(driver, "neo4j", "RETURN 1", {"x": "a"}, retry_s=1.0, bookmarks=manager)  # type: ignore[arg-type]
    assert driver.bookmark_managers == [manager]


async def test_a_dropped_connection_is_tried_again() -> None:
    driver = Driver(iter([nx.ServiceUnavailable("gone"), nx.SessionExpired("moved"), 3]))
    row = await read_one_row(driver, "neo4j", "RETURN 1", {"x": "b"}, retry_s=5.0)  # type: ignore[arg-type]
    assert row == {"echo": "b", "n": 3}
    assert driver.runs == 3


async def test_an_error_that_is_not_retryable_is_raised_at_once() -> None:
    driver = Driver(iter([nx.ResultNotSingleError("two rows"), 1]))
    with pytest.raises(nx.ResultNotSingleError):
        await read_one_row(driver, "neo4j", "RETURN 1", {"x": "c"}, retry_s=5.0)  # type: ignore[arg-type]
    assert driver.runs == 1


async def test_retries_stop_when_the_time_is_up() -> None:
    def forever() -> Iterator[Any]:
        while True:
            yield nx.ServiceUnavailable("still gone")

    driver = Driver(forever())
    with pytest.raises(nx.ServiceUnavailable):
        await read_one_row(driver, "neo4j", "RETURN 1", {"x": "d"}, retry_s=0.05)  # type: ignore[arg-type]
    assert 2 <= driver.runs < 60
