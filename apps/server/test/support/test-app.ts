import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import { createApp } from '../../src/app.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { ensureAppKey } from '../../src/config/app-key.js';
import { type KeyedConfig, loadConfig } from '../../src/config/config.js';
import type { Database } from '../../src/db/database.js';
import { loadMigrations } from '../../src/db/migrate.js';
import { type EmbeddingProvider, embeddingProviderFor } from '../../src/embeddings/index.js';
import { JOB_DEFINITIONS } from '../../src/jobs/definitions.js';
import { createLogger } from '../../src/logger.js';
import { type JobContext, JobQueue, type JobServices } from '../../src/queue/job-queue.js';
import { createApiToken } from '../../src/services/accounts/api-tokens.js';
import { type BootstrapResult, bootstrap } from '../../src/services/accounts/bootstrap.js';
import { createTestDatabase } from './test-database.js';

/** A config for tests: a temp DATA_DIR, a fixed app key, the cheapest bcrypt cost. */
export async function createTestConfig(env: Record<string, string> = {}): Promise<KeyedConfig> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'silent',
    // One admin token drives a whole test file; admin-rate-limit.test.ts sets small budgets itself.
    ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
    ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: '100000',
    // The service's default computes no vectors; the tests keep the offline embedder on so the
    // vector paths (embedding runs, vector search, provider changes) stay covered. The default
    // itself is tested in embeddings-default.test.ts, and the PostgreSQL pass (no pgvector
    // here) runs everything without vectors.
    EMBEDDINGS_PROVIDER: 'offline',
    ...env,
  });
  // As the service boots: an env that blanks APP_KEY gets one generated under the temp DATA_DIR.
  return ensureAppKey(config, () => {});
}

/** A real job queue over a test database that accepts jobs but runs none (tests look at what was queued, or work it themselves). */
export function startTestQueue(database: Database): Promise<JobQueue> {
  // As the service wires it: the queue on the background pool, sends on the interactive one.
  return JobQueue.start({
    pool: database.background.pool,
    db: database.background.db,
    sendDb: database.db,
    log: createLogger('silent'),
    definitions: JOB_DEFINITIONS,
    maintenance: false,
  });
}

/** An app on a fresh database, and how to tear it down. */
export type TestApp = {
  app: FastifyInstance;
  database: Database;
  config: KeyedConfig;
  queue: JobQueue;
  /** The embedding provider the app was built with (the service's choice for this config). */
  embeddings: EmbeddingProvider | null;
  /** The app's clock (the system clock unless the test pinned one). */
  clock: Clock;
  close(): Promise<void>;
};

/**
 * Builds the real app over a fresh cloned database (no listening socket; use `app.inject`), with
 * a non-working queue unless `queue` is given. `extraRoutes` adds routes before the app is ready
 * (tests of how routes are wired).
 */
export async function createTestApp(
  options: {
    env?: Record<string, string>;
    logger?: Logger;
    queue?: JobQueue;
    clock?: Clock;
    extraRoutes?: (app: FastifyInstance) => Promise<void>;
    /** Another instance's store (two instances on one PostgreSQL database); the caller closes it. */
    database?: Database;
  } = {},
): Promise<TestApp> {
  const config = await createTestConfig(options.env);
  const database = options.database ?? (await createTestDatabase());
  const expectedMigrations = (await loadMigrations()).length;
  const embeddings = embeddingProviderFor(config, database.features);
  const queue = options.queue ?? (await startTestQueue(database));
  const clock = options.clock ?? systemClock;
  const app = await createApp(
    { config, database, queue, embeddings, clock, expectedMigrations },
    options.logger ? { logger: options.logger } : {},
  );
  await options.extraRoutes?.(app);
  await app.ready();
  return {
    app,
    database,
    config,
    queue,
    embeddings,
    clock,
    async close() {
      await app.close();
      if (options.queue === undefined) await queue.stop(1_000);
      if (options.database === undefined) await database.close();
      await rm(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** What `service.ts` hands a worker's handlers, from a test app's config: `t.queue.work(workerServices(t))`. */
export function workerServices(t: TestApp): JobServices {
  return {
    clock: t.clock,
    safeUrlAllow: t.config.safeUrlAllow,
    embeddings: t.embeddings,
    features: t.database.features,
    appKey: t.config.appKey,
    appKeyPrevious: t.config.appKeyPrevious,
    crawlDelayMs: t.config.crawlDelayMs,
  };
}

/**
 * The context the worker hands a job's handler, from a test app's config and queue; without
 * `embeddings` in `overrides` it stores no vectors (as an app without an embedding provider).
 */
export function workerContext(t: TestApp, overrides: Partial<JobContext> = {}): JobContext {
  return {
    db: t.database.db,
    log: createLogger('silent'),
    jobId: 'test',
    attempt: 1,
    queue: t.queue,
    ...workerServices(t),
    embeddings: null,
    ...overrides,
  };
}

let tenantCounter = 0;

/** A workspace with its owner and an admin token, made through the real bootstrap service. */
export type Tenant = BootstrapResult & { auth: Record<string, string> };

/** Seeds a workspace through `bootstrap` (the CLI's code path). */
export async function seedTenant(t: TestApp, name?: string): Promise<Tenant> {
  tenantCounter += 1;
  const result = await bootstrap({
    db: t.database.db,
    clock: t.clock,
    input: {
      email: `owner${tenantCounter}-${randomBytes(3).toString('hex')}@example.com`,
      password: 'correct horse battery',
      workspace: name ?? `Workspace ${tenantCounter}`,
    },
    bcryptCost: t.config.bcryptCost,
  });
  return { ...result, auth: { authorization: `Bearer ${result.admin_token}` } };
}

/** Issues an extra token in a tenant's workspace (e.g. one without `admin`). */
export async function issueToken(t: TestApp, tenant: Tenant, abilities: Array<'admin' | 'wp:integration'>) {
  return createApiToken(
    { db: t.database.db, clock: t.clock, workspaceId: tenant.workspace.id, actor: { type: 'cli', id: null } },
    { name: `token ${abilities.join('+')}`, abilities },
  );
}

/** `app.inject` with a JSON body. */
export function injectJson(
  app: FastifyInstance,
  method: 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'GET',
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const options: InjectOptions = {
    method,
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  };
  return app.inject(options);
}
