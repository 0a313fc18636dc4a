"""Neo4j access. This package is the only importer of ``neo4j``."""

from graphmem.store.schema import SchemaInfo, migrate
from graphmem.store.store import Step, Store

__all__ = ["SchemaInfo", "Step", "Store", "migrate"]
