"""Memory graphs as networkx graphs, for analysis (notebooks) and for other tools (GraphML, JSON)."""

from graphmem.analysis.export import export_namespace, node_key
from graphmem.analysis.files import JSON_NODE_KEY, GraphFormat, write_graph
from graphmem.analysis.views import neighborhood_graph, search_graph

__all__ = ["JSON_NODE_KEY", "GraphFormat", "export_namespace", "neighborhood_graph", "node_key", "search_graph",
           "write_graph"]
