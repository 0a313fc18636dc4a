"""Memories as MCP resources (``memory://<namespace>/<id>``, JSON) and the prompt that teaches an agent the
memory loop: search before answering, log the turns, end the task to reflect."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from mcp.types import (
    GetPromptResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    Resource,
    ResourceTemplate,
    TextContent,
    TextResourceContents,
)

from graphmem.errors import ValidationError
from graphmem.mcp.outputs import Memory, memory_uri
from graphmem.service.scoped import ScopedService

SCHEME = "memory"
TEMPLATE = ResourceTemplate(name="memory", title="A memory", uri_template="memory://{namespace}/{id}",
                            mime_type="application/json",
                            description="One memory of a namespace you may read, as JSON (the fields of "
                                        "memory_get).")
LISTED_PER_NAMESPACE = 20
"""resources/list shows the newest memories of each namespace the token reads (its own and the shared one)."""


def parse_uri(uri: str) -> tuple[str, str]:
    """``(namespace, id)`` of ``memory://<namespace>/<id>`` (INVALID_INPUT for anything else)."""
    parts = urlsplit(uri)
    memory_id = unquote(parts.path.lstrip("/"))
    if parts.scheme != SCHEME or not parts.netloc or not memory_id or "/" in memory_id or parts.query:
        raise ValidationError(f"not a memory URI (memory://<namespace>/<id>): {uri[:200]!r}", field="uri")
    return parts.netloc, memory_id


async def read(service: ScopedService, uri: str) -> TextResourceContents:
    namespace, memory_id = parse_uri(uri)
    memory = Memory.of(await service.get_memory(memory_id, namespace))
    return TextResourceContents(uri=uri, mime_type="application/json", text=memory.model_dump_json())


async def listed(service: ScopedService, namespaces: tuple[str, ...]) -> list[Resource]:
    out: list[Resource] = []
    for ns in namespaces:
        page = await service.memories(ns, first=LISTED_PER_NAMESPACE)
        out += [Resource(name=f"{m.kind.value}: {m.content[:60]}", uri=memory_uri(m.namespace, m.id),
                         mime_type="application/json", description=m.content[:200]) for m in page.items]
    return out


PROMPT_NAME = "use_memory"
PROMPT = Prompt(name=PROMPT_NAME, title="Use graphmem as your memory",
                description="How to use the memory tools in a session: search first, log turns, end to reflect.",
                arguments=[PromptArgument(name="task", description="What you are about to work on.",
                                          required=False)])
INSTRUCTIONS = """\
graphmem is your long-term memory: a graph of facts, episodes and lessons that outlives this conversation.

1. Before you answer anything that may depend on earlier work, the user's preferences or past mistakes, call
   memory_search with the question in words. Results carry a score, and a path when they were reached over
   edges from a direct hit; prefer recent, high-scoring memories, and say when memory and the user disagree.
2. Open a task for the work with task_start (title: what it is), and log each exchange with task_log (role
   user / assistant / tool, the text). Give request_id values so that retries write nothing twice.
3. When you learn a durable fact or rule, store it with memory_write as one self-contained sentence (kind
   semantic; lesson for a mistake to avoid). Relate memories with memory_relate (SUPPORTS, CONTRADICTS,
   SUPERSEDES, ...) when you know how they connect.
4. When the work is done, call task_end with the outcome and reflect: true: the log is distilled into facts
   and lessons for next time (slow: it calls an LLM).
Errors come back as tool results whose text starts with a code: FORBIDDEN (that namespace is not yours),
NOT_FOUND, INVALID_INPUT (fix the arguments), RATE_LIMITED (wait retry_after seconds), UNAVAILABLE (retry soon).
"""


def prompt(arguments: dict[str, str] | None) -> GetPromptResult:
    task = (arguments or {}).get("task", "").strip()
    text = INSTRUCTIONS + (f"\nThe task at hand: {task}\nStart by searching your memory for it." if task else "")
    return GetPromptResult(description=PROMPT.description,
                           messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))])
