"""Trust through reflection on the real Neo4j (the model's answers scripted): a task carries the lowest trust of
the tokens that started it or logged its turns; the facts, lessons and summary reflection writes from it carry
that trust, and they cannot supersede a memory trusted more (no trust laundering through reflection)."""

from __future__ import annotations

from graphmem.models import MemoryDraft, MemoryKind, MemoryStatus, Role, Task
from graphmem.reflection import ReflectionService
from graphmem.service import MemoryService
from tests.integration.reflection_support import Script, scripted_llm
from tests.integration.test_reflection import MOVED


async def test_a_task_keeps_the_lowest_trust_that_wrote_into_it(service: MemoryService, namespace: str) -> None:
    task = await service.tasks.start(Task(namespace=namespace, title="t", writer="tok-owner", trust=1.0))
    assert (task.writer, task.trust) == ("tok-owner", 1.0)
    for trust, then in ((None, 1.0), (0.3, 0.3), (0.9, 0.3), (None, 0.3)):
        await service.tasks.log_turns(namespace, task.id, [(Role.USER, f"turn with trust {trust}")], trust=trust)
        assert (await service.tasks.get(namespace, task.id)).trust == then
    untracked = await service.tasks.start(Task(namespace=namespace, title="import"))
    await service.tasks.log_turns(namespace, untracked.id, [(Role.USER, "an imported turn")])
    assert (await service.tasks.get(namespace, untracked.id)).trust is None


async def test_reflection_on_a_low_trust_task_writes_low_trust_and_retires_nothing_trusted(
        service: MemoryService, namespace: str) -> None:
    written = await service.write_memories([
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=text, writer="tok-owner", trust=1.0)
        for text in ("The user lives in Paris.", "The user likes morning deliveries.")])
    paris = written.items[0].id
    task = await service.tasks.start(Task(namespace=namespace, title="Change the delivery address",
                                          writer="tok-chat", trust=0.3))
    await service.tasks.log_turns(namespace, task.id, [
        (Role.USER, "Please change my delivery address, I moved from Paris to Berlin."),
        (Role.ASSISTANT, "Done, deliveries now go to your Berlin address.")], trust=0.3)
    await service.tasks.end(namespace, task.id, outcome="address changed")
    script = Script([])
    reflector = ReflectionService(service, scripted_llm(service.settings, script))
    related = await reflector.related_memories(namespace, await service.tasks.turns(namespace, task.id))
    m_paris = f"M{[m.id for m in related].index(paris) + 1}"
    script.answers = Script([{**MOVED, "facts": [{**MOVED["facts"][0], "replaces": m_paris},
                                                 *MOVED["facts"][1:]]}]).answers
    report = await reflector.reflect(namespace, task.id)
    assert report.superseded == []
    assert report.supersedes_refused == 1
    assert (await service.get_memory(namespace, paris)).status is MemoryStatus.ACTIVE
    made = [*report.facts, *report.lessons, *([report.summary] if report.summary else [])]
    assert len(made) >= 3
    for item in made:
        memory = await service.get_memory(namespace, item.id)
        assert (memory.writer, memory.trust) == ("tok-chat", 0.3), item.content
