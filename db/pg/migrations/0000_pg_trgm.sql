-- Trigram matching for the history index's search (a GIN gin_trgm_ops index over the records'
-- content, with the search semantics of the SQLite FTS5 trigram index). First, so every later
-- migration may use it. pg_trgm is a trusted extension: a database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
