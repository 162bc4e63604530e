import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.js';
import { defineJob, type JobContextOf, type JobQueue } from '../queue/job-queue.js';
import { maintainStoreSpec } from '../queue/job-specs.js';
import { ADMIN_EVENT_RETENTION_MS, pruneEvents } from '../services/events/admin-events.js';
import { prunePresence } from '../services/events/presence.js';

/**
 * When a table is worth maintaining, in autovacuum's terms (a base count plus a share of the
 * live rows): ANALYZE after `analyzeBase + analyzeScale × live` changed rows, VACUUM after
 * `vacuumBase + vacuumScale × live` dead rows. PostgreSQL's defaults are 50 + 10 % and 50 + 20 %;
 * these are higher bases because each statement holds the embedded store's one connection.
 */
export type MaintenanceThresholds = {
  analyzeBase: number;
  analyzeScale: number;
  vacuumBase: number;
  vacuumScale: number;
};

/** The thresholds the job uses unless told otherwise. */
export const DEFAULT_MAINTENANCE_THRESHOLDS: MaintenanceThresholds = Object.freeze({
  analyzeBase: 500,
  analyzeScale: 0.1,
  vacuumBase: 1000,
  vacuumScale: 0.2,
});

/** The schemas maintained: the service's tables and the job queue's. */
const SCHEMAS = ['public', 'pgboss'] as const;

/** What the maintenance did to one table. */
export type TableMaintenance = {
  table: string;
  action: 'vacuum analyze' | 'analyze';
  ms: number;
  deadBefore: number;
  deadAfter: number;
  changedBefore: number;
  bytesBefore: number;
  bytesAfter: number;
};

type TableStats = {
  schema: string;
  table: string;
  live: number;
  dead: number;
  changed: number;
  /** pg_class.reltuples < 0: never vacuumed or analyzed (kept in the catalog, across restarts). */
  neverAnalyzed: boolean;
  bytes: number;
};

/** Per-table counters, read outside any transaction so they are fresh. */
async function readStats(db: Kysely<DB>): Promise<TableStats[]> {
  const result = await sql<{
    schema: string;
    table: string;
    live: string;
    dead: string;
    changed: string;
    never_analyzed: boolean;
    bytes: string;
  }>`
    -- The counters start at zero when PGlite opens; the catalog's estimate survives restarts.
    select s.schemaname as schema, s.relname as table, greatest(s.n_live_tup, c.reltuples::bigint, 0) as live, s.n_dead_tup as dead,
      s.n_mod_since_analyze as changed, c.reltuples < 0 and c.relpages > 0 as never_analyzed,
      pg_total_relation_size(s.relid) as bytes
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname in (${sql.join(SCHEMAS)})
    order by s.schemaname, s.relname`.execute(db);
  return result.rows.map((row) => ({
    schema: row.schema,
    table: row.table,
    live: Number(row.live),
    dead: Number(row.dead),
    changed: Number(row.changed),
    neverAnalyzed: row.never_analyzed,
    bytes: Number(row.bytes),
  }));
}

/**
 * Whether `db` is the embedded store (PGlite: one standalone backend, no autovacuum). A
 * PostgreSQL server has autovacuum, on by default; where an operator turned it off, vacuuming
 * is theirs to schedule, not this job's (the service warns: `warnIfAutovacuumOff`; the CLI's
 * `maintenance` command is what they can schedule).
 */
export async function isEmbeddedStore(db: Kysely<DB>): Promise<boolean> {
  const result = await sql<{ embedded: boolean }>`select version() like '%PGlite%' as embedded`.execute(db);
  return result.rows[0]?.embedded === true;
}

/** What the service logs, at warn, when the PostgreSQL server it uses has autovacuum off. */
export const AUTOVACUUM_OFF_WARNING =
  'PostgreSQL has autovacuum off: dead rows from edits, syncs and the job queue pile up and every query slows down; turn it on (autovacuum = on) or schedule VACUUM (ANALYZE) of this database yourself (the CLI command `maintenance` runs it)';

/** Whether the PostgreSQL server behind `db` runs autovacuum (its `autovacuum` setting). */
export async function autovacuumOn(db: Kysely<DB>): Promise<boolean> {
  const result = await sql<{ on: boolean }>`select current_setting('autovacuum') = 'on' as on`.execute(db);
  return result.rows[0]?.on !== false;
}

/**
 * On PostgreSQL, warns when autovacuum is off (the service's maintenance leaves vacuuming to it
 * there); answers whether it warned. Nothing on the embedded store, which has its own job.
 */
export async function warnIfAutovacuumOff(db: Kysely<DB>, log: Logger): Promise<boolean> {
  if ((await isEmbeddedStore(db)) || (await autovacuumOn(db))) return false;
  log.warn(AUTOVACUUM_OFF_WARNING);
  return true;
}

/**
 * Runs VACUUM (ANALYZE) on tables with many dead rows and ANALYZE on tables with many changed
 * rows (or never analyzed), one statement per table, each on its own pooled query, never in a
 * transaction (VACUUM refuses one), so on the embedded store's one connection other requests
 * run between two tables. With `all`, every table that holds pages is vacuumed and analyzed:
 * PGlite does not keep the activity counters across a restart, so after one the counters say
 * nothing about dead rows left from before.
 */
export async function maintainTables(options: {
  db: Kysely<DB>;
  thresholds?: MaintenanceThresholds;
  all?: boolean;
  /** ANALYZE only (by the same thresholds); dead rows wait for a run without it. */
  analyzeOnly?: boolean;
  now?: () => number;
}): Promise<TableMaintenance[]> {
  const { db } = options;
  const t = options.thresholds ?? DEFAULT_MAINTENANCE_THRESHOLDS;
  const now = options.now ?? (() => performance.now());
  const done: TableMaintenance[] = [];
  for (const stats of await readStats(db)) {
    const vacuum = options.analyzeOnly
      ? false
      : options.all
        ? stats.bytes > 0
        : stats.dead > 0 && stats.dead >= t.vacuumBase + t.vacuumScale * stats.live;
    const analyze =
      vacuum ||
      stats.neverAnalyzed ||
      (stats.changed > 0 && stats.changed >= t.analyzeBase + t.analyzeScale * stats.live);
    if (!analyze) continue;
    const target = sql.id(stats.schema, stats.table);
    const started = now();
    if (vacuum) await sql`vacuum (analyze) ${target}`.execute(db);
    else await sql`analyze ${target}`.execute(db);
    const ms = now() - started;
    const after = (await readStats(db)).find(
      (row) => row.schema === stats.schema && row.table === stats.table,
    );
    done.push({
      table: `${stats.schema}.${stats.table}`,
      action: vacuum ? 'vacuum analyze' : 'analyze',
      ms: Math.round(ms),
      deadBefore: stats.dead,
      deadAfter: after?.dead ?? 0,
      changedBefore: stats.changed,
      bytesBefore: stats.bytes,
      bytesAfter: after?.bytes ?? stats.bytes,
    });
  }
  return done;
}

/** Stores whose first run (a sweep of every table) this process has done. */
const swept = new WeakSet<Kysely<DB>>();
/** Whether "nothing to do on PostgreSQL" has been logged in this process. */
let loggedPostgres = false;

/** Runs the maintenance as the job does: nothing on PostgreSQL; on PGlite a full sweep first. */
export async function runStoreMaintenance(options: {
  db: Kysely<DB>;
  log: Logger;
  thresholds?: MaintenanceThresholds;
  /** `indexed`: after a source finished indexing, ANALYZE only, no sweep, nothing logged on PostgreSQL. */
  reason?: 'indexed';
}): Promise<TableMaintenance[] | null> {
  const { db, log, reason } = options;
  const analyzeOnly = reason === 'indexed';
  if (!(await isEmbeddedStore(db))) {
    if (!analyzeOnly && !loggedPostgres) {
      loggedPostgres = true;
      if (!(await warnIfAutovacuumOff(db, log)))
        log.info('store maintenance: PostgreSQL has autovacuum; the maintenance job does nothing there');
    }
    return null;
  }
  const all = !analyzeOnly && !swept.has(db);
  const done = await maintainTables({
    db,
    all,
    analyzeOnly,
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
  });
  if (!analyzeOnly) swept.add(db);
  for (const table of done) log.info(table, 'store maintenance: table done');
  log.info(
    analyzeOnly ? { tables: done.length, reason } : { tables: done.length, sweep: all },
    'store maintenance finished',
  );
  return done;
}

/**
 * The store's maintenance: on both stores, prunes the admin event stream's events older than
 * ADMIN_EVENT_RETENTION_MS (24 h) and stale operator presence; on the embedded store (PGlite has
 * no autovacuum) also `runStoreMaintenance`. After a source finished indexing (`indexed`), only
 * ANALYZE of the embedded store's tables past their thresholds: a sample per table, quick even
 * on a large store, where a VACUUM of the vectors may hold the store for minutes (that, and the
 * first run's sweep of every table, wait for the schedule). Nothing on PostgreSQL, whose
 * autovacuum does the same.
 */
export const maintainStoreJob = defineJob({
  ...maintainStoreSpec,
  async handle({ reason }, { db, log, clock }: JobContextOf<'clock'>) {
    if (reason === 'indexed') {
      await runStoreMaintenance({ db, log, reason });
      return;
    }
    const now = clock.now();
    const pruned = await pruneEvents(db, now);
    await prunePresence(db, now);
    if (pruned > 0) log.info({ pruned, retention_ms: ADMIN_EVENT_RETENTION_MS }, 'admin events pruned');
    await runStoreMaintenance({ db, log });
  },
});

/**
 * Sends the maintenance job every `intervalMinutes` on the embedded store (0: never). The
 * first run comes one interval after start, not at start, so a restart is not slowed by it.
 * On PostgreSQL (autovacuum does the rest) it is sent hourly, for the admin events' pruning only.
 */
export function scheduleStoreMaintenance(options: {
  mode: 'embedded' | 'postgres';
  queue: JobQueue;
  intervalMinutes: number;
  log: Logger;
}): { stop(): void } {
  const { log } = options;
  if (options.mode === 'postgres') {
    log.info('store maintenance: PostgreSQL runs autovacuum; the job only prunes admin events, hourly');
  } else if (options.intervalMinutes === 0) {
    log.info('store maintenance: off (STORE_MAINTENANCE_INTERVAL_MINUTES=0)');
    return { stop() {} };
  }
  const minutes = options.mode === 'postgres' ? 60 : options.intervalMinutes;
  const timer = setInterval(() => {
    options.queue.send(maintainStoreJob, { reason: 'schedule' }).catch((error: unknown) => {
      log.warn({ err: error }, 'store maintenance: could not queue the job');
    });
  }, minutes * 60_000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
