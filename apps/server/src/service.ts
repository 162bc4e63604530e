import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import type { DrainState } from './app-deps.js';
import { startControlServer } from './cli/control-socket.js';
import { systemClock } from './clock.js';
import type { KeyedConfig } from './config/config.js';
import { lockDataDir } from './db/data-dir-lock.js';
import { type Database, openEmbeddedDatabase, openPostgresDatabase } from './db/database.js';
import { loadMigrations, type Migration, migrate } from './db/migrate.js';
import { ensureOptionalSchema } from './db/optional-schema.js';
import { withStartupLock } from './db/startup-lock.js';
import type { EmbeddingProvider } from './embeddings/embedding-provider.js';
import { embeddingProviderFor } from './embeddings/index.js';
import { closeExtractionPool, configureExtractionPool } from './extraction/shared-extraction-pool.js';
import { JOB_DEFINITIONS } from './jobs/definitions.js';
import { queueMissingEmbeddings } from './jobs/embed-chunks.js';
import { scheduleStoreMaintenance, warnIfAutovacuumOff } from './jobs/maintain-store.js';
import { createMailer } from './mail/mail-transport.js';
import { type JobLease, jobLeaseOf, POSTGRES_JOB_LEASE } from './queue/job-lease.js';
import { type JobDefinition, JobQueue } from './queue/job-queue.js';
import { hasNoUsers } from './services/accounts/bootstrap.js';
import { deleteSetupCode, ensureSetupCode, SETUP_CODE_FILE } from './services/accounts/setup-code.js';
import { seedDemo } from './services/ops/demo-seed.js';
import { CONSOLE_PREFIX } from './surfaces/console/index.js';

/** A running service (HTTP and/or worker) and how to stop it. */
export type RunningService = {
  url: string | null;
  /** What to open once started: the console (with the setup code while nobody has signed up) and the demo. */
  open: { console: string; setupCode: string | null; demo: string | null } | null;
  app: FastifyInstance | null;
  database: Database;
  queue: JobQueue;
  /** Marks the process as stopping (`/readyz` answers 503 `draining`) and waits `ms` while it still serves. */
  drain(ms: number): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Opens the store (locking DATA_DIR on the embedded default), migrates, starts the queue and
 * worker, then HTTP unless `http` is false. `onFatal` is called if the store lock is lost. The
 * config has APP_KEY loaded (`ensureAppKey`): everything after boot relies on it.
 */
export async function startService(
  config: KeyedConfig,
  log: Logger,
  options: { http?: boolean; worker?: boolean; onFatal?: (error: Error) => void } = {},
): Promise<RunningService> {
  // The process's one clock: the app, the worker's handlers and the control socket all read it.
  const clock = systemClock;
  const drainState: DrainState = { draining: false };
  const cleanups: Array<() => Promise<void>> = [];
  const runCleanups = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        log.error({ err: error }, 'error during shutdown');
      }
    }
  };
  try {
    let database: Database;
    if (config.database.mode === 'embedded') {
      const release = await lockDataDir(config.dataDir, (error) => {
        log.fatal({ err: error }, 'lost the DATA_DIR lock; stopping to protect the store');
        options.onFatal?.(error);
      });
      cleanups.push(release);
      database = await openEmbeddedDatabase({
        dataDir: config.dataDir,
        log: adapt(log),
        cacheMb: config.database.cacheMb,
        scheduling: config.database.scheduling,
        // The store's thread stopped (logged at error level there): stop the service, exit code 1.
        onCrash: (error) => options.onFatal?.(error),
      });
    } else {
      database = await openPostgresDatabase({
        url: config.database.url,
        poolSize: config.database.poolSize,
        log: adapt(log),
      });
    }
    cleanups.push(() => database.close());
    // Closed after the HTTP server and the queue (cleanups run in reverse): uploads and jobs in
    // flight finish reading their files first.
    await configureExtractionPool(config.extraction);
    cleanups.push(() => closeExtractionPool());

    // SMTP when SMTP_URL is set; otherwise .eml files in DATA_DIR/outbox/ (links logged). Closed
    // after the queue stops (cleanups run in reverse), so a send in flight finishes first.
    const mailer = createMailer({
      smtpUrl: config.mail.smtpUrl,
      outboxDir: join(config.dataDir, 'outbox'),
      from: config.mail.from,
    });
    cleanups.push(async () => mailer.close());

    const embeddings = embeddingProviderFor(config, database.features);
    const { migrations, queue } = await prepareStore(database, log, JOB_DEFINITIONS, {
      embeddings,
      lease: jobLeaseOf(config.jobLeaseSeconds),
    });
    cleanups.push(() => queue.stop(config.shutdownTimeoutMs));
    if (options.worker ?? true) {
      if (database.mode === 'embedded') {
        // This process holds the DATA_DIR lock: a job still `active` was running in a process
        // that stopped (a crash, kill -9, power loss). Retry it now rather than at its expiry.
        const interrupted = await queue.retryInterrupted();
        if (interrupted.length > 0)
          log.warn(
            { jobs: interrupted.map(({ name, id, retried }) => ({ name, id, retried })) },
            'retried jobs interrupted by the last stop',
          );
      }
    }

    let app: FastifyInstance | null = null;
    let url: string | null = null;
    let demoUrl: string | null = null;
    let setupCode: string | null = null;
    if (options.http ?? true) {
      const server = await createApp(
        { config, database, queue, embeddings, clock, expectedMigrations: migrations.length, drainState },
        { logger: log },
      );
      app = server;
      // Registered last so it runs first: stop accepting and finish in-flight requests before the queue and pool go.
      cleanups.push(() => server.close());
      await server.listen({ port: config.port, host: config.host });
      const address = server.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
      url = config.publicBaseUrl ?? `http://${host}:${port}`;
      if (config.database.mode === 'embedded' && config.demoSeed) {
        const origins = config.publicBaseUrl
          ? [new URL(config.publicBaseUrl).origin]
          : [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
        const demo = await seedDemo({ db: database.db, clock, queue, appKey: config.appKey, origins, log });
        if (demo) demoUrl = `${url}/demo`;
      }
    }

    if (config.database.mode === 'embedded') {
      const control = await startControlServer({ config, database, clock, log }, log);
      if (control) cleanups.push(() => control.close());
    }

    if (await hasNoUsers(database.db)) {
      const bootstrapHint = 'npm run -s cli -- bootstrap --email you@example.com --workspace "My workspace"';
      if (url) {
        // First run without the CLI: whoever reads this log (runs the service) can claim it.
        const code = await ensureSetupCode(config.dataDir);
        setupCode = code;
        log.warn(
          { setupCodeFile: join(config.dataDir, SETUP_CODE_FILE) },
          `No users yet. Open ${url}${CONSOLE_PREFIX}/ and enter the setup code ${code} ` +
            `(also in DATA_DIR/${SETUP_CODE_FILE}), or create the first admin with: ${bootstrapHint}`,
        );
      } else {
        log.warn(`No users yet. Create the first admin with: ${bootstrapHint}`);
      }
    } else {
      // Set up (by the console or the CLI): a code left from an earlier start is no use any more.
      await deleteSetupCode(config.dataDir);
    }

    // The worker starts last, once HTTP answers: jobs waiting at start (those just retried
    // included) must not hold the store while the app and the control socket are being set up.
    if (options.worker ?? true) {
      // A provider change (or a run that gave up) leaves chunks without vectors: catch up.
      const agents = await queueMissingEmbeddings(database.db, queue, embeddings);
      if (agents > 0)
        log.info({ agents, model: embeddings?.key }, 'queued embedding of chunks without vectors');
      if (mailer.kind === 'outbox')
        log.info(
          { outboxDir: join(config.dataDir, 'outbox') },
          'no SMTP_URL: mails are written to DATA_DIR/outbox/ and their links logged',
        );
      await queue.work({
        clock,
        mailer,
        safeUrlAllow: config.safeUrlAllow,
        embeddings,
        features: database.features,
        appKey: config.appKey,
        appKeyPrevious: config.appKeyPrevious,
        crawlDelayMs: config.crawlDelayMs,
      });
      const maintenance = scheduleStoreMaintenance({
        mode: database.mode,
        queue,
        intervalMinutes: config.storeMaintenanceIntervalMinutes,
        log,
      });
      cleanups.push(async () => maintenance.stop());
      if (database.mode === 'postgres') await warnIfAutovacuumOff(database.db, log);
    }

    let stopping: Promise<void> | null = null;
    return {
      url,
      open: url ? { console: `${url}${CONSOLE_PREFIX}/`, setupCode, demo: demoUrl } : null,
      app,
      database,
      queue,
      async drain(ms) {
        drainState.draining = true;
        if (url && ms > 0) {
          log.info({ ms }, 'draining: /readyz answers 503 while requests are still served');
          await new Promise((resolve) => setTimeout(resolve, ms));
        }
      },
      stop() {
        stopping ??= runCleanups();
        return stopping;
      },
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}

/**
 * Brings the store up to date and starts the queue (creating its schema on first use), one
 * process at a time on a shared PostgreSQL. `embeddings` sizes the optional vector schema.
 */
export async function prepareStore(
  database: Database,
  log: Logger,
  definitions: readonly JobDefinition<unknown>[] = JOB_DEFINITIONS,
  options: { embeddings?: EmbeddingProvider | null; lease?: JobLease } = {},
): Promise<{ migrations: Migration[]; queue: JobQueue }> {
  return withStartupLock(database.pool, database.mode, async () => {
    const migrations = await loadMigrations();
    const result = await migrate(database.pool, migrations);
    if (result.applied.length > 0) log.info({ applied: result.applied }, 'applied database migrations');
    await ensureOptionalSchema(database.db, database.features, options.embeddings?.dimensions ?? null);
    // The queue and its handlers use the background pool: on the embedded store their statements
    // wait while requests' are ready (EMBEDDED_STORE_SCHEDULING).
    const queue = await JobQueue.start({
      pool: database.background.pool,
      db: database.background.db,
      sendDb: database.db,
      log,
      definitions,
      // Several processes may share a PostgreSQL queue: a running job holds a renewed lease, so
      // one whose process died is retried within a bounded time (docs/operations.md).
      ...(database.mode === 'postgres' ? { lease: options.lease ?? POSTGRES_JOB_LEASE } : {}),
    });
    return { migrations, queue };
  });
}

function adapt(log: Logger) {
  return {
    info: (msg: string) => log.info(msg),
    warn: (msg: string) => log.warn(msg),
    error: (msg: string) => log.error(msg),
  };
}
