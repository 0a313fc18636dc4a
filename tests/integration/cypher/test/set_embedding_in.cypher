// Test helper: overwrites one memory's embedding property as it is (no vector check: a size the index does not
// hold stays stored). Parameters: $namespace, $id, $embedding. Returns: n.
MATCH (m:Memory {namespace: $namespace, id: $id}) SET m.embedding = $embedding RETURN count(m) AS n
