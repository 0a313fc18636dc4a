// BM25 full-text search over content and tags.
// Parameters: $analyzer (settings.fulltext_analyzer; migrate drops an index built with another one first).
CREATE FULLTEXT INDEX memory_fulltext IF NOT EXISTS FOR (m:Memory) ON EACH [m.content, m.tags_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}
