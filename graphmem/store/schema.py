"""Schema migration: constraints and indexes from ``cypher/schema/*.cypher``, applied idempotently."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.errors import SchemaMismatchError
from graphmem.store.store import FULLTEXT_INDEX, VECTOR_INDEX, Store
from graphmem.zhtext import HAN


@dataclass(frozen=True)
class SchemaInfo:
    version: int
    vector_dimensions: int
    similarity: str
    embedding_model: str


def schema_version(store: Store) -> int:
    """The schema version the files describe: the number of the last numbered step."""
    return max(int(name.rsplit("/", 1)[1].split("_", 1)[0]) for name in store.cypher.names("schema"))


async def check_vector_index(store: Store, dimensions: int) -> None:
    """Refuse to mix vector sizes: an existing index built for another dimension is a hard error."""
    rows = await store.read("admin/vector_index_info", name=VECTOR_INDEX)
    if rows and rows[0]["dimensions"] is not None and int(rows[0]["dimensions"]) != dimensions:
        raise SchemaMismatchError(
            f"the vector index {VECTOR_INDEX!r} has {rows[0]['dimensions']} dimensions but the configured "
            f"embedder gives {dimensions}: re-embed the memories (graphmem db reembed) or configure the old model"
        )


async def check_fulltext_index(store: Store, analyzer: str) -> bool:
    """Drop a full-text index built with another analyzer (the schema step rebuilds it); True when dropped."""
    rows = await store.read("admin/fulltext_index_info", name=FULLTEXT_INDEX)
    if rows and rows[0]["analyzer"] not in (None, analyzer):
        await store.run_schema("admin/drop_fulltext_index")
        return True
    return False


CHINESE_CONTENT = f"(?s).*[{HAN}].*"
"""A content with a character that ``embed.centering.chinese_share`` counts, as a Java regular expression."""


async def check_embedder(store: Store, recorded: object) -> None:
    """Refuse another embedder of the same model when the store holds Chinese memories: ``bilingual`` embeds
    their text through e5 and ``sentence-transformers`` through MiniLM alone, so a query of one would search the
    other's vectors with no error. English-only stores are the same under both, and are accepted."""
    configured = store.settings.embedder
    if recorded in (None, configured):
        return
    rows = await store.read("admin/chinese_memory", pattern=CHINESE_CONTENT)
    if rows:
        raise SchemaMismatchError(
            f"memories were embedded by the {recorded!r} embedder, the configuration says {configured!r}, and the "
            f"two embed Chinese text differently (memory {rows[0]['id']!r} in {rows[0]['namespace']!r} is "
            "Chinese): re-embed (graphmem db reembed) or configure the old embedder"
        )


async def recorded_schema(store: Store) -> dict[str, object] | None:
    rows = await store.read("admin/schema_version_get")
    return rows[0] if rows else None


async def migrate(store: Store, *, embedding_dim: int, timeout_s: int = 300, reembedded: bool = False) -> SchemaInfo:
    """Apply the schema steps and record the version. ``reembedded``: the vectors were just rebuilt with the
    configured model, so a different recorded model is expected and replaced."""
    settings = store.settings
    await check_vector_index(store, embedding_dim)
    recorded = await recorded_schema(store)
    if not reembedded and recorded and recorded["embedding_model"] not in (None, settings.embedding_model):
        raise SchemaMismatchError(
            f"memories were embedded with {recorded['embedding_model']!r}, the configuration says "
            f"{settings.embedding_model!r}: re-embed (graphmem db reembed) or configure the old model"
        )
    if not reembedded and recorded:
        await check_embedder(store, recorded.get("embedder"))
    await check_fulltext_index(store, settings.fulltext_analyzer)
    params = {"dimensions": embedding_dim, "similarity": settings.embedding_similarity,
              "analyzer": settings.fulltext_analyzer}
    for name in store.cypher.names("schema"):
        await store.run_schema(name, **params)
    await store.run_schema("admin/await_indexes", timeout_s=timeout_s)
    version = schema_version(store)
    await store.run_schema(
        "admin/schema_version_set", version=version, embedding_dim=embedding_dim,
        embedding_model=settings.embedding_model, embedder=settings.embedder,
        similarity=settings.embedding_similarity,
    )
    return SchemaInfo(version, embedding_dim, settings.embedding_similarity, settings.embedding_model)
