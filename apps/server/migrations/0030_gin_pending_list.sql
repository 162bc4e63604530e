-- The full-text index keeps new chunks in a pending list until a VACUUM (or an autoanalyze on
-- PostgreSQL) merges it; every search reads the whole list, up to the 4 MB default. The
-- embedded store has no autovacuum and an insert-mostly chunks table is rarely vacuumed, so
-- searches slowed as knowledge was added. A 256 kB list is merged by the insert that fills it.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

alter index chunks_tsv_idx set (gin_pending_list_limit = 256);
