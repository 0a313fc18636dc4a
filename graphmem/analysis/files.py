"""Writing an exported graph for other tools: GraphML (Gephi, yEd, Cytoscape) or node-link JSON (d3, networkx)."""

from __future__ import annotations

import json
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import networkx as nx

JSON_NODE_KEY = "key"
"""Where node-link JSON puts a node's key (``Memory:<id>``): beside its own ``id``, which it leaves as it is. Read the
file back with ``nx.node_link_graph(data, name=JSON_NODE_KEY, edges="edges")``."""


class GraphFormat(StrEnum):
    GRAPHML = "graphml"
    JSON = "json"


def write_graph(graph: nx.MultiDiGraph[str], path: Path, fmt: GraphFormat) -> None:
    """GraphML holds scalar attributes only: datetimes become ISO strings, lists and maps JSON text, nulls go.
    Node-link JSON keeps lists and maps, datetimes as ISO strings, and each node's key under ``JSON_NODE_KEY``."""
    if fmt is GraphFormat.JSON:
        data = nx.node_link_data(graph, name=JSON_NODE_KEY, edges="edges")
        path.write_text(json.dumps(data, default=_json_value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return
    flat: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    flat.graph.update({k: _scalar(v) for k, v in graph.graph.items() if v is not None})
    for node, attrs in graph.nodes(data=True):
        flat.add_node(node, **{k: _scalar(v) for k, v in attrs.items() if v is not None})
    for source, target, key, attrs in graph.edges(keys=True, data=True):
        flat.add_edge(source, target, key=key, **{k: _scalar(v) for k, v in attrs.items() if v is not None})
    nx.write_graphml(flat, path)


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _scalar(value: Any) -> str | int | float | bool:
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    return json.dumps(value, default=_json_value, ensure_ascii=False)


__all__ = ["JSON_NODE_KEY", "GraphFormat", "write_graph"]
