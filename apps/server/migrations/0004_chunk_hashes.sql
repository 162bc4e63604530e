-- Chunks carry the SHA-256 of their text, so an embedding is computed once per distinct text
-- of an agent and survives re-chunking (an unchanged paragraph is never re-embedded). The
-- embeddings themselves live in a table that needs pgvector: see db/optional-schema.ts.

alter table chunks add column content_hash text;
update chunks set content_hash = encode(sha256(convert_to(content, 'UTF8')), 'hex');
alter table chunks alter column content_hash set not null;
create index chunks_agent_hash_idx on chunks (agent_id, content_hash);
