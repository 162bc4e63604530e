import { type Kysely, sql } from 'kysely';
import { sha256Hex } from '../security/hashing.js';
import type { DatabaseFeatures } from './database.js';
import type { DB } from './schema.js';

/**
 * Schema that needs an optional extension, so the static migrations cannot create it. Each
 * statement is idempotent and runs at start, after the migrations, when its feature exists.
 */
const OPTIONAL_SCHEMA: ReadonlyArray<{ feature: keyof DatabaseFeatures; statement: string }> = [
  {
    // Typo tolerance reads the agents' vocabularies; the earlier index over whole chunk texts
    // made every typo lookup recheck kilobytes per candidate.
    feature: 'trigram',
    statement: 'drop index if exists chunks_content_trgm_idx',
  },
  {
    feature: 'trigram',
    statement: 'create index if not exists agent_words_trgm_idx on agent_words using gin (word gin_trgm_ops)',
  },
  {
    // New words wait in the index's pending list until a VACUUM merges them, and every typo
    // lookup reads the whole list; the vocabulary table only grows, so it is seldom vacuumed.
    // A 64 kB list (the least allowed) is merged by the insert that fills it.
    feature: 'trigram',
    statement: 'alter index agent_words_trgm_idx set (gin_pending_list_limit = 64)',
  },
  {
    // One vector per distinct chunk text of an agent and embedding model. `dims` is stored so
    // a provider with another dimension never gets compared with these vectors.
    feature: 'vector',
    statement: `create table if not exists embeddings (
      agent_id text not null references agents (id) on delete cascade,
      workspace_id text not null references workspaces (id) on delete cascade,
      model text not null,
      content_hash text not null,
      dims integer not null,
      embedding vector not null,
      created_at timestamptz not null default now(),
      primary key (agent_id, model, content_hash)
    )`,
  },
];

/** Fingerprint of the optional schema (the test template cache keys on it). */
export const OPTIONAL_SCHEMA_FINGERPRINT = sha256Hex(
  OPTIONAL_SCHEMA.map((entry) => `${entry.feature}:${entry.statement}`).join('\n'),
);

/** pgvector's HNSW index handles at most this many dimensions. */
export const MAX_INDEXED_DIMENSIONS = 2000;

/**
 * Creates the optional schema this database supports, and with pgvector an HNSW index for
 * the active embedding dimension (a partial index per dimension, so a provider change adds
 * its own). Idempotent; call it after `migrate` and under the startup lock.
 */
export async function ensureOptionalSchema(
  db: Kysely<DB>,
  features: DatabaseFeatures,
  vectorDimensions: number | null = null,
): Promise<void> {
  for (const entry of OPTIONAL_SCHEMA) {
    if (features[entry.feature]) await sql.raw(entry.statement).execute(db);
  }
  if (features.vector && vectorDimensions !== null) await ensureVectorIndex(db, vectorDimensions);
}

async function ensureVectorIndex(db: Kysely<DB>, dims: number): Promise<void> {
  if (!Number.isInteger(dims) || dims < 1 || dims > MAX_INDEXED_DIMENSIONS) return;
  await db.transaction().execute(async (trx) => {
    // An HNSW graph that outgrows maintenance_work_mem (64 MB by default, ~50k vectors of 256
    // dimensions) is built far more slowly; this build gets more, for its transaction only.
    await sql`select set_config('maintenance_work_mem', ${HNSW_BUILD_MEMORY}, true)`.execute(trx);
    await sql
      .raw(
        `create index if not exists embeddings_hnsw_${dims}_idx on embeddings ` +
          `using hnsw ((embedding::vector(${dims})) vector_cosine_ops) where dims = ${dims}`,
      )
      .execute(trx);
  });
}

/** maintenance_work_mem for building an HNSW index over existing vectors. */
const HNSW_BUILD_MEMORY = '512MB';
