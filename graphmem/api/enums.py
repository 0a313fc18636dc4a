"""The domain enums as GraphQL enums under their own names (imported before any type that uses them)."""

import strawberry

from graphmem.models import MemoryKind, MemoryStatus, RelationType, Role, WriteAction
from graphmem.retrieval.types import Channel, ExpansionMode, Fusion, RerankMode, SummaryMode

# Registering the domain enums with strawberry makes them GraphQL enums under their own names.
strawberry.enum(MemoryKind, description="working | episodic | semantic | lesson")
strawberry.enum(MemoryStatus)
strawberry.enum(RelationType, description="The closed vocabulary of knowledge edges.")
strawberry.enum(Role)
strawberry.enum(WriteAction, description="What a write did with an item: CREATED a memory; STRENGTHENED the near "
                "duplicate stored before (its id is returned); EXISTS: its id was written before with the same "
                "content (a retry), nothing changed. An id stored with other content is a CONFLICT.")
strawberry.enum(RerankMode)
strawberry.enum(Channel)
strawberry.enum(Fusion)
strawberry.enum(ExpansionMode, description="How the relation expansion scores what it reached: spreading "
                "activation (default) or personalised PageRank over the local subgraph.")
strawberry.enum(SummaryMode, description="What a search does with task summaries: lead down to their tasks' turns "
                "(default), return them too, or hide them (no descent, not returned).")
