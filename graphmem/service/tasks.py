"""Tasks and their turns: the full interaction log an agent keeps for audit and reflection."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.errors import ConflictError, NotFoundError, ValidationError
from graphmem.models import Role, Task, TaskStatus, Turn, check_namespace, utcnow
from graphmem.service.idempotency import IdempotentWriter
from graphmem.store import Step
from graphmem.store.records import native
from graphmem.store.store import Tx


def check_namespace_arg(namespace: str) -> str:
    try:
        return check_namespace(namespace)
    except ValueError as exc:
        raise ValidationError(str(exc), field="namespace") from None


def task_from_map(data: dict[str, Any]) -> Task:
    return Task.model_validate({k: native(v) for k, v in data.items() if k in Task.model_fields})


def turn_from_map(data: dict[str, Any]) -> Turn:
    return Turn.model_validate({k: native(v) for k, v in data.items() if k in Turn.model_fields})


def numbered(task_id: str, turns: Sequence[tuple[Role, str] | Turn], next_seq: int, at: datetime) -> list[Turn]:
    """``turns`` as Turn objects: pairs numbered from ``next_seq`` in order, full turns as given."""
    built: list[Turn] = []
    for i, item in enumerate(turns):
        if isinstance(item, Turn):
            built.append(item)
            continue
        role, content = item
        try:
            built.append(Turn(task_id=task_id, seq=next_seq + i, role=Role(role), content=content, at=at))
        except ValueError as exc:
            raise ValidationError(str(exc).splitlines()[0], item=i) from None
    return built


class TaskService(IdempotentWriter):
    async def start(self, task: Task, *, request_id: str | None = None) -> Task:
        """Open a task (idempotent on its id in the namespace; another namespace's task of that id is another task).
        The id of a task stored with another agent or title is CONFLICT (it was returned as it was, silently)."""
        row = task.model_dump(mode="python")
        row["status"] = task.status.value
        payload = {"task": task.model_dump(mode="json", exclude={"started_at"})}  # a retry has a new clock
        await self._apply(task.namespace, request_id, "start_task", payload,
                          [Step("task/start", {"row": row})], "null")
        stored = await self.get(task.namespace, task.id)
        if stored.agent != task.agent or (task.title is not None and stored.title != task.title):
            raise ConflictError(f"task {task.id!r} exists with another agent or title (agent {stored.agent!r}, title "
                                f"{stored.title!r}): pick another id, or start it as it was")
        return stored

    async def log_turns(
        self, namespace: str, task_id: str, turns: Sequence[tuple[Role, str] | Turn], *,
        request_id: str | None = None, at: datetime | None = None, trust: float | None = None,
    ) -> list[Turn]:
        """Append turns (``(role, content)`` pairs numbered after the last turn, or full ``Turn`` objects);
        ``trust`` (the logging token's) lowers the task's trust when it is lower (``Task.trust``). The numbers are
        taken inside the write transaction, under the task's lock: concurrent appends never share a number, and
        each keeps its turns together."""
        check_namespace_arg(namespace)
        if not turns:
            raise ValidationError("no turns given")
        for i, item in enumerate(turns):
            if isinstance(item, Turn):
                if item.task_id != task_id:
                    raise ValidationError(f"turn belongs to task {item.task_id!r}", item=i)
            elif not item[1].strip():  # a pair carries no tool calls: a blank one says nothing to reflect on
                raise ValidationError("content is blank", item=i)
        payload = {"task": task_id, "turns": [t.model_dump(mode="json") if isinstance(t, Turn)
                                              else [Role(t[0]).value, t[1]] for t in turns]}
        when = at or utcnow()

        async def append(tx: Tx) -> str:
            head = await tx.run("task/lock_head", id=task_id, namespace=namespace)
            if not head:
                raise NotFoundError(f"task {task_id!r} not found in {namespace!r}")
            if head[0]["status"] == TaskStatus.ENDED.value and not all(isinstance(t, Turn) for t in turns):
                raise ConflictError(f"task {task_id!r} has ended: no more turns")
            built = numbered(task_id, turns, int(head[0]["next_seq"]), when)
            rows = [{**t.model_dump(mode="python"), "role": t.role.value} for t in built]
            await tx.run("task/log_turns", rows=rows, namespace=namespace, trust=trust)
            return json.dumps([t.model_dump(mode="json") for t in built])

        stored, _ = await self._apply_tx(namespace, request_id, "log_turns", payload, append)
        return [Turn.model_validate(x) for x in json.loads(stored)]

    async def end(self, namespace: str, task_id: str, *, outcome: str | None = None) -> Task:
        """End a task (again: a no-op that returns it; another outcome is CONFLICT, the first one stays)."""
        check_namespace_arg(namespace)
        (rows,) = await self._write(namespace, [Step("task/end", {
            "id": task_id, "namespace": namespace, "outcome": outcome, "at": utcnow()})])
        if not rows:
            raise NotFoundError(f"task {task_id!r} not found in {namespace!r}")
        if rows[0]["ended_before"] and outcome is not None and outcome != rows[0]["outcome_before"]:
            raise ConflictError(f"task {task_id!r} has ended with another outcome, which it keeps")
        return task_from_map(rows[0]["task"])

    async def get(self, namespace: str, task_id: str) -> Task:
        rows = await self.store.read("task/get", id=task_id, namespace=check_namespace_arg(namespace))
        if not rows:
            raise NotFoundError(f"task {task_id!r} not found in {namespace!r}")
        return task_from_map(rows[0]["task"])

    async def turns(self, namespace: str, task_id: str) -> list[Turn]:
        rows = await self.store.read("task/get", id=task_id, namespace=check_namespace_arg(namespace))
        if not rows:
            raise NotFoundError(f"task {task_id!r} not found in {namespace!r}")
        return [turn_from_map(t) for t in rows[0]["turns"]]
