/**
 * What bench:soak reads beside its requests: the database's own background work (autovacuum,
 * autoanalyze, checkpoints) and, with `--heap yes`, the heap each process keeps after a full
 * garbage collection (written by heap-probe.cjs).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { markdownTable } from './latency.js';
import { clock, memorySlope, type Sample } from './soak-report.js';

/** The database's own background work: autovacuum and autoanalyze runs, checkpoints. */
export type DbEvent = { at: number; what: string };
/** What earlier readings saw: each table's last run of each kind, the checkpoint counters. */
export type DbSeen = {
  runs: Map<string, number>;
  checkpoints?: { n: number; writeMs: number; syncMs: number };
};

/**
 * Reads the soak database's maintenance since the last reading: tables whose autovacuum or
 * autoanalyze ran (with PostgreSQL's timestamp of it) and checkpoints finished (at the reading's
 * time, with their write and sync times). `seen` keeps what was reported already.
 */
export async function databaseEvents(db: pg.Client, started: number, seen: DbSeen): Promise<DbEvent[]> {
  const events: DbEvent[] = [];
  const tables = await db.query<{ name: string; vacuum: Date | null; analyze: Date | null }>(
    `select schemaname || '.' || relname as name, last_autovacuum as vacuum, last_autoanalyze as analyze
       from pg_stat_user_tables`,
  );
  for (const row of tables.rows) {
    for (const [kind, when] of [
      ['autovacuum', row.vacuum],
      ['autoanalyze', row.analyze],
    ] as const) {
      if (!when || when.getTime() < started) continue;
      const key = `${kind} ${row.name}`;
      if (seen.runs.get(key) === when.getTime()) continue;
      seen.runs.set(key, when.getTime());
      events.push({ at: (when.getTime() - started) / 1000, what: key });
    }
  }
  const checkpoints = await db.query<{ n: string; write_ms: string; sync_ms: string }>(
    `select (checkpoints_timed + checkpoints_req)::text as n, checkpoint_write_time::text as write_ms,
            checkpoint_sync_time::text as sync_ms from pg_stat_bgwriter`,
  );
  const row = checkpoints.rows[0];
  if (!row) return events;
  const now = { n: Number(row.n), writeMs: Number(row.write_ms), syncMs: Number(row.sync_ms) };
  const before = seen.checkpoints;
  if (before && now.n > before.n) {
    const written = (now.writeMs - before.writeMs).toFixed(0);
    const synced = (now.syncMs - before.syncMs).toFixed(0);
    events.push({
      at: (Date.now() - started) / 1000,
      what: `checkpoint (written over ${written} ms, sync ${synced} ms), before this reading`,
    });
  }
  seen.checkpoints = now;
  return events;
}

/** What heap-probe.cjs wrote for each process of the set, as samples in minutes since `started`. */
export function readHeapProbes(
  dir: string,
  processes: readonly { name: string; pid: number }[],
  started: number,
): { heap: Sample[]; spaces: Sample[] } {
  const heap: Sample[] = [];
  const spaces: Sample[] = [];
  for (const proc of processes) {
    let text = '';
    try {
      text = readFileSync(join(dir, `${proc.pid}.jsonl`), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      const probe = JSON.parse(line) as HeapProbeLine;
      if (probe.t < started) continue;
      const at = (probe.t - started) / 60_000;
      if (probe.thread !== undefined) {
        // A worker thread's own heap (an extraction thread; they come and go, each its own row).
        const name = `${proc.name} thread ${probe.thread}`;
        heap.push({ name, at, mb: probe.heapUsed / 2 ** 20 });
        if (probe.heapPhysical !== undefined)
          spaces.push({ name: `${name} heap held`, at, mb: probe.heapPhysical / 2 ** 20 });
        continue;
      }
      heap.push({ name: proc.name, at, mb: probe.heapUsed / 2 ** 20 });
      for (const space of HEAP_SPACES) {
        const used = probe.spaces?.[space];
        if (used !== undefined) spaces.push({ name: `${proc.name} ${space}`, at, mb: used / 2 ** 20 });
      }
      for (const space of HELD_SPACES) {
        const held = probe.physical?.[space];
        if (held !== undefined) spaces.push({ name: `${proc.name} ${space} held`, at, mb: held / 2 ** 20 });
      }
      for (const kind of BEYOND_USE) {
        const held = probe[kind];
        if (held !== undefined)
          spaces.push({ name: `${proc.name} ${BEYOND_USE_LABEL[kind]}`, at, mb: held / 2 ** 20 });
      }
      const young = probe.physical?.new_space;
      if (probe.rss !== undefined && young !== undefined)
        spaces.push({ name: `${proc.name} ${JUDGED_LABEL}`, at, mb: (probe.rss - young) / 2 ** 20 });
    }
  }
  return { heap, spaces };
}

/** The heap spaces reported one by one: what the program keeps, compiled code, big objects. */
export const HEAP_SPACES = ['old_space', 'code_space', 'large_object_space'] as const;

/**
 * The spaces whose held memory (pages kept after the collection, used or not) is reported beside
 * what they use: the new space grows while a process allocates fast (up to its fixed maximum,
 * 32 MB here) and V8 shrinks it again after some collections, and old space's held pages beyond
 * its use are fragmentation.
 */
const HELD_SPACES = ['new_space', 'old_space'] as const;

/** One line of heap-probe.cjs (arrayBuffers and threads' lines since the probe wrote them; older files lack them). */
type HeapProbeLine = {
  t: number;
  /** Set on a worker thread's line: its heap alone (its RSS is the process's). */
  thread?: number;
  heapUsed: number;
  /** The heap's pages held in memory, used or not (`total_physical_size`). */
  heapPhysical?: number;
  external?: number;
  arrayBuffers?: number;
  rss?: number;
  spaces?: Record<string, number>;
  /** Per space, the memory it holds (`physical_space_size`). */
  physical?: Record<string, number>;
};

/**
 * What a process holds beyond the heap it uses, read right after the same collection: the pages
 * its main heap holds (`heapPhysical`, used or not), memory that JS objects own natively
 * (Buffers, sockets' and zlib's state: `external`, of which `arrayBuffers`), and the whole
 * resident set. RSS growing while all of these stay flat is the allocator's or the runtime's own
 * (arenas, threads' heaps, compiled code), not something the program keeps.
 */
const BEYOND_USE = ['heapPhysical', 'external', 'arrayBuffers', 'rss'] as const;
const BEYOND_USE_LABEL: Record<(typeof BEYOND_USE)[number], string> = {
  heapPhysical: 'heap held',
  external: 'external',
  arrayBuffers: 'arrayBuffers',
  rss: 'rss after gc',
};

/** The row of each process's RSS after the collection less its new space's pages. */
const JUDGED_LABEL = 'rss less new space';

/**
 * Each process's resident set right after a full collection (its main thread's probe lines),
 * less the pages its new space holds at that moment, named as the process: the reading the
 * memory verdict judges when the probe runs. Raw RSS rises and falls with the garbage the
 * collector has not taken yet, so over 15 minutes its slope is as much the collector's timing as
 * the process's growth. The new space is bounded by V8's setting and swings between half and
 * all of it (16 or 32 MB) as V8 resizes it: a few such swings in 15 readings make a slope of
 * 1 MB/min with nothing kept. A process whose probe lines lack the new space (files written
 * before the probe recorded it) is judged on its RSS after the collection.
 */
export function rssAfterCollection(samples: readonly Sample[]): Sample[] {
  const mainThread = samples.filter((s) => !s.name.includes(' thread '));
  const judged = mainThread.filter((s) => s.name.endsWith(` ${JUDGED_LABEL}`));
  const raw = mainThread.filter((s) => s.name.endsWith(` ${BEYOND_USE_LABEL.rss}`));
  const processOf = (s: Sample, label: string) => s.name.slice(0, -(label.length + 1));
  const withJudged = new Set(judged.map((s) => processOf(s, JUDGED_LABEL)));
  return [
    ...judged.map((s) => ({ ...s, name: processOf(s, JUDGED_LABEL) })),
    ...raw
      .map((s) => ({ ...s, name: processOf(s, BEYOND_USE_LABEL.rss) }))
      .filter((s) => !withJudged.has(s.name)),
  ];
}

/**
 * What the soak asks of its private server's log: each statement of 250 ms or more, each lock
 * wait past 200 ms (`deadlock_timeout`, which is when PostgreSQL writes "still waiting"), and
 * each checkpoint with its timing (autovacuum runs are read from the statistics instead). They
 * change what it writes, not what it does (but for checking deadlocks after 200 ms, not 1 s).
 */
export const SLOW_LOG_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  log_min_duration_statement: '250ms',
  log_lock_waits: 'on',
  deadlock_timeout: '200ms',
  log_checkpoints: 'on',
});

/** A line of the server's log worth showing beside the slow requests: when, which backend, what. */
export type SlowLogEntry = { at: number; pid: number; what: string };

const LOG_LINE =
  /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) (\S+) \[(\d+)\] (LOG|DETAIL|STATEMENT):\s+(.*)$/;
const WORTH_SHOWING = /^(duration: |process \d+ (still waiting|acquired)|checkpoint complete)/;

/**
 * The entries of a PostgreSQL log (default `log_line_prefix`, `%m [%p] `) written from
 * `started` (ms since the epoch) on, `at` in seconds since then: statements that ran long, lock
 * waits (with the statement that waited and who held the lock) and checkpoints, each cut to `width` characters. Continuation lines and other messages are left out.
 */
export function slowLogEntries(log: string, started: number, width = 220): SlowLogEntry[] {
  const entries: SlowLogEntry[] = [];
  let last: { pid: number; waiting: boolean } | null = null;
  for (const line of log.split('\n')) {
    const match = LOG_LINE.exec(line);
    if (!match) continue;
    const [, stamp = '', zone = '', pidText = '', level = '', message = ''] = match;
    const when = Date.parse(zone === 'UTC' ? `${stamp.replace(' ', 'T')}Z` : `${stamp} ${zone}`);
    const pid = Number(pidText);
    if (!Number.isFinite(when) || when < started) continue;
    const at = (when - started) / 1000;
    const cut = (text: string) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);
    if (level === 'LOG') {
      const shown = WORTH_SHOWING.test(message);
      last = shown ? { pid, waiting: message.includes('still waiting') } : null;
      if (shown) entries.push({ at, pid, what: cut(message) });
    } else if (last?.waiting && last.pid === pid) {
      entries.push({ at, pid, what: cut(`${level.toLowerCase()}: ${message}`) });
    }
  }
  return entries;
}

/** The log's entries as a table (run time m:ss, backend, message), the first `limit` and how many more. */
export function slowLogTable(entries: readonly SlowLogEntry[], limit: number): string {
  if (entries.length === 0) return 'none';
  const table = markdownTable(
    ['at', 'backend', 'what'],
    entries
      .slice(0, limit)
      .map((entry) => [clock(entry.at), String(entry.pid), entry.what.replaceAll('|', '\\|')]),
  );
  return entries.length > limit ? `${table}\n\n(and ${entries.length - limit} more)` : table;
}

/** The database's background work as a table: one row per table and kind (hundreds of runs with autovacuum on). */
export function databaseEventTable(events: readonly DbEvent[]): string {
  const byWhat = new Map<string, DbEvent[]>();
  for (const event of [...events].sort((a, b) => a.at - b.at)) {
    const key = event.what.startsWith('checkpoint') ? 'checkpoint' : event.what;
    byWhat.set(key, [...(byWhat.get(key) ?? []), event]);
  }
  if (byWhat.size === 0) return 'none seen';
  return markdownTable(
    ['what', 'times', 'first', 'last'],
    [...byWhat].map(([what, seen]) => [
      what,
      String(seen.length),
      clock(seen[0]?.at ?? 0),
      clock(seen.at(-1)?.at ?? 0),
    ]),
  );
}

/**
 * The heap after each full collection, per process and per space: first and last reading, the
 * slope after the first minute, and the slope in each half of a `minutes`-long run (a leak keeps
 * its slope; warm-up flattens).
 */
export function heapTable(
  samples: readonly Sample[],
  minutes: number,
  /** When the readings were taken, for the heading. */
  cadence = 'after a full collection forced every 10 s',
): string {
  const half = minutes / 2;
  const slopeOf = (part: readonly Sample[]) => new Map(memorySlope(part).map((s) => [s.name, s.slope]));
  const early = slopeOf(samples.filter((s) => s.at < half));
  const late = slopeOf(samples.filter((s) => s.at >= half));
  const rows = memorySlope(samples)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((s) => [
      s.name,
      String(s.readings),
      s.first.toFixed(1),
      s.last.toFixed(1),
      s.slope.toFixed(3),
      (early.get(s.name) ?? 0).toFixed(3),
      (late.get(s.name) ?? 0).toFixed(3),
    ]);
  return `\nHeap in use after a full garbage collection (MB, ${cadence}; below each process its spaces, what the new and old space hold (used or not), then at the same moment the pages the whole heap holds, what the process holds outside the heap (external, of it arrayBuffers), RSS, and RSS less the new space's pages (what the memory verdict judges)), its slope after the first minute and in each half of the run:\n\n${markdownTable(['process / space', 'readings', 'first MB', 'last MB', 'slope MB/min', 'first half', 'second half'], rows)}`;
}
