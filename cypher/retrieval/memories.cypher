// The memories a search returns, by id, in the order asked (a search ranks its candidates on the few fields
// retrieval/search and retrieval/candidates give, then reads only the memories it returns in full).
// Parameters: $ids, $statuses.
// Returns ONE row: memories, a list of maps of every Memory property but the embedding, datetimes as ISO-8601
// strings; an id no longer stored, or whose status is no longer in $statuses, is left out.
// Why so: one row, as the driver's cost per record dominated; the properties named, as `m {.*}` reads the
// embedding too; datetimes as strings, as the driver's DateTime hydration cost more than the query itself.
// Every Memory field must be listed here (tests/unit/test_retrieval_pure.py checks it).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.status IN $statuses
RETURN collect(m {.id, .namespace, .kind, .content, .confidence, .importance, .access_count, .status, .tags,
                  .source, .sources, .reinforced_count, .content_hash, .signature, .metadata_json,
                  last_accessed_at: toString(m.last_accessed_at), created_at: toString(m.created_at),
                  updated_at: toString(m.updated_at), valid_from: toString(m.valid_from),
                  valid_until: toString(m.valid_until), expires_at: toString(m.expires_at)}) AS memories
