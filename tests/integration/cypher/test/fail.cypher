// Test helper: a statement that always fails (division by zero) to inject a failure mid-write.
// Parameters: none.
UNWIND [0] AS x
RETURN 1 / x AS never
