"""The circuit breaker's state machine and the store's circuit (retry loop + prober), on a fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from neo4j import exceptions as nx

from graphmem.errors import CircuitOpenError, ConfigError, ConflictError, StoreUnavailableError
from graphmem.store.breaker import Breaker, State
from graphmem.store.circuit import Circuit
from graphmem.store.errors import DATABASE_UNAVAILABLE, is_connection_failure, translate


class FakeClock:
    """Monotonic time that moves only when something sleeps on it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def state_of(breaker: Breaker) -> State:
    """The breaker's state, read afresh: mypy keeps an asserted ``breaker.state`` narrowed across the calls that
    change it."""
    return breaker.state


def neo4j_error(code: str) -> nx.Neo4jError:
    return nx.Neo4jError._hydrate_neo4j(code=code, message="from the server")


# --- the state machine --------------------------------------------------------------------------
def test_opens_only_after_n_consecutive_failures() -> None:
    clock = FakeClock()
    breaker = Breaker(3, 0.5, clock=clock)
    assert breaker.failure() is False
    assert breaker.failure() is False
    breaker.success()  # an answer in between: the count starts again
    assert breaker.failures == 0
    assert [breaker.failure() for _ in range(3)] == [False, False, True]
    assert breaker.state is State.OPEN
    assert breaker.opened == 1
    assert breaker.retry_after() == 0.5


def test_open_breaker_probes_at_most_every_probe_s() -> None:
    clock = FakeClock()
    breaker = Breaker(1, 0.5, clock=clock)
    breaker.failure()
    assert breaker.begin_probe() is False, "no probe before probe_s has passed"
    clock.now = 0.3
    assert breaker.retry_after() == pytest.approx(0.2)
    assert breaker.until_probe() == pytest.approx(0.2)
    clock.now = 0.5
    assert breaker.begin_probe() is True
    assert breaker.state is State.HALF_OPEN
    assert breaker.begin_probe() is False, "one probe at a time"
    breaker.failure()  # the probe failed
    assert state_of(breaker) is State.OPEN
    assert breaker.until_probe() == pytest.approx(0.5)
    clock.now = 1.0
    assert breaker.begin_probe() is True
    breaker.success()  # the probe answered
    assert breaker.closed
    assert breaker.retry_after() == 0.0


def test_failures_while_open_neither_reopen_nor_delay_the_probe() -> None:
    clock = FakeClock()
    breaker = Breaker(2, 1.0, clock=clock)
    breaker.failure()
    breaker.failure()
    clock.now = 0.9
    assert breaker.failure() is False  # late failures of calls that were in flight
    assert breaker.opened == 1
    clock.now = 1.0
    assert breaker.begin_probe() is True


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="threshold"):
        Breaker(0, 1.0)
    with pytest.raises(ValueError, match="threshold"):
        Breaker(1, 0.0)


# --- what feeds it ------------------------------------------------------------------------------
def test_refused_credentials_are_configuration_not_an_outage() -> None:
    error = translate(nx.AuthError("The client is unauthorized due to authentication failure."), what="connect")
    assert isinstance(error, ConfigError)
    assert "GRAPHMEM_NEO4J_PASSWORD" in str(error)


@pytest.mark.parametrize("exc", [
    nx.ServiceUnavailable("refused"), nx.SessionExpired("dropped"), nx.IncompleteCommit("lost at commit"),
    ConnectionRefusedError("refused"), neo4j_error(DATABASE_UNAVAILABLE),
])
def test_connection_failures(exc: Exception) -> None:
    assert is_connection_failure(exc)
    assert isinstance(translate(exc, what="memory/get"), StoreUnavailableError)


@pytest.mark.parametrize("exc", [
    nx.ConnectionAcquisitionTimeoutError("pool full"),
    neo4j_error("Neo.ClientError.Schema.ConstraintValidationFailed"),
    neo4j_error("Neo.TransientError.Transaction.DeadlockDetected"),
    neo4j_error("Neo.ClientError.Statement.SyntaxError"),
])
def test_not_connection_failures(exc: Exception) -> None:
    assert not is_connection_failure(exc)


# --- the circuit --------------------------------------------------------------------------------
def circuit(clock: FakeClock, ping: Callable[[], Awaitable[None]] | None = None, threshold: int = 3) -> Circuit:
    async def never_answers() -> None:
        raise nx.ServiceUnavailable("refused")

    return Circuit(Breaker(threshold, 0.5, clock=clock), ping or never_answers, retry_s=10.0,
                   probe_timeout_s=1.0, clock=clock, sleep=clock.sleep)


async def test_connection_failures_open_the_circuit_then_calls_fail_without_trying() -> None:
    clock = FakeClock()
    breaker_circuit = circuit(clock)
    tries = 0

    async def refused() -> int:
        nonlocal tries
        tries += 1
        raise nx.ServiceUnavailable("Couldn't connect to 127.0.0.1:7687")

    with pytest.raises(StoreUnavailableError) as first:
        await breaker_circuit.call("memory/get", refused)
    assert tries == 3, "retried while closed, given up when the breaker opened"
    assert not isinstance(first.value, CircuitOpenError)
    assert sum(clock.slept[:2]) < 1.0, "backoff of the first failures stays short"
    with pytest.raises(CircuitOpenError) as refused_now:
        await breaker_circuit.call("memory/get", refused)
    assert tries == 3, "an open circuit does not call Neo4j"
    assert refused_now.value.code == "UNAVAILABLE"
    assert 0 < refused_now.value.retry_after <= 0.5
    await breaker_circuit.close()


async def test_the_prober_closes_the_circuit_when_neo4j_answers_again() -> None:
    clock = FakeClock()
    pings = 0

    async def ping() -> None:
        nonlocal pings
        pings += 1
        if pings < 3:
            raise nx.ServiceUnavailable("still down")

    breaker_circuit = circuit(clock, ping, threshold=1)
    breaker_circuit.failed()
    assert not breaker_circuit.breaker.closed
    for _ in range(100):
        if breaker_circuit.breaker.closed:
            break
        await asyncio.sleep(0)
    assert breaker_circuit.breaker.closed, "recovered without a restart"
    assert pings == 3
    assert clock.slept.count(0.5) >= 2, "probes are probe_s apart"

    async def answer() -> str:
        return "ok"

    assert await breaker_circuit.call("memory/get", answer) == "ok"
    await breaker_circuit.close()


async def test_server_errors_are_answers_and_transient_ones_are_retried() -> None:
    clock = FakeClock()
    breaker_circuit = circuit(clock, threshold=1)
    outcomes: list[Exception | str] = [neo4j_error("Neo.TransientError.Transaction.DeadlockDetected"), "done"]

    async def deadlock_then_done() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    assert await breaker_circuit.call("memory/create", deadlock_then_done) == "done"

    async def constraint() -> str:
        raise neo4j_error("Neo.ClientError.Schema.ConstraintValidationFailed")

    with pytest.raises(ConflictError):
        await breaker_circuit.call("memory/create", constraint)
    assert breaker_circuit.breaker.closed, "the server answered: no connection failure"


async def test_a_readiness_probe_answers_within_its_time_limit() -> None:
    clock = FakeClock()
    breaker_circuit = circuit(clock, threshold=1)
    hang = asyncio.Event()

    async def no_answer() -> list[int]:
        await hang.wait()
        return [1]

    with pytest.raises(StoreUnavailableError, match="no answer"):
        await breaker_circuit.probe("admin/ping", no_answer, timeout_s=0.01)
    assert breaker_circuit.breaker.closed, "slow is not down"

    async def refused() -> list[int]:
        raise nx.ServiceUnavailable("refused")

    with pytest.raises(StoreUnavailableError):
        await breaker_circuit.probe("admin/ping", refused, timeout_s=1.0)
    with pytest.raises(CircuitOpenError):
        await breaker_circuit.probe("admin/ping", no_answer, timeout_s=1.0)
    await breaker_circuit.close()


def test_contention_past_the_retry_window_is_overloaded_not_internal() -> None:
    """A deadlock still there after every retry is contention: a coded, retryable OVERLOADED, never INTERNAL."""
    from graphmem.errors import OverloadedError

    error = translate(neo4j_error("Neo.TransientError.Transaction.DeadlockDetected"), what="memory/create")
    assert isinstance(error, OverloadedError)
    assert error.code == "OVERLOADED"
