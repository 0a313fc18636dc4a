// The degree (all edges) of every entity of a namespace.
MATCH (e:Entity {namespace: $namespace})
RETURN e.name AS name, COUNT { (e)--() } AS degree
