/**
 * The store the benchmarks run the service over: a fresh embedded store (PGlite on disk in a
 * temp `DATA_DIR`, as the default install uses it), migrated with `migrate()` and bootstrapped
 * with one workspace and its admin token through the same services the CLI uses.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '@service/server/app';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../../apps/server/src/app-deps.js';
import { systemClock } from '../../../apps/server/src/clock.js';
import { ensureAppKey } from '../../../apps/server/src/config/app-key.js';
import { type KeyedConfig, loadConfig } from '../../../apps/server/src/config/config.js';
import { type Database, openEmbeddedDatabase } from '../../../apps/server/src/db/database.js';
import { loadMigrations, migrate } from '../../../apps/server/src/db/migrate.js';
import { JOB_DEFINITIONS } from '../../../apps/server/src/jobs/definitions.js';
import { createLogger } from '../../../apps/server/src/logger.js';
import { JobQueue } from '../../../apps/server/src/queue/job-queue.js';
import { type BootstrapResult, bootstrap } from '../../../apps/server/src/services/accounts/bootstrap.js';
import type { TenantScope } from '../../../apps/server/src/services/context.js';

/** An open embedded store in its data directory: how to reopen and close it. */
export type StoreHandle = {
  database: Database;
  dataDir: string;
  /**
   * Closes the database and opens it again as the service does at its next start (the buffer
   * cache sized from the data it now holds, unless `cacheMb` is given); `database` then
   * points at the new one.
   */
  reopen(options?: { cacheMb?: number }): Promise<void>;
  /** Closes the database, and deletes its directory unless it was a kept one. */
  close(): Promise<void>;
};

/** A migrated, bootstrapped embedded store in its own temp directory, and how to remove it. */
export type EmbeddedStore = StoreHandle & {
  /** The bench config, with its APP_KEY loaded as the service boots (createApp needs it). */
  config: KeyedConfig;
  database: Database;
  /** How many migrations were applied (createApp's `expectedMigrations`). */
  migrationCount: number;
  tenant: BootstrapResult;
  /** The bootstrapped workspace, acting as the CLI, for seeding through the services (reopen updates it). */
  scope: TenantScope;
};

/**
 * Opens, migrates and bootstraps a fresh embedded store; `env` adds to (or overrides) the bench
 * config. In a temp directory removed on close, or in `keepDir` (created, must be empty), which
 * close leaves in place for `openKeptStore`.
 */
export async function openEmbeddedStore(
  env: Record<string, string> = {},
  options: { keepDir?: string } = {},
): Promise<EmbeddedStore> {
  const keepDir = options.keepDir;
  if (keepDir !== undefined) {
    await mkdir(keepDir, { recursive: true });
    if ((await readdir(keepDir)).length > 0) throw new Error(`${keepDir} is not empty`);
  }
  const dataDir = keepDir ?? (await mkdtemp(join(tmpdir(), 'svc-bench-')));
  // A kept directory is the caller's: a failed start leaves it for them to look at or remove.
  const remove = () => (keepDir === undefined ? rm(dataDir, { recursive: true, force: true }) : undefined);
  let database: Database | null = null;
  try {
    const config = await ensureAppKey(
      loadConfig({
        DATA_DIR: dataDir,
        APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
        BCRYPT_COST: '4',
        LOG_LEVEL: 'silent',
        ...env,
      }),
      () => {},
    );
    const silent = { info() {}, warn() {} };
    const opened = await openEmbeddedDatabase({ dataDir, log: silent });
    database = opened;
    const migrations = await loadMigrations();
    await migrate(opened.pool, migrations);
    const tenant = await bootstrap({
      db: opened.db,
      clock: systemClock,
      input: { email: 'bench@example.com', password: 'correct horse battery', workspace: 'Bench' },
      bcryptCost: config.bcryptCost,
    });
    const scope: TenantScope = {
      db: opened.db,
      clock: systemClock,
      workspaceId: tenant.workspace.id,
      actor: { type: 'cli', id: null },
    };
    const store: EmbeddedStore = {
      config,
      database: opened,
      migrationCount: migrations.length,
      tenant,
      scope,
      dataDir,
      async reopen(options = {}) {
        await store.database.close();
        const again = await openEmbeddedDatabase({ dataDir, log: silent, cacheMb: options.cacheMb });
        store.database = again;
        store.scope = { ...store.scope, db: again.db };
      },
      async close() {
        await store.database.close();
        await remove();
      },
    };
    return store;
  } catch (error) {
    await database?.close();
    await remove();
    throw error;
  }
}

/** Opens a store kept by an earlier run (`openEmbeddedStore` with `keepDir`) as it is; close keeps it. */
export async function openKeptStore(dataDir: string): Promise<StoreHandle> {
  const silent = { info() {}, warn() {} };
  const store: StoreHandle = {
    database: await openEmbeddedDatabase({ dataDir, log: silent }),
    dataDir,
    async reopen(options = {}) {
      await store.database.close();
      store.database = await openEmbeddedDatabase({ dataDir, log: silent, cacheMb: options.cacheMb });
    },
    async close() {
      await store.database.close();
    },
  };
  return store;
}

/**
 * A real job queue over the store (pg-boss, maintenance off) that accepts jobs and runs none: the
 * routes and jobs a bench drives send to it as on a service whose worker is busy elsewhere.
 * Stop it (`queue.stop`) before closing the store.
 */
export function startBenchQueue(store: { database: Database }): Promise<JobQueue> {
  return JobQueue.start({
    pool: store.database.pool,
    db: store.database.db,
    log: createLogger('silent'),
    definitions: JOB_DEFINITIONS,
    maintenance: false,
  });
}

/**
 * The real app (`createApp`, not listening) over a bench store and its queue, with the system
 * clock; `embeddings` replaces the provider the config would build.
 */
export function createBenchApp(
  store: Pick<EmbeddedStore, 'config' | 'database' | 'migrationCount'>,
  queue: JobQueue,
  options: Pick<AppDeps, 'embeddings'> = {},
): Promise<FastifyInstance> {
  return createApp({
    clock: systemClock,
    config: store.config,
    database: store.database,
    queue,
    ...options,
    expectedMigrations: store.migrationCount,
  });
}
