// Title: Superseded chains
// Shows: every chain of SUPERSEDES edges, from the newest memory to the oldest it replaced. The old ones keep
// status superseded and valid_until; nothing is deleted.
// Parameters: $namespace, $limit.
// Returns: p (paths: a graph).
MATCH p = (n:Memory {namespace: $namespace})-[:SUPERSEDES*1..10]->(o:Memory)
WHERE NOT ()-[:SUPERSEDES]->(n) AND NOT (o)-[:SUPERSEDES]->()
RETURN p LIMIT toInteger($limit)
