import { CompiledQuery, type Kysely, sql } from 'kysely';
import type PgBoss from 'pg-boss';
import type { DB } from '../db/schema.js';
import type { JobContext, JobDefinition } from './job-queue.js';

/** The pgboss schema (kept here too, so this file needs nothing from job-queue.ts). */
const SCHEMA = 'pgboss';

/**
 * The queue a job's failures for good land in (pg-boss's dead-letter queue): pg-boss inserts a
 * copy of the payload there in the same statement that fails the job for good, whichever way
 * that happens (the last attempt threw, the expiry sweep, an interrupted last attempt).
 */
export function deadLetterQueueOf(name: string): string {
  return `${name}--given-up`;
}

/** The output a job failed at start gets: it was `active` when its process stopped. */
export const INTERRUPTED_MESSAGE = 'interrupted: the service stopped while this job ran';
/** What pg-boss writes when a graceful stop runs out of time with jobs still active. */
const SHUTDOWN_MESSAGE = 'pg-boss shut down while active';

/**
 * Why a job failed for good, as a clause that follows its subject ("the fetch ran out of
 * time"), read from the output pg-boss stored with the failure.
 */
export function failureClause(output: unknown): string {
  const message = messageOf(output);
  if (message === INTERRUPTED_MESSAGE || message === SHUTDOWN_MESSAGE)
    return 'was interrupted by a restart of the service on its last attempt';
  // The expiry sweep ("job failed by timeout in active state") or the worker's own timer
  // ("handler execution exceeded …ms").
  if (/failed by timeout|execution exceeded/.test(message)) return 'ran out of time';
  return 'failed on every attempt (see the server log)';
}

function messageOf(output: unknown): string {
  if (typeof output !== 'object' || output === null) return '';
  const message: unknown = Reflect.get(output, 'message');
  if (typeof message === 'string') return message;
  const value: unknown = Reflect.get(output, 'value');
  return messageOf(value);
}

/** One job failed at start because its process had stopped while it ran. */
export type InterruptedJob = { name: string; id: string; retried: boolean };

/**
 * Fails every `active` job of `names` as interrupted, through pg-boss's own `fail` (so the
 * attempt counts, the retry limit holds and a last attempt lands in its dead-letter queue), then
 * makes the retried ones due at once. Only for the embedded store: one process owns DATA_DIR, so
 * at start no job can really be running. pg-boss has no call to retry without its backoff delay,
 * hence the update of `start_after` on its job table: limited to the jobs just failed that are
 * now waiting (`retry`), it changes nothing else of theirs.
 */
export async function retryInterruptedJobs(
  boss: PgBoss,
  db: Kysely<DB>,
  names: readonly string[],
): Promise<InterruptedJob[]> {
  if (names.length === 0) return [];
  const active = await sql<{ name: string; id: string }>`
    select name, id::text as id from ${sql.table(`${SCHEMA}.job`)}
    where name = any(${[...names]}::text[]) and state = 'active'
    order by name, id`.execute(db);
  const out: InterruptedJob[] = [];
  for (const name of new Set(active.rows.map((row) => row.name))) {
    const ids = active.rows.filter((row) => row.name === name).map((row) => row.id);
    // One call per job: pg-boss's typings take output data only with a single id.
    for (const id of ids) await boss.fail(name, id, { message: INTERRUPTED_MESSAGE });
    const retried = await db.executeQuery<{ id: string }>(
      CompiledQuery.raw(
        `update ${SCHEMA}.job set start_after = now()
         where name = $1 and id = any($2::uuid[]) and state = 'retry'
         returning id::text as id`,
        [name, ids],
      ),
    );
    const due = new Set(retried.rows.map((row) => row.id));
    for (const id of ids) out.push({ name, id, retried: due.has(id) });
  }
  return out;
}

/**
 * Whether a job of `name` with exactly this payload still waits or runs: a failure for good of
 * an older one then needs no settling, the newer one settles what it is about.
 */
export async function hasLiveJob(db: Kysely<DB>, name: string, data: unknown): Promise<boolean> {
  const result = await sql<{ found: number }>`
    select 1 as found from ${sql.table(`${SCHEMA}.job`)}
    where name = ${name} and state < 'completed' and data = ${JSON.stringify(data)}::jsonb
    limit 1`.execute(db);
  return result.rows.length > 0;
}

/**
 * Settles one entry of a job's dead-letter queue (a job that failed for good): its definition's
 * `giveUp` runs with the reason read from pg-boss's output, unless a job with the same payload
 * still waits or runs. A give-up that changed something is logged at error level.
 */
export async function settleGivenUpJob(
  definition: JobDefinition<unknown>,
  giveUp: NonNullable<JobDefinition<unknown>['giveUp']>,
  job: { data: unknown; output: unknown },
  context: JobContext,
): Promise<void> {
  const { log } = context;
  const payload = definition.payload.safeParse(job.data);
  if (!payload.success) {
    log.error({ issues: payload.error.issues }, 'job payload is invalid; dropping it');
    return;
  }
  if (await hasLiveJob(context.db, definition.name, job.data)) {
    log.info('a newer job with the same payload is waiting; it settles the outcome');
    return;
  }
  const reason = failureClause(job.output);
  if (await giveUp(payload.data, context, reason))
    log.error({ payload: payload.data, reason }, `${definition.name} failed for good: it ${reason}`);
  else log.debug({ payload: payload.data }, `${definition.name} failed for good; already settled`);
}
