// Target: what graphmem holds of one imported Graphiti group: its memories by what they came from, with the
// superseded facts, the SUPERSEDES edges between them and the memories the screen quarantined.
// Parameters: $namespace, $ids (the memory ids of the group's plan).
// Returns: episodes, facts, summaries, superseded, supersedes, quarantined (one row).
MATCH (m:Memory {namespace: $namespace}) WHERE m.id IN $ids
RETURN sum(CASE WHEN m.kind = 'episodic' THEN 1 ELSE 0 END) AS episodes,
       sum(CASE WHEN m.source = 'graphiti:fact' THEN 1 ELSE 0 END) AS facts,
       sum(CASE WHEN m.source = 'graphiti:entity-summary' THEN 1 ELSE 0 END) AS summaries,
       sum(CASE WHEN m.source = 'graphiti:fact' AND m.status = 'superseded' THEN 1 ELSE 0 END) AS superseded,
       sum(COUNT { (m)-[:SUPERSEDES]->(:Memory {namespace: $namespace}) }) AS supersedes,
       sum(CASE WHEN m.status = 'quarantined' THEN 1 ELSE 0 END) AS quarantined
