import { type Kysely, sql } from 'kysely';
import { sha256Hex } from '../security/hashing.js';
import type { DatabaseFeatures } from './database.js';
import type { DB } from './schema.js';

/**
 * Indexes that need an optional extension, so the static migrations cannot create them.
 * Each is created at start, after the migrations, when its feature is present.
 */
const OPTIONAL_INDEXES: ReadonlyArray<{ feature: keyof DatabaseFeatures; statement: string }> = [
  {
    feature: 'trigram',
    statement:
      'create index if not exists chunks_content_trgm_idx on chunks using gin (content gin_trgm_ops)',
  },
];

/** Fingerprint of the optional index definitions (the test template cache keys on it). */
export const OPTIONAL_INDEXES_FINGERPRINT = sha256Hex(
  OPTIONAL_INDEXES.map((index) => `${index.feature}:${index.statement}`).join('\n'),
);

/**
 * Creates the optional indexes whose feature this database has. Idempotent; call it after
 * `migrate` and under the startup lock (concurrent `create index if not exists` can race).
 */
export async function ensureOptionalIndexes(db: Kysely<DB>, features: DatabaseFeatures): Promise<void> {
  for (const index of OPTIONAL_INDEXES) {
    if (features[index.feature]) await sql.raw(index.statement).execute(db);
  }
}
