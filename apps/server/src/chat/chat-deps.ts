import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { KeyedConfig } from '../config/config.js';
import type { DatabaseFeatures } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import type { HandoffNotify } from '../services/conversations/handoff-notify.js';

/** Where the answer pipeline reports what went wrong without failing the answer (a request's logger fits). */
export type ChatLog = { warn(details: object, message: string): void };

/**
 * What the answer pipeline uses, and nothing more: the surface that calls it builds this from
 * its own dependencies and the request (chat/ never sees the HTTP app or its types).
 */
export type ChatDeps = {
  db: Kysely<DB>;
  features: DatabaseFeatures;
  /** The active embedding provider for query vectors; null: no vector retrieval. */
  embeddings: EmbeddingProvider | null;
  /** The model settings and keys (for BYOK keys) and the crawl-safety allow-list (order lookups). */
  config: Pick<KeyedConfig, 'llm' | 'appKey' | 'appKeyPrevious' | 'safeUrlAllow'>;
  log: ChatLog;
  /** The one clock of the service (tests pin it). */
  clock: Clock;
  /** How a request for a human tells the team (webhooks, the delayed mail); absent: it does not. */
  handoff?: HandoffNotify;
};
