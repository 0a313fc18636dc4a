"""Fetch, start, check and stop a real Neo4j Community server from Maven Central jars (no Docker)."""

from graphmem.neo4j_local.manager import FetchResult, LocalNeo4j, ServerStatus

__all__ = ["FetchResult", "LocalNeo4j", "ServerStatus"]
