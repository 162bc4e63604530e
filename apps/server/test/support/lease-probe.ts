// The job of the PostgreSQL lease test, shared by the test and the worker process it kills.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { z } from 'zod';
import type { DB } from '../../src/db/schema.js';
import { defineJob, type JobDefinition } from '../../src/queue/job-queue.js';

/** A short lease, so the test waits seconds where production waits a minute. */
export const PROBE_LEASE = { seconds: 2, sweepSeconds: 1 };

/** Opens a pool and a Kysely handle on `url` (the probe's queries are raw SQL on its own table). */
export function openProbeDatabase(url: string): { pool: pg.Pool; db: Kysely<DB> } {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // The test drops its database `with (force)` at the end, which terminates any connection still
  // open: an idle client's error then is expected, not a failure (pg's pools throw it otherwise).
  pool.on('error', () => {});
  return { pool, db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }) };
}

/**
 * A job that records which worker ran it in `lease_probe_runs`; in the worker that is killed
 * (`hang`), it then never finishes, as a job does when its process dies mid-run.
 */
export function leaseProbeJob(worker: string, hang: boolean): JobDefinition<{ id: string }> {
  return defineJob({
    name: 'test-lease-probe',
    payload: z.strictObject({ id: z.string().min(1) }),
    retryLimit: 2,
    retryDelaySeconds: 1,
    retryBackoff: false,
    async handle({ id }, { db }) {
      await sql`insert into lease_probe_runs (job, worker) values (${id}, ${worker})`.execute(db);
      if (hang) await new Promise(() => {});
    },
  });
}
