import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import type { DatabaseFeatures } from '../db/database.js';
import type { Queryable } from '../db/queryable.js';
import type { DB } from '../db/schema.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import type { Mailer } from '../mail/mail-transport.js';
import {
  deadLetterQueueOf,
  type InterruptedJob,
  retryInterruptedJobs,
  settleGivenUpJob,
} from './job-failures.js';
import { holdLease, type JobLease, sweepUnleasedJobs } from './job-lease.js';
import { DEAD_LETTER_EXPIRY_SECONDS, declareQueue, expiryOf, leasedQueuesOf } from './queue-options.js';

/** The Postgres schema pg-boss keeps its tables in. */
export const QUEUE_SCHEMA = 'pgboss';

/**
 * What every handler of a working queue gets from the process's config (`queue.work(services)`):
 * only a process with APP_KEY loaded works jobs, so handlers never check for it.
 */
export type JobServices = {
  /** The service's one clock: what handlers pass to the services they call as "now". */
  clock: Clock;
  /** SAFE_URL_ALLOW entries for jobs that fetch through the crawl-safety guard; absent means none. */
  safeUrlAllow?: readonly string[];
  /** The active embedding provider; null or absent where vectors are not stored. */
  embeddings?: EmbeddingProvider | null;
  /** The store's optional extensions (pgvector, pg_trgm), for jobs that search; detected when absent. */
  features?: DatabaseFeatures;
  /** APP_KEY, for jobs that open sealed secrets (SQL source passwords, webhook secrets). */
  appKey: Buffer;
  /** APP_KEY_PREVIOUS during a key rotation: secrets it sealed still open. */
  appKeyPrevious?: Buffer | undefined;
  /** Where mail goes (SMTP or the outbox), for the send-mail job; absent: mails wait in the queue. */
  mailer?: Mailer;
  /** Least delay between a crawl's requests to one site (CRAWL_DELAY_MS); the crawler's default otherwise. */
  crawlDelayMs?: number;
};

/** What every run of a job has, whatever the job: the store, its logger, which job and which attempt. */
export type JobRun = {
  db: Kysely<DB>;
  log: Logger;
  jobId: string;
  attempt: number;
};

/** What a handler gets besides its payload. */
export type JobContext = JobRun &
  JobServices & {
    /** The queue, for jobs that enqueue follow-up jobs. */
    queue: JobQueue;
  };

/**
 * The context of a handler that uses only `K` of the services (and the run itself), so a test
 * runs it with just that.
 */
export type JobContextOf<K extends Exclude<keyof JobContext, keyof JobRun>> = JobRun & Pick<JobContext, K>;

/**
 * What a sender needs to know of a job: a name, a payload schema (ids and hashes, never
 * documents) and the retry policy. `policy: 'stately'` with a key collapses repeats: at most
 * one queued and one running job per key. The specs live in job-specs.ts, below the services
 * that send them; the handlers live in jobs/, above them.
 */
export type JobSpec<T> = {
  name: string;
  payload: z.ZodType<T>;
  policy?: 'standard' | 'short' | 'singleton' | 'stately';
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
};

/**
 * A job the worker runs: its spec and an idempotent handler (run twice, it leaves the same
 * state). `C` is the part of {@link JobContext} the handler uses.
 */
export type JobDefinition<T, C extends Partial<JobContext> = JobContext> = JobSpec<T> & {
  handle(payload: T, context: C): Promise<void>;
  /**
   * Settles what the job was about once it failed for good, whichever way: its last attempt
   * threw, pg-boss's expiry sweep failed it, or it was interrupted on its last attempt (then the
   * handler never saw it end). `reason` is a clause such as "ran out of time". Not called while
   * a job with the same payload still waits or runs. Idempotent; returns whether it changed
   * anything, and is then logged at error level.
   */
  giveUp?(payload: T, context: C, reason: string): Promise<boolean>;
};

/** Declares a job's spec; a typed identity so senders' payloads and the handler agree. */
export function defineJobSpec<T>(spec: JobSpec<T>): JobSpec<T> {
  return spec;
}

/**
 * Declares a job (a spec and its handler); a typed identity so payloads and handlers agree, and
 * the handler's declared context (`C`) is kept for callers that run it directly.
 */
export function defineJob<T, C extends Partial<JobContext> = JobContext>(
  definition: JobDefinition<T, C>,
): JobDefinition<T, C> {
  return definition;
}

/** The queue over the shared pool: sending in every process, working where `work()` is called. */
export class JobQueue {
  private working = false;
  private unleasedSweep: { stop(): void } | undefined;

  private constructor(
    private readonly boss: PgBoss,
    private readonly db: Kysely<DB>,
    private readonly log: Logger,
    private readonly definitions: ReadonlyMap<string, JobDefinition<unknown>>,
    private readonly lease: JobLease | undefined,
    private readonly sendDb: Queryable | undefined,
  ) {}

  /** Starts pg-boss on `pool` (creating its schema on first use) and declares every queue. */
  static async start(options: {
    pool: pg.Pool;
    db: Kysely<DB>;
    log: Logger;
    definitions: readonly JobDefinition<unknown>[];
    maintenance?: boolean;
    /**
     * Where several processes share the queue (PostgreSQL): running jobs hold a short lease
     * that their worker renews, and the expiry sweep runs this often. Without it a job stays
     * `active` until its queue's expiry (the longest a run may take).
     */
    lease?: JobLease;
    /**
     * Where `send` and `sendMany` write when the caller passes no transaction. The service gives
     * the interactive handle, so a request that sends a job does not wait behind the background
     * pool the queue and its handlers use (db/database.ts). Default: the queue's own pool.
     */
    sendDb?: Queryable;
  }): Promise<JobQueue> {
    const pool = options.pool;
    const boss = new PgBoss({
      db: { executeSql: (text: string, values: unknown[] = []) => pool.query(text, values) },
      schema: QUEUE_SCHEMA,
      supervise: options.maintenance ?? true,
      ...(options.lease ? { maintenanceIntervalSeconds: options.lease.sweepSeconds } : {}),
      schedule: false,
    });
    boss.on('error', (error: Error) => options.log.error({ err: error }, 'job queue error'));
    await boss.start();
    const byName = new Map<string, JobDefinition<unknown>>();
    for (const definition of options.definitions) {
      if (byName.has(definition.name)) throw new Error(`job ${definition.name} is defined twice`);
      byName.set(definition.name, definition);
      await declareQueue(boss, definition);
    }
    const queue = new JobQueue(boss, options.db, options.log, byName, options.lease, options.sendDb);
    if (options.lease && (options.maintenance ?? true)) {
      queue.unleasedSweep = sweepUnleasedJobs(
        options.db,
        options.log,
        leasedQueuesOf(byName.values()),
        options.lease,
      );
    }
    return queue;
  }

  /**
   * Fails every job left `active` by a process that stopped (the attempt counts; a last attempt
   * is given up) and makes the retried ones due at once. Only where this process alone owns the
   * queue (the embedded store, whose DATA_DIR lock it holds), before `work()`: elsewhere an
   * `active` job may be running in another process, and only its lease expiry tells.
   */
  async retryInterrupted(): Promise<InterruptedJob[]> {
    if (this.working) throw new Error('retryInterrupted() must run before work()');
    const names = leasedQueuesOf(this.definitions.values()).map((queue) => queue.name);
    return retryInterruptedJobs(this.boss, this.db, names);
  }

  /**
   * Enqueues a job after validating its payload. With `key`, repeats collapse per the job's
   * policy; `startAfterSeconds` makes it due that much later (repeats sent meanwhile collapse
   * into it). Returns the job id, or null when an equal job was already waiting.
   */
  async send<T>(
    definition: JobSpec<T>,
    payload: T,
    options: { key?: string; db?: Queryable; startAfterSeconds?: number } = {},
  ): Promise<string | null> {
    if (!this.definitions.has(definition.name)) throw new Error(`job ${definition.name} is not registered`);
    const data = definition.payload.parse(payload);
    return this.boss.send(definition.name, data as object, {
      ...(options.key ? { singletonKey: options.key } : {}),
      ...(options.startAfterSeconds ? { startAfter: options.startAfterSeconds } : {}),
      ...within(options.db ?? this.sendDb),
    });
  }

  /**
   * Enqueues many jobs of one definition in a single statement (optionally inside the
   * caller's transaction). Keys collapse repeats as in `send`.
   */
  async sendMany<T>(
    definition: JobSpec<T>,
    jobs: ReadonlyArray<{ payload: T; key?: string }>,
    options: { db?: Queryable } = {},
  ): Promise<void> {
    if (!this.definitions.has(definition.name)) throw new Error(`job ${definition.name} is not registered`);
    if (jobs.length === 0) return;
    const rows = jobs.map((job) => ({
      name: definition.name,
      data: definition.payload.parse(job.payload) as object,
      ...(job.key ? { singletonKey: job.key } : {}),
    }));
    await this.boss.insert(rows, within(options.db ?? this.sendDb));
  }

  /**
   * Starts consuming every registered queue in this process, handing `services` (SAFE_URL_ALLOW,
   * the embedding provider, APP_KEY, crawl pacing) to every handler; `batchSize` jobs per fetch
   * (default 1), each handled in turn.
   */
  async work(
    services: JobServices,
    options: { pollingIntervalSeconds?: number; batchSize?: number } = {},
  ): Promise<void> {
    if (this.working) return;
    this.working = true;
    for (const definition of this.definitions.values()) {
      // pg-boss waits a whole polling interval after every fetch, even one that found a job, so
      // a worker would take one job per interval (a 180-post sync: 6 minutes at 2 s). After a
      // job, the worker is woken at once; it sleeps only when its queue came back empty.
      let workerId: string | null = null;
      workerId = await this.boss.work(
        definition.name,
        {
          batchSize: options.batchSize ?? 1,
          pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
          includeMetadata: true,
        },
        async (jobs) => {
          const lease = await this.leaseJobs(definition, jobs);
          try {
            await this.runJobs(definition, jobs, services);
          } finally {
            lease?.stop();
          }
          if (jobs.length > 0 && workerId !== null) this.boss.notifyWorker(workerId);
        },
      );
      if (definition.giveUp)
        await this.workDeadLetters(definition, services, options.pollingIntervalSeconds ?? 2);
    }
  }

  /** Runs a fetched batch, one job after the other. */
  private async runJobs(
    definition: JobDefinition<unknown>,
    jobs: PgBoss.JobWithMetadata<unknown>[],
    services: JobServices,
  ): Promise<void> {
    for (const job of jobs) {
      const log = this.log.child({ job: definition.name, jobId: job.id });
      const payload = definition.payload.safeParse(job.data);
      if (!payload.success) {
        // A payload that cannot parse will never succeed: log it and let the job complete
        // instead of burning retries on it. The rest of the batch still runs, and the
        // worker is still woken for the next fetch below.
        log.error({ issues: payload.error.issues }, 'job payload is invalid; dropping it');
        continue;
      }
      const started = performance.now();
      await definition.handle(payload.data, {
        db: this.db,
        log,
        jobId: job.id,
        attempt: job.retryCount + 1,
        ...services,
        queue: this,
      });
      // One line per run: with several workers, which process ran which job, and how long.
      log.info({ attempt: job.retryCount + 1, ms: Math.round(performance.now() - started) }, 'job done');
    }
  }
  /** Holds the lease of a fetched batch while it runs (only where the queue is shared). */
  private async leaseJobs(definition: JobDefinition<unknown>, jobs: PgBoss.JobWithMetadata<unknown>[]) {
    if (!this.lease || jobs.length === 0) return null;
    const job = { name: definition.name, ids: jobs.map((one) => one.id), maxSeconds: expiryOf(definition) };
    return holdLease(this.db, this.log, job, this.lease);
  }

  /**
   * Works a job's dead-letter queue: each entry is a job that failed for good; its definition's
   * `giveUp` settles what it was about (a source's status and error, a delivery), unless a job
   * with the same payload still waits or runs.
   */
  private async workDeadLetters(
    definition: JobDefinition<unknown>,
    services: JobServices,
    pollingIntervalSeconds: number,
  ) {
    const giveUp = definition.giveUp;
    if (!giveUp) return;
    const name = deadLetterQueueOf(definition.name);
    await this.boss.work(
      name,
      { batchSize: 1, pollingIntervalSeconds, includeMetadata: true },
      async (jobs) => {
        // Settling holds a lease like any job, so a dead-letter entry whose process died is
        // retried after the lease, not after the dead-letter queue's 15-minute expiry.
        const lease = this.lease
          ? await holdLease(
              this.db,
              this.log,
              { name, ids: jobs.map((one) => one.id), maxSeconds: DEAD_LETTER_EXPIRY_SECONDS },
              this.lease,
            )
          : null;
        try {
          await this.settleDeadLetters(definition, giveUp, name, jobs, services);
        } finally {
          lease?.stop();
        }
      },
    );
  }

  /** Settles fetched dead-letter entries, one after the other. */
  private async settleDeadLetters(
    definition: JobDefinition<unknown>,
    giveUp: NonNullable<JobDefinition<unknown>['giveUp']>,
    name: string,
    jobs: PgBoss.JobWithMetadata<unknown>[],
    services: JobServices,
  ): Promise<void> {
    for (const job of jobs) {
      const log = this.log.child({ job: name, jobId: job.id });
      const context = {
        db: this.db,
        log,
        jobId: job.id,
        attempt: job.retryCount + 1,
        ...services,
        queue: this,
      };
      await settleGivenUpJob(definition, giveUp, job, context);
    }
  }

  /** Counts jobs of a queue by state (for tests and ops). */
  async countJobs(
    name: string,
    state: 'created' | 'active' | 'completed' | 'retry' | 'failed',
  ): Promise<number> {
    const result = await this.db
      .withSchema(QUEUE_SCHEMA)
      .selectFrom('job' as never)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('name' as never, '=', name as never)
      .where('state' as never, '=', state as never)
      .executeTakeFirst();
    return Number(result?.n ?? 0);
  }

  /** Stops taking jobs and waits (up to `timeoutMs`) for running ones to finish. Leaves the pool open. */
  async stop(timeoutMs: number): Promise<void> {
    this.unleasedSweep?.stop();
    await this.boss.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false });
  }
}

/**
 * pg-boss options that run its statements on the caller's query handle, so a job inserted
 * inside a transaction exists exactly when the change it is for commits.
 */
function within(db: Queryable | undefined): {
  db?: { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };
} {
  if (!db) return {};
  return {
    db: {
      executeSql: (text: string, values: unknown[] = []) => db.executeQuery(CompiledQuery.raw(text, values)),
    },
  };
}
