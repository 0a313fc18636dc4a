// The memories a write transaction changed and has not sealed yet (security/dirty): every statement that changes
// a signed field sets m._resign, and the store signs and clears them before the transaction commits, so no
// committed memory has it. The index makes the transaction's own lookup cheap.
CREATE INDEX memory_resign IF NOT EXISTS FOR (m:Memory) ON (m._resign)
