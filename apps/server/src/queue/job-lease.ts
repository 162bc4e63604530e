import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.js';

/**
 * How long a job stays `active` without news from its worker. pg-boss fails an `active` job
 * only when its `expire_in` has passed, and on PostgreSQL several processes share the queue, so
 * a job whose process died must expire by itself: its worker keeps renewing a short lease while
 * the handler runs, and pg-boss's expiry sweep retries the job once the renewals stop.
 */
export type JobLease = {
  /** A running job expires this long after its worker's last renewal. */
  seconds: number;
  /** How often pg-boss's maintenance sweep fails expired jobs (its `maintenanceIntervalSeconds`). */
  sweepSeconds: number;
};

/**
 * The lease on PostgreSQL: 60 s, renewed every 20 s, swept every 30 s. A job whose process died
 * is failed by the sweep within 90 s of the last renewal and retried after its retry delay.
 */
export const POSTGRES_JOB_LEASE: JobLease = { seconds: 60, sweepSeconds: 30 };

/**
 * The lease for `JOB_LEASE_SECONDS` (default 60): the sweep runs every half lease, at most every
 * 30 s, so a dead worker's job is failed within 1½ leases of its last renewal.
 */
export function jobLeaseOf(seconds: number): JobLease {
  if (seconds === POSTGRES_JOB_LEASE.seconds) return POSTGRES_JOB_LEASE;
  return { seconds, sweepSeconds: Math.max(1, Math.min(30, Math.floor(seconds / 2))) };
}

/** A held lease on a batch of running jobs. */
export type HeldLease = { stop(): void };

/**
 * Leases running jobs: sets their expiry to `lease.seconds` from now, and again every third of
 * the lease until stopped, never past `maxSeconds` from their start (the queue's expiry, the
 * longest a run may take, which pg-boss's worker also enforces). pg-boss 10 has no heartbeat
 * call, so this updates `expire_in` on its job table, only for these jobs while still `active`.
 * A failed renewal is logged and tried again at the next tick.
 */
export async function holdLease(
  db: Kysely<DB>,
  log: Logger,
  job: { name: string; ids: readonly string[]; maxSeconds: number },
  lease: JobLease,
): Promise<HeldLease> {
  const renew = async () => {
    try {
      await sql`
        update ${sql.table('pgboss.job')}
        set expire_in = least(
          make_interval(secs => ${job.maxSeconds}),
          (now() - started_on) + make_interval(secs => ${lease.seconds}))
        where name = ${job.name} and id = any(${[...job.ids]}::uuid[]) and state = 'active'`.execute(db);
    } catch (error) {
      log.warn({ err: error, job: job.name }, 'could not renew the lease of running jobs');
    }
  };
  await renew();
  const timer = setInterval(() => void renew(), (lease.seconds * 1000) / 3);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** A queue whose running jobs hold leases, with its expiry (the longest one run may take). */
export type LeasedQueue = { name: string; maxSeconds: number };

/**
 * Makes due for the expiry sweep every job that was fetched but never leased: its worker died
 * between pg-boss's fetch (which marks it `active` with the queue's whole expiry) and the first
 * renewal. Such a job still has its queue's expiry unchanged two leases after its start, which a
 * leased job never has before the last lease of its run (a renewal sets `least(max, elapsed +
 * lease)`). Its expiry is set to the time it has already run, so pg-boss's sweep fails it and
 * retries it (the attempt counts) as it does an expired lease. Returns how many were made due.
 */
export async function expireUnleasedJobs(
  db: Kysely<DB>,
  queues: readonly LeasedQueue[],
  lease: JobLease,
): Promise<number> {
  if (queues.length === 0) return 0;
  const result = await sql`
    update ${sql.table('pgboss.job')} j
    set expire_in = now() - j.started_on
    from unnest(${queues.map((queue) => queue.name)}::text[], ${queues.map((queue) => queue.maxSeconds)}::int[])
      as q(name, max_seconds)
    where j.name = q.name and j.state = 'active'
      and j.expire_in = make_interval(secs => q.max_seconds)
      and j.started_on < now() - make_interval(secs => ${2 * lease.seconds})
      and j.started_on > now() - make_interval(secs => q.max_seconds - ${lease.seconds})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * With leases, a worker that dies between fetching a job and its first renewal leaves the job
 * `active` with its queue's whole expiry (15 minutes or more). Every sweep interval, such jobs are
 * made due for pg-boss's expiry sweep once two leases have passed since their start.
 */
export function sweepUnleasedJobs(
  db: Kysely<DB>,
  log: Logger,
  queues: readonly LeasedQueue[],
  lease: JobLease,
): { stop(): void } {
  const sweep = async () => {
    try {
      const reclaimed = await expireUnleasedJobs(db, queues, lease);
      if (reclaimed > 0) log.warn({ reclaimed }, 'jobs whose worker died before leasing them are retried');
    } catch (error) {
      log.warn({ err: error }, 'could not look for jobs whose worker died before leasing them');
    }
  };
  const timer = setInterval(() => void sweep(), lease.sweepSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
