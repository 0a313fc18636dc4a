"""graphmem: a graph-centric knowledge memory service for LLM agents, on Neo4j."""

__version__ = "0.1.0"
