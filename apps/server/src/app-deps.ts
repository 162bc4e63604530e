import type { Clock } from './clock.js';
import type { KeyedConfig } from './config/config.js';
import type { Database } from './db/database.js';
import type { EmbeddingProvider } from './embeddings/embedding-provider.js';
import type { JobQueue } from './queue/job-queue.js';
import type { WidgetAssets } from './widget-assets/widget-manifest.js';

/** Set once the process is stopping: `/readyz` then answers 503 `draining`. */
export type DrainState = { draining: boolean };

/** Everything the HTTP app needs, built by the caller (service, tests, bench). */
export type AppDeps = {
  /** The parsed configuration with APP_KEY loaded (`ensureAppKey`). */
  config: KeyedConfig;
  database: Database;
  /** The job queue routes send to (its worker may run in another process). */
  queue: JobQueue;
  /** The active embedding provider for query vectors; null or absent: no vector retrieval. */
  embeddings?: EmbeddingProvider | null;
  /** How many migrations this build ships; /readyz compares the database against it. */
  expectedMigrations: number;
  /** The built widget; defaults to WIDGET_DIST_DIR's (one per app, so its manifest cache is shared). */
  widgetAssets?: WidgetAssets;
  /** The service's one clock (`systemClock` in `service.ts`; tests pin it): every service call and signature window reads it. */
  clock: Clock;
  /** Shared with the shutdown path (`service.ts`); absent: the app drains only once it closes. */
  drainState?: DrainState;
};
