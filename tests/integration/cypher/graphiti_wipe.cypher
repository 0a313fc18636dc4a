// Test helper: deletes the Graphiti nodes (and their edges) of the given groups that graphiti_writer.py wrote.
// Parameters: $group_ids. Returns: nothing.
MATCH (n) WHERE (n:Episodic OR n:Entity OR n:Community) AND n.group_id IN $group_ids
DETACH DELETE n
