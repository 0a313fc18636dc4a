// Lists constraint names (tests, diagnostics). Parameters: none. Returns: name, type.
SHOW CONSTRAINTS YIELD name, type
RETURN name, type
